//===- ethos_u.cc - An Ethos-U NPU partition ------------------------------===//

#include "ember/kernels/portable/ethos_u.h"

#include <string.h>

#include "ember/kernels/portable/op_check.h"
#include "ember/runtime/ember.h"
#include "ember/runtime/log.h"  // EMBER_WEAK

extern "C" EMBER_WEAK ember_status ember_npu_invoke(const ember_npu_job* job) {
  (void)job;
  return EMBER_STATUS_NpuUnavailable;
}

namespace ember::kernels {
namespace {

constexpr uint32_t kFourcc = 0x31504F43;  // "COP1", little-endian
enum : uint32_t { kOptimizerConfig = 1, kCommandStream = 2, kNop = 5 };
constexpr size_t kFixedInputs = 3;  // command stream, weights, TOSA graph

uint32_t word(const uint8_t* p, size_t i) {
  uint32_t w;
  memcpy(&w, p + 4 * i, 4);
  return w;
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// The container's configuration word, after checking its framing (ethos_u.h); false when it is
// malformed.
bool parse_container(const TensorView& cmd, uint32_t* config) {
  const size_t bytes = cmd.num_elements();
  const uint8_t* p = cmd.as<const uint8_t>();
  if (bytes < 4 || bytes % 4 != 0 || !aligned16(p) || word(p, 0) != kFourcc) return false;
  const size_t n = bytes / 4;
  bool configured = false, streamed = false;
  for (size_t i = 1; i < n;) {
    const uint32_t w = word(p, i);
    switch (w & 0xFFu) {
      case kOptimizerConfig:
        if (configured || streamed || n - i < 3) return false;
        *config = word(p, i + 1);
        configured = true;
        i += 3;
        break;
      case kCommandStream: {
        const size_t length = (w >> 8 & 0xFFu) << 16 | w >> 16;
        if (!configured || streamed || length == 0 || length > n - i - 1 || !aligned16(p + 4 * (i + 1)))
          return false;
        streamed = true;
        i += 1 + length;
        break;
      }
      case kNop: ++i; break;
      default: return false;
    }
  }
  return streamed;
}

bool is_bytes(const TensorView& t) { return is_tensor(t, DType::Int8, 1) && t.constant; }

}  // namespace

Status check_ethos_u(const OpContext& c) {
  EMBER_KCHECK(has_counts(c, -1, -1, -1, 0) && c.num_inputs > kFixedInputs && c.num_outputs >= 1 &&
                   c.num_outputs <= 2 && c.num_ints > 1 + c.num_inputs - kFixedInputs,
               BadOpSignature);
  const TensorView& weights = c.in(1);
  EMBER_KCHECK(is_bytes(c.in(0)) && is_bytes(weights) && (is_absent(c.in(2)) || is_bytes(c.in(2))), BadOpSignature);
  EMBER_KCHECK(weights.dims[0] == 0 || aligned16(weights.data), NpuPayload);
  uint32_t config = 0;
  EMBER_KCHECK(parse_container(c.in(0), &config), NpuPayload);
  EMBER_KCHECK(npu_code(static_cast<int>(config >> 28), static_cast<int>(config & 15u)) == c.ints[0], NpuConfig);
  const TensorView& scratch = c.out(0);
  EMBER_KCHECK(is_tensor(scratch, DType::Int8, 1) && (c.num_outputs == 1 || is_tensor(c.out(1), DType::Int8, 1)),
               BadOpSignature);
  // Each offset inside the scratch; an input's bytes too (it is moved there when elsewhere).
  const int64_t size = scratch.dims[0];
  for (size_t i = 1; i < c.num_ints; ++i) {
    const size_t input = kFixedInputs + i - 1;
    const int64_t end = input < c.num_inputs ? int64_t{c.ints[i]} + static_cast<int64_t>(c.in(input).num_elements())
                                             : int64_t{c.ints[i]} + 1;
    EMBER_KCHECK(c.ints[i] >= 0 && end <= size, NpuPayload);
    if (input < c.num_inputs) EMBER_KCHECK(is_tensor(c.in(input), DType::Int8) && !c.in(input).constant, BadOpSignature);
  }
  return Status::Ok;
}

Status run_ethos_u(const OpContext& c) {
  uint8_t* scratch = c.out(0).as<uint8_t>();
  uint8_t* fast = c.num_outputs > 1 ? c.out(1).as<uint8_t>() : nullptr;
  if (!aligned16(scratch) || !aligned16(fast)) return Status::Misaligned;
  const size_t inputs = c.num_inputs - kFixedInputs;
  for (size_t i = 0; i < inputs; ++i) {
    const TensorView& in = c.in(kFixedInputs + i);
    uint8_t* place = scratch + c.ints[1 + i];
    if (in.data != place) memmove(place, in.data, in.num_elements());
  }
  const TensorView& cmd = c.in(0);
  const TensorView& weights = c.in(1);
  const uint64_t base[3] = {reinterpret_cast<uintptr_t>(weights.data), reinterpret_cast<uintptr_t>(scratch),
                            reinterpret_cast<uintptr_t>(fast)};
  const size_t sizes[3] = {weights.num_elements(), c.out(0).num_elements(), fast ? c.out(1).num_elements() : 0};
  const ember_npu_job job{cmd.data,           cmd.num_elements(),
                          base,               sizes,
                          3,                  c.in(2).data,
                          c.in(2).data ? c.in(2).num_elements() : 0,
                          c.ints + 1,         inputs,
                          c.ints + 1 + inputs, c.num_ints - 1 - inputs};
  switch (ember_npu_invoke(&job)) {
    case EMBER_STATUS_Ok: return Status::Ok;
    case EMBER_STATUS_NpuUnavailable: return Status::NpuUnavailable;
    default: return Status::NpuFailed;
  }
}

}  // namespace ember::kernels
