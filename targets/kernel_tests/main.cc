//===- main.cc - Kernel-test firmware: built tier vs portable on one core ---===//
//
// Runs every test of kernels/arm/tier_test.h with EMBER_KT_CASES random cases and prints one
// line per kernel:
//   kernel <name> tier <tier>: <cases> cases, <optimized> optimized, <mismatches> mismatches, ...
// Exit code 0 when no case differs (and none was refused), 1 otherwise.

#include "ember/kernels/arm/tier.h"
#include "ember/kernels/arm/tier_test.h"
#include "ember/targets/boards/board.h"

using namespace ember::kernels::arm::testing;

int main() {
  int failed = 0;
  uint32_t seed = EMBER_KT_SEED;
  for (const TierTest& t : kTierTests) {
    const uint64_t start = board_ticks();
    const Outcome o = t.run(seed++, EMBER_KT_CASES);
    const uint64_t instructions = board_ticks_to_instructions(board_ticks() - start);
    board_printf("kernel %s tier %s: %ld cases, %ld optimized, %ld mismatches, %ld rejected, first bad %ld, "
                 "%lu k instructions\n",
                 t.name, ember::kernels::tier_name(ember::kernels::kBuiltTier), static_cast<long>(o.cases),
                 static_cast<long>(o.optimized), static_cast<long>(o.mismatches), static_cast<long>(o.rejected),
                 static_cast<long>(o.first_bad), static_cast<unsigned long>(instructions / 1000));
    if (o.mismatches != 0 || o.rejected != 0) failed = 1;
  }
  board_printf("kernel tests: %s\n", failed ? "FAIL" : "PASS");
  board_flush();
  board_exit(failed ? kBoardExitMismatch : kBoardExitPass);
}
