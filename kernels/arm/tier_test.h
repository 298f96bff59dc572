//===- tier_test.h - Randomized built-tier vs portable kernel tests -*- C++ -*-===//
//
// Each test_<kernel> draws `cases` random ops (odd channel counts, strides, padding on every
// side, dilation, zero points at -128 and 127, extreme multipliers and shifts, wrapping
// biases), runs the portable kernel and the built tier's kernel (through its check and run
// adapters, with the folded bias the compiler would add) and counts the cases whose output
// bytes differ. Freestanding (static buffers, no heap, no stdio), so the same source runs in
// the host's GoogleTest (tier_test_gtest.cc, scalar tier) and in the QEMU kernel-test firmware
// on each tier's core (targets/kernel_tests/, tests/test_kernels_qemu.py).

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels::arm::testing {

/// xorshift32: deterministic on every core.
struct Rng {
  uint32_t state;
  uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  /// Uniform in [lo, hi].
  int32_t range(int32_t lo, int32_t hi) {
    return lo + static_cast<int32_t>(next() % static_cast<uint32_t>(hi - lo + 1));
  }
  bool one_in(uint32_t n) { return next() % n == 0; }
};

struct Outcome {
  int32_t cases = 0;
  int32_t mismatches = 0;     // cases whose output differs
  int32_t rejected = 0;       // cases the optimized check refused (a bug: they are valid)
  int32_t first_bad = -1;     // index of the first failing case
  int32_t optimized = 0;      // cases that ran an optimized path (not the portable fallback)
};

Outcome test_requantize(uint32_t seed, int32_t cases);
Outcome test_conv2d_s8(uint32_t seed, int32_t cases);
Outcome test_depthwise_conv2d_s8(uint32_t seed, int32_t cases);
Outcome test_fully_connected_s8(uint32_t seed, int32_t cases);
Outcome test_add_s8(uint32_t seed, int32_t cases);
Outcome test_mul_s8(uint32_t seed, int32_t cases);
Outcome test_max_pool2d_s8(uint32_t seed, int32_t cases);
Outcome test_requantize_s8(uint32_t seed, int32_t cases);
Outcome test_lut_s8(uint32_t seed, int32_t cases);
Outcome test_avg_pool2d_s8(uint32_t seed, int32_t cases);
Outcome test_softmax_s8(uint32_t seed, int32_t cases);
Outcome test_batch_matmul_s8(uint32_t seed, int32_t cases);

struct TierTest {
  const char* name;
  Outcome (*run)(uint32_t seed, int32_t cases);
};

inline constexpr TierTest kTierTests[] = {
    {"requantize", &test_requantize},
    {"conv2d_s8", &test_conv2d_s8},
    {"depthwise_conv2d_s8", &test_depthwise_conv2d_s8},
    {"fully_connected_s8", &test_fully_connected_s8},
    {"add_s8", &test_add_s8},
    {"mul_s8", &test_mul_s8},
    {"max_pool2d_s8", &test_max_pool2d_s8},
    {"requantize_s8", &test_requantize_s8},
    {"lut_s8", &test_lut_s8},
    {"avg_pool2d_s8", &test_avg_pool2d_s8},
    {"softmax_s8", &test_softmax_s8},
    {"batch_matmul_s8", &test_batch_matmul_s8},
};

/// A kernel operand over `data` (test buffers; `constant` marks weights and parameters).
rt::TensorView make_view(void* data, rt::DType dtype, int32_t rank, const int32_t* dims, bool constant);

/// The six inputs of a conv or depthwise op over test buffers: input, filter, bias (absent
/// when null), multiplier, shift and folded bias, the last four of `channels` values.
void conv_inputs(rt::TensorView (&ins)[6], int8_t* input, const int32_t* in_dims, int8_t* filter,
                 const int32_t* filter_dims, int32_t* bias, int32_t* multiplier, int32_t* shift, int32_t* folded,
                 int32_t channels);

// Shared random parameter helpers (tier_test_util.cc).
int32_t random_zero_point(Rng& r);
void random_requant(Rng& r, int32_t* multiplier, int32_t* shift, int32_t n);
void random_act(Rng& r, int32_t* act_min, int32_t* act_max);
/// The zoo's layers' quantization, which the DSP kernels' fused loops take (FastOut): the whole
/// int8 range, shifts in [-4, -2] and a multiplier of 2^30 in a third of the channels, so ties
/// (their out-of-line fix-up) are frequent.
void zoo_requant(Rng& r, int32_t* act_min, int32_t* act_max, int32_t* multiplier, int32_t* shift, int32_t n);
void random_s8(Rng& r, int8_t* data, int32_t n);
void random_bias(Rng& r, int32_t* bias, int32_t n);
/// Shapes of a broadcasting binary op: the same shapes half the time, else numpy broadcasting
/// (1s on any axis, the innermost included, or a lower rank); at most max_elements outputs.
struct BroadcastCase {
  int32_t rank, out[4], a_rank, a[4], b_rank, b[4];
};
BroadcastCase random_broadcast(Rng& r, int32_t max_elements);
int32_t element_count(const int32_t* dims, int32_t rank);

using KernelFn = rt::Status (*)(const rt::OpContext&);

/// Counts case `index` in `o`: `got` (the output of ctx, n bytes followed by 16 guard bytes
/// of 0x55) against `want`, after the optimized check and run. `refused` marks a case the
/// portable check refused (a bad case: counted as a mismatch).
void compare_optimized(Outcome& o, int32_t index, bool refused, KernelFn check, KernelFn run, const rt::OpContext& ctx,
                       int8_t* got, const int8_t* want, int32_t n);

/// One case of a kernel whose output has input 0's shape (rank, dims), ins[0] over `in`: the
/// portable kernel's output into want, then, in place over a copy of `in` in one case in
/// `in_place_one_in` (as the compiler plans it), the optimized one's into got (16 guard bytes
/// after), counted by compare_optimized.
void compare_same_shape(Outcome& o, int32_t index, Rng& r, int32_t in_place_one_in, KernelFn check_portable,
                        KernelFn run_portable, KernelFn check_optimized, KernelFn run_optimized, rt::TensorView* ins,
                        size_t n_ins, const int32_t* ints, size_t n_ints, int32_t rank, const int32_t* dims,
                        const int8_t* in, int8_t* got, int8_t* want);

/// Inputs the compiler adds for the optimized kernel, from the op's parameters: appended to
/// `extra`, their count returned (0: none for this case).
using AddedInputs = size_t (*)(Rng&, const int32_t* ints, rt::TensorView* extra);

/// Draws `cases` broadcast cases with random int8 operands; for each, `draw_ints` fills the
/// kernel's n_ints parameters, then the portable and the optimized kernel (given what `added`
/// adds, if not null) run (a third of the same-shape cases in place, the output over operand a)
/// and their bytes, plus 16 guard bytes, are compared.
Outcome test_binary_s8(uint32_t seed, int32_t cases, size_t n_ints, void (*draw_ints)(Rng&, int32_t*),
                       KernelFn check_portable, KernelFn run_portable, KernelFn check_optimized,
                       KernelFn run_optimized, AddedInputs added = nullptr);

/// A 2-D pool (NHWC, batches 1-2, channels 1..40 around the vector widths): windows 1..5
/// (non-square), strides 1..3, dilation 1..2 when `dilated`, padding on every side but below
/// the window as pools require; a tenth are global pools over up to 20 x 20 (more than 256
/// taps). At most max_in input and max_out output bytes.
struct PoolCase {
  int32_t in_dims[4], out_dims[4];
  int32_t window[8];  // kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w
};
PoolCase random_pool(Rng& r, bool dilated, int32_t max_in, int32_t max_out);

/// Pad before/after and output size for one window axis (a valid check_window_axis case).
void random_axis(Rng& r, int32_t in, int32_t kernel, int32_t dilation, int32_t stride, int32_t* pad,
                 int32_t* out);

}  // namespace ember::kernels::arm::testing
