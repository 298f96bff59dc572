//===- main.cc - Test firmware: run a program on a board, check, count ----===//
//
// The firmware `ember firmware` builds: loads the embedded program file from flash, binds the
// arena regions (each sized exactly by the plan and placed in its named memory region by the
// board's linker script), runs every embedded test case op by op, prints each op's and each
// inference's instruction count, compares every output with the host runtime's bytes and exits
// 0 only if all are identical (board.h lists the exit codes). Lines start with "ember-fw:" and
// are parsed by python/ember/firmware.py.
//
// Generated inputs (python/ember/firmware.py): model.h/model.c (the program, `ember export-c`),
// model_kernels.cc (the selective kernel table) and firmware_data.c (arenas, test vectors).

#include <stdint.h>
#include <string.h>

#include "model.h"
#include "ember/runtime/executor.h"
#include "ember/runtime/program.h"
#include "ember/targets/boards/board.h"

extern "C" {
extern uint8_t* const ember_arenas[];
extern const uint32_t ember_arena_bytes[];
extern const uint32_t ember_test_cases;
extern const uint8_t* const ember_test_inputs[];     // [case * MODEL_NUM_INPUTS + i]
extern const uint8_t* const ember_test_expected[];   // [case * MODEL_NUM_OUTPUTS + o]
}

namespace {

using ember::rt::Executor;
using ember::rt::Program;
using ember::rt::Span;
using ember::rt::Status;

// Statics, not stack objects: their size is the runtime's own RAM ("runtime_state").
Program g_program;
Executor g_executor;
Span<uint8_t> g_regions[MODEL_NUM_REGIONS > 0 ? MODEL_NUM_REGIONS : 1];

int fail(const char* what, Status status) {
  board_printf("ember-fw: error %s: %s\n", what, ember::rt::to_string(status));
  board_printf("ember-fw: result error\n");
  return kBoardExitRuntimeError;
}

uint32_t element_bytes(ember::rt::DType dtype) { return dtype == ember::rt::DType::Int8 ? 1u : 4u; }

}  // namespace

int main() {
  // What two back-to-back reads of the counter cost; subtracted from every measured region.
  const uint64_t c0 = board_ticks();
  const uint64_t c1 = board_ticks();
  const uint64_t overhead = c1 - c0;

  board_printf("ember-fw: program=%lu regions=%lu cases=%lu\n", (unsigned long)MODEL_PROGRAM_BYTES,
               (unsigned long)MODEL_NUM_REGIONS, (unsigned long)ember_test_cases);
  const uint64_t l0 = board_ticks();
  Status status = Program::load(Span<const uint8_t>(model_program, MODEL_PROGRAM_BYTES),
                                model_kernel_table, &g_program);
  const uint64_t l1 = board_ticks();
  if (status != Status::Ok) return fail("load", status);
  // The verifier's cost: every check of Program::load, once per program.
  board_printf("ember-fw: load instructions=%llu\n",
               (unsigned long long)board_ticks_to_instructions(l1 - l0 - overhead));
  for (size_t r = 0; r < MODEL_NUM_REGIONS; ++r) {
    g_regions[r] = Span<uint8_t>(ember_arenas[r], ember_arena_bytes[r]);
    board_printf("ember-fw: region %lu %s %lu at 0x%08lx\n", (unsigned long)r,
                 g_program.region_name(r), (unsigned long)ember_arena_bytes[r],
                 (unsigned long)(uintptr_t)ember_arenas[r]);
  }
  status = g_executor.init(g_program, Span<const Span<uint8_t>>(g_regions, MODEL_NUM_REGIONS));
  if (status != Status::Ok) return fail("init", status);

#ifdef EMBER_FW_INJECT_FAULT
  // For the test that a crash is reported as a fault: an undefined instruction (UsageFault on
  // v7-M and later, HardFault on v6-M).
  __builtin_trap();
#endif

  uint32_t total_mismatches = 0;
  const size_t num_ops = g_executor.num_ops();
  for (uint32_t c = 0; c < ember_test_cases; ++c) {
    for (size_t i = 0; i < MODEL_NUM_INPUTS; ++i) {
      ember::rt::TensorInfo info;
      g_program.input_info(i, &info);
      status = g_executor.set_input(i, ember_test_inputs[c * MODEL_NUM_INPUTS + i], info.bytes);
      if (status != Status::Ok) return fail("set_input", status);
    }
    uint64_t inference = 0;
    for (size_t k = 0; k < num_ops; ++k) {
      const uint64_t t0 = board_ticks();
      status = g_executor.run_op(k);
      const uint64_t t1 = board_ticks();
      if (status != Status::Ok) return fail("run", status);
      const uint64_t ticks = t1 - t0 - overhead;
      inference += ticks;
      board_printf("ember-fw: op case=%lu index=%lu kernel=%u instructions=%llu\n", (unsigned long)c,
                   (unsigned long)k, (unsigned)g_program.op_kernel(k),
                   (unsigned long long)board_ticks_to_instructions(ticks));
    }
    board_printf("ember-fw: inference case=%lu instructions=%llu\n", (unsigned long)c,
                 (unsigned long long)board_ticks_to_instructions(inference));
    for (size_t o = 0; o < MODEL_NUM_OUTPUTS; ++o) {
      ember::rt::TensorView view;
      ember::rt::TensorInfo info;
      g_executor.output(o, &view);
      g_program.output_info(o, &info);
      const uint8_t* got = static_cast<const uint8_t*>(view.data);
      const uint8_t* want = ember_test_expected[c * MODEL_NUM_OUTPUTS + o];
      const uint32_t size = element_bytes(info.dtype);
      uint32_t mismatches = 0;
      for (uint32_t e = 0; e < info.bytes / size; ++e)
        if (memcmp(got + e * size, want + e * size, size) != 0) ++mismatches;
      total_mismatches += mismatches;
      board_printf("ember-fw: output case=%lu index=%lu mismatches=%lu elements=%lu\n",
                   (unsigned long)c, (unsigned long)o, (unsigned long)mismatches,
                   (unsigned long)(info.bytes / size));
    }
  }
  board_printf("ember-fw: ram runtime_state=%lu stack=%lu stack_size=%lu\n",
               (unsigned long)(sizeof(g_program) + sizeof(g_executor) + sizeof(g_regions)),
               (unsigned long)board_stack_used(), (unsigned long)board_stack_size());
  board_printf("ember-fw: result %s\n", total_mismatches == 0 ? "pass" : "mismatch");
  return total_mismatches == 0 ? kBoardExitPass : kBoardExitMismatch;
}
