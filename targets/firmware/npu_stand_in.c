/* npu_stand_in.c - The test firmware's ember_npu_invoke where no NPU is (QEMU's boards have none).
 *
 * Everything up to the NPU's interface is the runtime's and is checked here, call by call,
 * against what the host runtime passed for the same inputs: the command stream (16-byte aligned,
 * the driver's "COP1" container), three base addresses each 16-byte aligned, the scratch's size,
 * the inputs' and outputs' offsets, and each input's bytes in place in the scratch. The NPU's
 * arithmetic is not: the outputs written are the host's, computed by the TOSA reference model.
 * A failed check prints one line and returns EMBER_STATUS_NpuFailed, which fails the run. */
#include <string.h>

#include "ember/runtime/ember.h"
#include "ember/targets/boards/board.h"
#include "npu_stand_in.h"

static uint32_t g_calls;

static ember_status fail(uint32_t call, const char* what) {
  board_printf("ember-npu: call %lu: %s\n", (unsigned long)call, what);
  return EMBER_STATUS_NpuFailed;
}

ember_status ember_npu_invoke(const ember_npu_job* job) {
  const uint32_t call = g_calls++;
  if (call >= ember_npu_num_calls) return fail(call, "more calls than the host made");
  const ember_npu_call* c = &ember_npu_calls[call];
  if (((uintptr_t)job->command_stream & 15u) != 0 || job->command_stream_size < 4 ||
      memcmp(job->command_stream, "COP1", 4) != 0)
    return fail(call, "command stream not a 16-byte aligned COP1 container");
  if (job->num_base_addrs != 3) return fail(call, "not three base addresses");
  for (int i = 0; i < 3; ++i)
    if ((job->base_addrs[i] & 15u) != 0) return fail(call, "a base address not 16-byte aligned");
  if (job->base_addr_sizes[1] != c->scratch_bytes) return fail(call, "scratch size differs");
  if (job->num_inputs != c->num_inputs || job->num_outputs != c->num_outputs)
    return fail(call, "input or output count differs");
  uint8_t* scratch = (uint8_t*)(uintptr_t)job->base_addrs[1];
  for (uint32_t i = 0; i < c->num_inputs; ++i) {
    if (job->input_offsets[i] != c->input_offsets[i]) return fail(call, "input offset differs");
    if (memcmp(scratch + c->input_offsets[i], c->inputs[i], c->input_bytes[i]) != 0)
      return fail(call, "input bytes in the scratch differ from the host's");
  }
  for (uint32_t o = 0; o < c->num_outputs; ++o) {
    if (job->output_offsets[o] != c->output_offsets[o]) return fail(call, "output offset differs");
    memcpy(scratch + c->output_offsets[o], c->outputs[o], c->output_bytes[o]);
  }
  return EMBER_STATUS_Ok;
}
