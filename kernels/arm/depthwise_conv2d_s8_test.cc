//===- depthwise_conv2d_s8_test.cc - Optimized depthwise vs portable, random cases ===//
//
// 3x3 (the specialisation) and other windows, strides 1-3, padding on every side, dilation 2,
// odd channel counts (vector tails), maps up to 64 pixels wide (the DSP kernel's bands), and
// depth multipliers 2 and 3 (the kernels' rows over expanded window rows).
// Weights: [-127, 127] for every case the MVE kernel runs (a filter holding -128 must be
// refused there), the full int8 range in half the other cases.

#include "ember/kernels/arm/depthwise_conv2d_s8.h"

#include "ember/kernels/arm/fold.h"
#include "ember/kernels/arm/in_place_test.h"
#include "ember/kernels/arm/kernels.h"
#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/depthwise_conv2d_s8.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxIn = 2 * 14 * 14 * 40, kMaxFilter = 5 * 5 * 80, kMaxOut = 2 * 14 * 14 * 80;
constexpr int32_t kMaxC = 80;
int8_t g_in[kMaxIn], g_filter[kMaxFilter], g_want[kMaxOut], g_got[kMaxOut + 16];
int32_t g_bias[kMaxC], g_folded[kMaxC], g_mult[kMaxC], g_shift[kMaxC];
int8_t g_arena[(kMaxIn + kMaxOut) / 2 + 1];  // in-place runs (batch 1): input and output overlap
// 16-byte aligned, as planned scratch is: the expanded rows of a depth multiplier above 1 (at
// most 5 rows of 64 pixels of 24 channels), the strip, then room for a start up to 15 bytes
// off and the 16 guard bytes (below).
alignas(16) int8_t g_scratch[5 * 64 * 24 + kDepthwiseStripBytes + 31];


}  // namespace

Outcome test_depthwise_conv2d_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    Conv2dShape s{};
    Conv2dGeometry g{};
    int32_t multiplier = 1;
    static const int32_t kKernels[][2] = {{3, 3}, {3, 3}, {3, 3}, {5, 5}, {1, 1}, {3, 1}, {1, 3}, {2, 2}};
    for (;;) {
      const int32_t* k = kKernels[r.range(0, 7)];
      s.filter_h = k[0], s.filter_w = k[1];
      // One pixel wide with the window down the height (streaming wakeword's 1-D layers).
      const bool column = r.one_in(8);
      if (column) s.filter_h = r.range(2, 7), s.filter_w = 1;
      s.batches = r.one_in(6) ? 2 : 1;
      // 8 channels often: the MVE kernel packs two pixels per vector for them; 16 often too:
      // one whole Helium group, whose maps too large for the strip take the packed asm.
      s.in_c = r.one_in(8) ? 8 : r.one_in(10) ? 16 : (r.one_in(3) ? r.range(1, 40) : r.range(1, 12));
      multiplier = r.one_in(8) ? r.range(2, 3) : 1;
      s.out_c = s.in_c * multiplier, s.filter_c = s.out_c;
      // One case in eight a wide map: the DSP kernel runs it in bands of columns.
      const bool wide = !column && r.one_in(8);
      s.in_h = r.range(1, wide ? 4 : 14), s.in_w = column ? 1 : r.range(wide ? 15 : 1, wide ? 64 : 14);
      if (wide) s.in_c = r.range(1, 8), s.out_c = s.in_c * multiplier, s.filter_c = s.out_c;
      g.stride_h = r.one_in(3) ? 2 : (r.one_in(8) ? 3 : 1);
      g.stride_w = r.one_in(3) ? 2 : (r.one_in(8) ? 3 : 1);
      g.dilation_h = r.one_in(6) ? 2 : 1, g.dilation_w = r.one_in(6) ? 2 : 1;
      random_axis(r, s.in_h, s.filter_h, g.dilation_h, g.stride_h, &g.pad_top, &s.out_h);
      random_axis(r, s.in_w, s.filter_w, g.dilation_w, g.stride_w, &g.pad_left, &s.out_w);
      if (s.out_h > 14 || s.out_w > (wide ? 64 : 14) || s.out_c > kMaxC) continue;
      break;
    }
    QuantS8 q{random_zero_point(r), random_zero_point(r), 0, 0};
    random_act(r, &q.act_min, &q.act_max);
    const int32_t in_n = s.batches * s.in_h * s.in_w * s.in_c;
    const int32_t taps = s.filter_h * s.filter_w;
    const int32_t out_n = s.batches * s.out_h * s.out_w * s.out_c;
    random_s8(r, g_in, in_n);
    random_s8(r, g_filter, taps * s.out_c);
    // Symmetric weights in [-127, 127], as the quantizer makes them: half the cases, and every
    // case the MVE kernel takes (it refuses -128, checked below); -128 stays in the others.
    const bool mve_kernel = kBuiltTier == Tier::Mve;
    if (r.one_in(2) || mve_kernel)
      for (int32_t j = 0; j < taps * s.out_c; ++j) g_filter[j] = g_filter[j] == -128 ? -127 : g_filter[j];
    random_bias(r, g_bias, s.out_c);
    random_requant(r, g_mult, g_shift, s.out_c);
    if (r.one_in(4)) zoo_requant(r, &q.act_min, &q.act_max, g_mult, g_shift, s.out_c);  // the DSP fused 3x3 loop
    const bool no_bias = r.one_in(6);
    for (int32_t c = 0; c < s.out_c; ++c)
      g_folded[c] = folded_bias_depthwise(g_filter, taps, s.out_c, no_bias ? nullptr : g_bias, q.input_zp, c);

    depthwise_conv2d_s8(s, g, q, g_in, g_filter, no_bias ? nullptr : g_bias, g_mult, g_shift, g_want);
    for (int32_t j = 0; j < out_n + 16; ++j) g_got[j] = 0x55;
    const int32_t in_dims[4] = {s.batches, s.in_h, s.in_w, s.in_c};
    const int32_t f_dims[4] = {1, s.filter_h, s.filter_w, s.out_c};
    const int32_t out_dims[4] = {s.batches, s.out_h, s.out_w, s.out_c};
    rt::TensorView ins[6];
    conv_inputs(ins, g_in, in_dims, g_filter, f_dims, no_bias ? nullptr : g_bias, g_mult, g_shift, g_folded, s.out_c);
    // The strip the compiler plans (none on the scalar tier), and in one case in four (a crafted
    // program's) less than that, or a scratch off a 16-byte boundary: the DSP kernel then runs
    // in bands (disjoint input and output) or its listed-taps path, the MVE one the portable.
    const int32_t planned = static_cast<int32_t>(depthwise_conv2d_s8_scratch_bytes(s, g, kBuiltTier));
    const bool odd_scratch = planned > 0 && r.one_in(4);
    const int32_t scratch_dims[1] = {odd_scratch && r.one_in(2) ? r.range(1, planned) : planned};
    int8_t* const scratch = g_scratch + (odd_scratch && r.one_in(2) ? r.range(1, 15) : 0);
    rt::TensorView outs[2] = {make_view(g_got, rt::DType::Int8, 4, out_dims, false),
                              make_view(scratch, rt::DType::Int8, 1, scratch_dims, false)};
    const int32_t ints[10] = {g.stride_h, g.stride_w, g.pad_top, g.pad_left, g.dilation_h, g.dilation_w,
                              q.input_zp, q.output_zp, q.act_min, q.act_max};
    const rt::OpContext ctx{ins, 6, outs, planned > 0 ? size_t{2} : size_t{1}, ints, 10, nullptr, 0};
    const RowStream rs{s.in_h, s.in_w * s.in_c, s.out_h, s.out_w, s.out_c,
                       g.stride_h, g.pad_top, g.dilation_h * (s.filter_h - 1) + 1, 1};
    check_conv_case(o, i, ctx, check_depthwise_conv2d_s8, run_depthwise_conv2d_s8,
                    check_depthwise_conv2d_s8_with_fold, true, rs, g_arena, in_n, out_n, g_want);
    // One weight of -128: the MVE check refuses it (its paired int16 sums would overflow), the
    // scalar and DSP checks take it.
    {
      const int32_t j = r.range(0, taps * s.out_c - 1);
      const int8_t keep = g_filter[j];
      g_filter[j] = -128;
      if (check_depthwise_conv2d_s8(ctx) != (mve_kernel ? rt::Status::BadQuantization : rt::Status::Ok)) {
        ++o.mismatches;
        if (o.first_bad < 0) o.first_bad = i;
      }
      g_filter[j] = keep;
    }
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
