//===- main.cc - An application that classifies one input with Ember -----===//
//
// The whole integration: the program file and kernel table from `ember export-c`, one static
// arena per memory region sized by the generated constants, load, set the input, run, read the
// output. No heap; every call returns a Status. The input is a fixed pattern (a real product
// fills it from its microphone front end); the top class goes to the console.

#include <stdint.h>

#include "model.h"
#include "runtime/executor.h"
#include "runtime/program.h"
#include "targets/boards/board.h"

namespace {

using ember::rt::Status;

// The arena: exactly the bytes the compiler planned, 16-byte aligned as the runtime requires.
alignas(16) uint8_t g_arena[MODEL_REGION_0_BYTES];
ember::rt::Program g_program;
ember::rt::Executor g_executor;

int fail(const char* step, Status status) {
  board_printf("app: %s failed: %s\n", step, ember::rt::to_string(status));
  return kBoardExitRuntimeError;
}

}  // namespace

int main() {
  Status status = ember::rt::Program::load({model_program, MODEL_PROGRAM_BYTES}, model_kernel_table, &g_program);
  if (status != Status::Ok) return fail("load", status);
  ember::rt::Span<uint8_t> regions[] = {{g_arena, sizeof g_arena}};
  status = g_executor.init(g_program, {regions, 1});
  if (status != Status::Ok) return fail("init", status);

  ember::rt::TensorView input;
  status = g_executor.input(0, &input);  // zero-copy: write the input where the model reads it
  if (status != Status::Ok) return fail("input", status);
  int8_t* x = input.as<int8_t>();
  for (uint32_t i = 0; i < MODEL_INPUT_0_BYTES; ++i) x[i] = static_cast<int8_t>((i * 37) % 256 - 128);

  status = g_executor.run();
  if (status != Status::Ok) return fail("run", status);

  ember::rt::TensorView output;
  g_executor.output(0, &output);
  const int8_t* y = output.as<int8_t>();
  uint32_t top = 0;
  for (uint32_t i = 1; i < MODEL_OUTPUT_0_BYTES; ++i)
    if (y[i] > y[top]) top = i;
  board_printf("app: top class %lu score %d\n", (unsigned long)top, y[top]);
  return kBoardExitPass;
}
