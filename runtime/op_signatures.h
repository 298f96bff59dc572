//===- op_signatures.h - Operand counts of every kernel, from kernels.def -===//
//
// The verifier checks each op's operand and parameter counts against kernels/kernels.def
// before any kernel sees the op, so a kernel's own check can index its operands freely. The
// table is a constexpr array expanded from the .def list (data only: the runtime still links no
// kernel code). It also fixes the executor's per-op stack arrays: kMaxOpInputs and
// kMaxOpOutputs bound every op a verified program can hold.

#pragma once

#include <stddef.h>
#include <stdint.h>

namespace ember::rt {

/// Counts of one kernel; -1 means variadic (see kMaxVariadicInputs for inputs; a variadic
/// `ints` count is left to the kernel's check).
struct OpSignature {
  int8_t inputs;
  int8_t outputs;
  int8_t ints;
  int8_t floats;
};

namespace internal {
// A signature in 16 bits, each count + 1 in 4 bits (counts -1 .. 14): the table is part of the
// verifier in every firmware, 92 bytes this way against 184 as four int8 per kernel.
constexpr uint16_t pack_signature(int inputs, int outputs, int ints, int floats) {
  return static_cast<uint16_t>((inputs + 1) | (outputs + 1) << 4 | (ints + 1) << 8 | (floats + 1) << 12);
}
constexpr bool fits_signature(int n) { return n >= -1 && n <= 14; }
}  // namespace internal

inline constexpr uint16_t kOpSignatures[] = {
#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized) \
  internal::pack_signature(inputs, outputs, ints, floats),
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL
};

#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized)                              \
  static_assert(internal::fits_signature(inputs) && internal::fits_signature(outputs) &&                    \
                    internal::fits_signature(ints) && internal::fits_signature(floats),                     \
                "kernels.def: " #name "'s counts do not fit kOpSignatures");
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL

/// The counts of kernel `id` (< kNumKnownKernels).
constexpr OpSignature op_signature(size_t id) {
  const uint16_t v = kOpSignatures[id];
  return OpSignature{static_cast<int8_t>((v & 15) - 1), static_cast<int8_t>((v >> 4 & 15) - 1),
                     static_cast<int8_t>((v >> 8 & 15) - 1), static_cast<int8_t>((v >> 12) - 1)};
}

/// Kernel ids by name, in kernels.def order (the id stored in program files).
enum class KernelId : uint16_t {
#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized) name,
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL
};

/// How the planner may place a kernel's output over an input that dies at the op (kernels.def
/// states each rule; the verifier, program_verifier.cc, and the compiler, compiler/in_place.cc,
/// both enforce it): none, elementwise over input 0 (Unary) or input 0 or 1 (Binary), or
/// row-streaming (conv2d_s8 with blocks of pixels, depthwise, pools), or an NPU partition's
/// scratch over its inputs (from input 3 on: Vela's input places inside it).
enum class InPlaceRule : uint8_t { None, Unary, Binary, ConvRows, DepthwiseRows, PoolRows, Npu };

inline constexpr InPlaceRule kInPlaceRules[] = {
#define EMBER_KERNEL(name, inputs, outputs, ints, floats, in_place, optimized) InPlaceRule::in_place,
#include "ember/kernels/kernels.def"
#undef EMBER_KERNEL
};

/// Whether input `index` of kernel `id` is optional, i.e. may be -1 (absent) in a program file:
/// the bias of the conv and linear kernels and their folded bias (kernels.def). Every other
/// operand is required: kernels read it unconditionally, so the verifier rejects -1 there
/// (BadIndex) before any kernel sees the op.
constexpr bool input_may_be_absent(KernelId id, size_t index) {
  switch (id) {
    case KernelId::conv2d_s8:
    case KernelId::depthwise_conv2d_s8:
    case KernelId::fully_connected_s8:
      return index == 2 || index == 5;
    case KernelId::conv2d_f32:
    case KernelId::depthwise_conv2d_f32:
    case KernelId::fully_connected_f32:
    case KernelId::ethos_u:  // its TOSA graph
      return index == 2;
    default:
      return false;
  }
}

/// Kernel ids below this are known to this runtime; others are Status::UnknownKind.
inline constexpr size_t kNumKnownKernels = sizeof(kOpSignatures) / sizeof(kOpSignatures[0]);

/// A variadic input list holds 1..kMaxVariadicInputs tensors.
inline constexpr size_t kMaxVariadicInputs = 16;
/// A variadic output list holds 1..kMaxVariadicOutputs tensors (an output and a scratch).
inline constexpr size_t kMaxVariadicOutputs = 2;

namespace internal {
constexpr size_t max_count(bool inputs) {
  size_t m = inputs ? kMaxVariadicInputs : kMaxVariadicOutputs;
  for (size_t id = 0; id < sizeof(kOpSignatures) / sizeof(kOpSignatures[0]); ++id) {
    const int8_t n = inputs ? op_signature(id).inputs : op_signature(id).outputs;
    if (n > 0 && static_cast<size_t>(n) > m) m = static_cast<size_t>(n);
  }
  return m;
}
}  // namespace internal

/// Upper bounds on the operands of any op a verified program holds.
inline constexpr size_t kMaxOpInputs = internal::max_count(true);
inline constexpr size_t kMaxOpOutputs = internal::max_count(false);

static_assert(kNumKnownKernels < 0xFFFF, "kernel ids are uint16 in the file");
static_assert(kMaxOpOutputs >= 1, "every kernel writes an output");

}  // namespace ember::rt
