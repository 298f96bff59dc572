//===- load_check.cc - Firmware: load crafted program files, print codes --===//
//
// The device half of tests/test_untrusted.py. Built instead of main.cc when EMBER_FW_LOAD_CHECK
// is on. load_cases.c (written by ember.firmware.build_load_check_firmware) holds one base
// program file and a list of cases, each a byte patch of the base: a length, a load address
// shift and (offset, value) pairs. For each case the firmware rebuilds the file in RAM, calls
// Program::load with every portable kernel linked, and prints the status code; a file that
// loads is bound to an arena of exactly the planned size and run once. Then, for the base file,
// it binds arenas from 0 bytes up to the plan's size in `ember_sweep_step` steps and prints each
// Executor::init code (the log line names the bytes needed), and checks the executor's run-time
// index checks. Lines start with "ember-fw:"; any fault is reported by the board as usual.

#include <stdint.h>
#include <string.h>

#include "ember/kernels/kernel_table.h"
#include "ember/runtime/executor.h"
#include "ember/runtime/program.h"
#include "ember/targets/boards/board.h"

extern "C" {
extern const uint8_t ember_base_file[];
extern const uint32_t ember_base_bytes;
extern const uint32_t ember_num_cases;
// Per case: length, shift, number of patches, index of its first patch in the arrays below.
extern const uint32_t ember_case_length[];
extern const uint32_t ember_case_shift[];
extern const uint32_t ember_case_patches[];
extern const uint32_t ember_case_first[];
extern const uint32_t ember_patch_offset[];
extern const uint8_t ember_patch_value[];
extern uint8_t ember_file_buffer[];  // ember_base_bytes + 16, 16-byte aligned, in SRAM
extern uint8_t ember_arena[];        // ember_arena_bytes, 16-byte aligned, in SRAM
extern const uint32_t ember_arena_bytes;
extern const uint32_t ember_sweep_step;
}

namespace {

using ember::rt::Executor;
using ember::rt::Program;
using ember::rt::Span;
using ember::rt::Status;

Program g_program;
Executor g_executor;

unsigned code(Status s) { return static_cast<unsigned>(s); }

Status run_once(const Program& program) {
  Span<uint8_t> regions[ember::rt::kMaxRegions];
  uint32_t used = 0;
  for (size_t r = 0; r < program.num_regions(); ++r) {
    const uint32_t bytes = (program.region_size(r) + 15u) & ~15u;
    if (bytes > ember_arena_bytes - used) return Status::ArenaTooSmall;
    regions[r] = Span<uint8_t>(ember_arena + used, program.region_size(r));
    used += bytes;
  }
  EMBER_RETURN_IF_ERROR(
      g_executor.init(program, Span<const Span<uint8_t>>(regions, program.num_regions())));
  for (size_t i = 0; i < program.num_inputs(); ++i) {
    ember::rt::TensorView view;
    EMBER_RETURN_IF_ERROR(g_executor.input(i, &view));
    ember::rt::TensorInfo info;
    EMBER_RETURN_IF_ERROR(program.input_info(i, &info));
    memset(view.data, 0, info.bytes);
  }
  return g_executor.run();
}

}  // namespace

int main() {
  const ember::rt::KernelTable table = ember::kernels::portable_kernel_table();
  board_printf("ember-fw: load-check base=%lu cases=%lu\n", (unsigned long)ember_base_bytes,
               (unsigned long)ember_num_cases);
  for (uint32_t c = 0; c < ember_num_cases; ++c) {
    uint8_t* file = ember_file_buffer + ember_case_shift[c];
    memcpy(file, ember_base_file, ember_base_bytes);
    for (uint32_t k = 0; k < ember_case_patches[c]; ++k) {
      const uint32_t j = ember_case_first[c] + k;
      file[ember_patch_offset[j]] = ember_patch_value[j];
    }
    const Status load = Program::load(Span<const uint8_t>(file, ember_case_length[c]), table,
                                      &g_program);
    const Status run = load == Status::Ok ? run_once(g_program) : Status::Ok;
    board_printf("ember-fw: case index=%lu load=%u run=%u\n", (unsigned long)c, code(load),
                 code(run));
  }

  // Arena sweep and run-time indices on the unmodified base file.
  memcpy(ember_file_buffer, ember_base_file, ember_base_bytes);
  Status s = Program::load(Span<const uint8_t>(ember_file_buffer, ember_base_bytes), table,
                           &g_program);
  if (s != Status::Ok || g_program.num_regions() != 1) {
    board_printf("ember-fw: result error base load=%u\n", code(s));
    return kBoardExitRuntimeError;
  }
  const uint32_t need = g_program.region_size(0);
  for (uint32_t size = 0;; size += ember_sweep_step) {
    if (size > need) size = need;
    Span<uint8_t> region(ember_arena, size);
    s = g_executor.init(g_program, Span<const Span<uint8_t>>(&region, 1));
    board_printf("ember-fw: arena bytes=%lu init=%u\n", (unsigned long)size, code(s));
    if (size == need) break;
  }
  board_printf("ember-fw: runtime-index run_op=%u set_input=%u\n",
               code(g_executor.run_op(g_program.num_ops())),
               code(g_executor.set_input(g_program.num_inputs(), ember_arena, 0)));
  board_printf("ember-fw: ram stack=%lu stack_size=%lu\n", (unsigned long)board_stack_used(),
               (unsigned long)board_stack_size());
  board_printf("ember-fw: result pass\n");
  return kBoardExitPass;
}
