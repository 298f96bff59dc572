//===- test_util.h - Helpers shared by the kernel tests ---------*- C++ -*-===//
//
// Test-only (host): builds OpContexts from vectors, random data, and independent reference
// computations in double (explicitly padded inputs, no shared code with the kernels) that the
// kernels are compared against.

#pragma once

#include <stdint.h>

#include <cmath>
#include <initializer_list>
#include <random>
#include <vector>

#include "ember/kernels/portable/quantize_multiplier.h"
#include "ember/kernels/portable/requantize.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels::testing {

using rt::DType;
using rt::Status;
using rt::TensorView;

inline TensorView view(const void* data, DType dtype, const std::vector<int32_t>& dims) {
  TensorView t;
  t.data = const_cast<void*>(data);
  t.dtype = dtype;
  t.rank = static_cast<uint8_t>(dims.size());
  for (size_t i = 0; i < dims.size() && i < rt::kMaxRank; ++i) t.dims[i] = dims[i];
  return t;
}

/// Collects an op's operands and parameters; ctx() views them (valid while the builder lives).
struct OpBuilder {
  std::vector<TensorView> ins, outs;
  std::vector<int32_t> ints;
  std::vector<float> floats;

  /// Inputs count as constants of the program file (TensorView::constant), as the weights,
  /// biases and per-channel vectors of a compiled program are.
  OpBuilder& in(const void* data, DType dtype, const std::vector<int32_t>& dims) {
    ins.push_back(view(data, dtype, dims));
    ins.back().constant = true;
    return *this;
  }
  OpBuilder& absent() {
    ins.push_back(TensorView{});
    return *this;
  }
  OpBuilder& out(void* data, DType dtype, const std::vector<int32_t>& dims) {
    outs.push_back(view(data, dtype, dims));
    return *this;
  }
  rt::OpContext ctx() const {
    return rt::OpContext{ins.data(),  ins.size(),  outs.data(),   outs.size(),
                         ints.data(), ints.size(), floats.data(), floats.size()};
  }
  /// The same op with its activation data cleared, as a check sees it at load time: only
  /// `constant` inputs stay readable.
  OpBuilder without_data() const {
    OpBuilder b = *this;
    for (auto& t : b.ins)
      if (!t.constant) t.data = nullptr;
    for (auto& t : b.outs) t.data = nullptr;
    return b;
  }
};

inline std::vector<int8_t> random_s8(std::mt19937& rng, size_t n, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

inline std::vector<float> random_f32(std::mt19937& rng, size_t n, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

inline int rand_int(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

/// A zero point drawn to hit the extremes often.
inline int32_t random_zp(std::mt19937& rng) {
  switch (rand_int(rng, 0, 3)) {
    case 0: return -128;
    case 1: return 127;
    default: return rand_int(rng, -128, 127);
  }
}

/// Geometry of one convolution/pool axis for the references: padded extent and output size.
struct Axis {
  int in, k, stride, pad, dil, out;
};

/// Output size PyTorch gives for symmetric-ish padding pad_before/pad_after (floor mode).
inline int out_size(int in, int k, int stride, int pad_before, int pad_after, int dil) {
  const int e = dil * (k - 1) + 1;
  const int span = in + pad_before + pad_after - e;
  return span < 0 ? 0 : span / stride + 1;
}

/// PyTorch's pooling output size (pooling_output_shape), floor or ceil mode.
inline int torch_pool_out(int in, int k, int s, int p, int d, bool ceil_mode) {
  const int num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  if (num < 0) return 0;  // PyTorch: output size too small
  int out = num / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

/// Reference convolution in double over NHWC input (zero point already removed), explicitly
/// zero-padded. filter OHWI (groups = C / filter_c) or, when depthwise, 1HWC. Returns NHWC.
inline std::vector<double> ref_conv(const std::vector<double>& in, int n, const Axis& ay,
                                    const Axis& ax, int c, const std::vector<double>& w,
                                    int o_count, int filter_c, bool depthwise,
                                    const std::vector<double>* bias) {
  const int ph = (ay.out - 1) * ay.stride + ay.dil * (ay.k - 1) + 1;
  const int pw = (ax.out - 1) * ax.stride + ax.dil * (ax.k - 1) + 1;
  std::vector<double> padded(static_cast<size_t>(n) * ph * pw * c, 0.0);
  for (int b = 0; b < n; ++b)
    for (int y = 0; y < ay.in; ++y)
      for (int x = 0; x < ax.in; ++x) {
        const int py = y + ay.pad, px = x + ax.pad;
        if (py >= ph || px >= pw) continue;  // rows PyTorch's floor mode never reads
        for (int ch = 0; ch < c; ++ch)
          padded[((static_cast<size_t>(b) * ph + py) * pw + px) * c + ch] =
              in[((static_cast<size_t>(b) * ay.in + y) * ax.in + x) * c + ch];
      }
  std::vector<double> out(static_cast<size_t>(n) * ay.out * ax.out * o_count);
  const int groups = depthwise ? c : c / filter_c;
  const int per_group_out = o_count / groups;
  const int per_group_in = c / groups;
  for (int b = 0; b < n; ++b)
    for (int y = 0; y < ay.out; ++y)
      for (int x = 0; x < ax.out; ++x)
        for (int o = 0; o < o_count; ++o) {
          double acc = bias ? (*bias)[o] : 0.0;
          const int g = o / per_group_out;
          for (int ky = 0; ky < ay.k; ++ky)
            for (int kx = 0; kx < ax.k; ++kx)
              for (int i = 0; i < per_group_in; ++i) {
                const int py = y * ay.stride + ky * ay.dil, px = x * ax.stride + kx * ax.dil;
                const double v = padded[((static_cast<size_t>(b) * ph + py) * pw + px) * c +
                                        g * per_group_in + i];
                const double wv = depthwise
                                      ? w[(static_cast<size_t>(ky) * ax.k + kx) * o_count + o]
                                      : w[((static_cast<size_t>(o) * ay.k + ky) * ax.k + kx) *
                                              filter_c + i];
                acc += v * wv;
              }
          out[((static_cast<size_t>(b) * ay.out + y) * ax.out + x) * o_count + o] = acc;
        }
  return out;
}

/// Per-channel multipliers that map accumulators of magnitude `max_abs` to about +-100
/// (times a random factor), so outputs spread over the int8 range; also returns the reals.
inline void pick_multipliers(std::mt19937& rng, double max_abs, int count,
                             std::vector<int32_t>* mult, std::vector<int32_t>* shift,
                             std::vector<double>* real) {
  std::uniform_real_distribution<double> f(0.3, 2.0);
  mult->resize(count);
  shift->resize(count);
  real->resize(count);
  for (int o = 0; o < count; ++o) {
    double r = 100.0 / (max_abs < 1 ? 1 : max_abs) * f(rng);
    int s = 0;
    quantize_multiplier(r, &(*mult)[o], &s);
    (*shift)[o] = s;
    (*real)[o] = r;
  }
}

/// The requantization of the numeric contract computed from an exact accumulator.
inline int8_t ref_requantize(int64_t acc, int32_t mult, int shift, int32_t zp, int32_t lo,
                             int32_t hi) {
  return requantize_to_s8(static_cast<int32_t>(acc), mult, shift, zp, lo, hi);
}

/// The same from the real multiplier in double, rounded once: the kernel may differ by 1.
inline int ref_requantize_real(double acc, double real, int32_t zp, int32_t lo, int32_t hi) {
  const long v = std::lround(acc * real) + zp;
  return static_cast<int>(v < lo ? lo : (v > hi ? hi : v));
}

}  // namespace ember::kernels::testing
