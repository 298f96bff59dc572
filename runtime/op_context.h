//===- op_context.h - What a kernel sees of one op ------------------------===//
//
// The executor builds an OpContext per op from the verified program: views of the operand
// tensors (data pointers already bound to the arena or the constant data) and the op's integer
// and float parameters. Kernels read nothing else, so they can be tested without a program.

#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ember/runtime/status.h"

namespace ember::rt {

enum class DType : uint8_t { Int8 = 0, Int32 = 1, Float32 = 2 };

inline constexpr size_t kMaxRank = 5;

/// A tensor as a kernel sees it. `data` is nullptr for an absent optional operand.
struct TensorView {
  void* data = nullptr;
  int32_t dims[kMaxRank] = {};
  uint8_t rank = 0;
  DType dtype = DType::Int8;
  /// The data is a constant in the program file: bound (readable) already when a kernel's
  /// check runs, so a check may validate values the run will use as parameters (per-channel
  /// shifts, biases). Arena data is never readable in a check.
  bool constant = false;

  size_t num_elements() const {
    size_t n = 1;
    for (uint8_t d = 0; d < rank; ++d) n *= static_cast<size_t>(dims[d]);
    return n;
  }
  int32_t dim(int d) const { return dims[d < 0 ? d + rank : d]; }
  template <typename T>
  T* as() const { return static_cast<T*>(data); }
};

/// Room for N operand views, left uninitialised: Program::bind_op fills the first num_inputs
/// and num_outputs of them, all a kernel may read (the verifier matched those counts to the
/// kernel's signature). Zeroing every view per op took two memset calls, 4% of ad's inference
/// on the cortex-m55. Under AddressSanitizer (the fuzz builds) the room is filled with 0xA5
/// bytes instead, so a view read past the counts points nowhere and faults there.
template <size_t N>
union OperandViews {
  OperandViews() {
#if defined(__SANITIZE_ADDRESS__)
    memset(static_cast<void*>(at), 0xA5, sizeof at);
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    memset(static_cast<void*>(at), 0xA5, sizeof at);
#endif
#endif
  }
  TensorView at[N];
};

/// The operands and parameters of one op. Views and arrays are owned by the executor and
/// valid for the duration of one kernel call.
struct OpContext {
  const TensorView* inputs;
  size_t num_inputs;
  const TensorView* outputs;
  size_t num_outputs;
  const int32_t* ints;
  size_t num_ints;
  const float* floats;
  size_t num_floats;
  /// Write the output rows last-first (the program's Op.rows_bottom_up): the planner placed the
  /// output over the upper end of an input the op consumes. The kernels that honour it are
  /// listed in kernels/kernels.def; no verified program sets it for any other.
  bool rows_bottom_up = false;

  const TensorView& in(size_t i) const { return inputs[i]; }
  const TensorView& out(size_t i) const { return outputs[i]; }
  bool has_input(size_t i) const { return i < num_inputs && inputs[i].data != nullptr; }
};

using KernelFn = Status (*)(const OpContext&);

}  // namespace ember::rt
