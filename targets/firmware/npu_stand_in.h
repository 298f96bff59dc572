/* npu_stand_in.h - What the test firmware's NPU stand-in expects of each NPU call. */
#ifndef EMBER_TARGETS_FIRMWARE_NPU_STAND_IN_H_
#define EMBER_TARGETS_FIRMWARE_NPU_STAND_IN_H_

#include <stdint.h>

/* One ember_npu_invoke call as the host saw it (firmware_data.c, ember.firmware): the scratch's
 * size, each input's offset and bytes (in place when the call comes), each output's offset and
 * the bytes the host's stand-in for the NPU (the TOSA reference model) computed. */
typedef struct ember_npu_call {
  uint32_t scratch_bytes;
  uint32_t num_inputs, num_outputs;
  const int32_t* input_offsets;
  const int32_t* output_offsets;
  const uint8_t* const* inputs;
  const uint32_t* input_bytes;
  const uint8_t* const* outputs;
  const uint32_t* output_bytes;
} ember_npu_call;

extern const ember_npu_call ember_npu_calls[];
extern const uint32_t ember_npu_num_calls;

#endif
