//===- main.cc - An application that classifies one input with Ember -----===//
//
// The whole integration: the program file and kernel table from `ember export-c`, one static
// arena per memory region sized by the generated constants, load, quantize the float features
// into the input, run, read and dequantize the output. No heap; every call returns a Status.
// The features are a fixed pattern (a real product computes them from its microphone); the top
// class and its score go to the console.

#include <math.h>
#include <stdint.h>

#include "model.h"
#include "ember/runtime/executor.h"
#include "ember/runtime/program.h"
#include "ember/targets/boards/board.h"

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
  // int8 = round(feature / scale) + zero point, clamped (as Ember's quantize: times 1 / scale,
  // rounded half to even by lrintf in the default rounding mode).
  int8_t* x = input.as<int8_t>();
  const float inv_scale = 1.0f / MODEL_INPUT_0_SCALE;
  for (uint32_t i = 0; i < MODEL_INPUT_0_BYTES; ++i) {
    const float feature = static_cast<float>(static_cast<int32_t>((i * 37) % 256) - 128) * 0.05f;
    const long q = lrintf(feature * inv_scale) + MODEL_INPUT_0_ZERO_POINT;
    x[i] = static_cast<int8_t>(q < -128 ? -128 : (q > 127 ? 127 : q));
  }

  status = g_executor.run();
  if (status != Status::Ok) return fail("run", status);

  ember::rt::TensorView output;
  g_executor.output(0, &output);
  const int8_t* y = output.as<int8_t>();
  uint32_t top = 0;
  for (uint32_t i = 1; i < MODEL_OUTPUT_0_BYTES; ++i)
    if (y[i] > y[top]) top = i;
  // real = scale * (q - zero point): the softmax probability, printed in thousandths.
  const float score = MODEL_OUTPUT_0_SCALE * static_cast<float>(y[top] - MODEL_OUTPUT_0_ZERO_POINT);
  board_printf("app: top class %lu score %ld/1000\n", (unsigned long)top, lrintf(score * 1000.0f));
  return kBoardExitPass;
}
