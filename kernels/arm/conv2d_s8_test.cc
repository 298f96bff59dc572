//===- conv2d_s8_test.cc - Optimized conv2d_s8 vs portable, random cases ---===//
//
// Pointwise (1x1, strides 1 and 2), 1xN and Nx1 (keyword spotting's 10x4), 3x3 and 5x5 with
// padding on every side, dilation 2, odd channel counts, batches of 2, and a grouped conv (the
// portable fallback); each through the built tier's check and run, im2col with a scratch of
// any size the kernel takes.

#include "ember/kernels/arm/conv2d_s8.h"

#include "ember/kernels/arm/fold.h"
#include "ember/kernels/arm/in_place_test.h"
#include "ember/kernels/arm/kernels.h"
#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/conv2d_s8.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxIn = 2 * 12 * 12 * 40, kMaxFilter = 24000, kMaxOut = 2 * 12 * 12 * 40;
// The most scratch: 12 rows (mat_mult_s8_block_rows(Mve)), or 8 rows and the DSP tier's 4 packed
// (16 rows of its shallow depths).
constexpr int32_t kMaxScratch = 16 * 10 * 5 * 40, kMaxC = 48;
int8_t g_in[kMaxIn], g_filter[kMaxFilter], g_want[kMaxOut], g_got[kMaxOut + 16];
alignas(16) int8_t g_scratch[kMaxScratch + 17];  // word-aligned, as planned scratch is (+1: below)
int8_t g_arena[(kMaxIn + kMaxOut) / 2 + 1];  // in-place runs (batch 1): input and output overlap
int32_t g_bias[kMaxC], g_folded[kMaxC], g_mult[kMaxC], g_shift[kMaxC];


}  // namespace

Outcome test_conv2d_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    Conv2dShape s{};
    Conv2dGeometry g{};
    static const int32_t kKernels[][2] = {{1, 1}, {1, 1}, {1, 1}, {3, 3}, {3, 3}, {1, 4}, {4, 1},
                                          {10, 4}, {5, 5}, {2, 3}, {1, 3}, {3, 1}};
    bool first_layer = false;
    for (;;) {
      const int32_t* k = kKernels[r.range(0, 11)];
      s.filter_h = k[0], s.filter_w = k[1];
      s.batches = r.one_in(5) ? 2 : 1;
      // 8, 16, 32 and 64 channels often: a pointwise conv of depth 8 or 16 takes the MVE
      // tier's shallow path, of any of them (at least 16 pixels) the DSP tier's.
      static const int32_t kShallow[] = {8, 16, 32, 64};
      s.in_c = r.one_in(4) ? kShallow[r.range(0, 3)] : (r.one_in(4) ? r.range(1, 40) : r.range(1, 20));
      // One case in eight a first layer: 3x3 over 3 channels, or 10x4 over 1 (depth 27 and 40:
      // the DSP tier's shallow im2col path, 16 rows at a time).
      first_layer = r.one_in(8);
      if (first_layer) {
        const bool rgb = r.one_in(2);
        s.filter_h = rgb ? 3 : 10, s.filter_w = rgb ? 3 : 4, s.in_c = rgb ? 3 : 1;
      }
      s.out_c = r.one_in(4) ? r.range(1, 40) : r.range(1, 20);
      const int32_t groups = r.one_in(12) && s.in_c % 2 == 0 && s.out_c % 2 == 0 ? 2 : 1;
      s.filter_c = s.in_c / groups;
      s.in_h = r.range(1, 12), s.in_w = r.range(1, 12);
      g.stride_h = r.one_in(3) ? 2 : (r.one_in(8) ? 3 : 1);
      g.stride_w = r.one_in(3) ? 2 : (r.one_in(8) ? 3 : 1);
      g.dilation_h = r.one_in(6) ? 2 : 1, g.dilation_w = r.one_in(6) ? 2 : 1;
      const bool pointwise = s.filter_h == 1 && s.filter_w == 1 && r.range(0, 2) != 0;
      if (pointwise) {
        g.pad_top = g.pad_left = 0;
        s.out_h = (s.in_h - 1) / g.stride_h + 1, s.out_w = (s.in_w - 1) / g.stride_w + 1;
      } else {
        random_axis(r, s.in_h, s.filter_h, g.dilation_h, g.stride_h, &g.pad_top, &s.out_h);
        random_axis(r, s.in_w, s.filter_w, g.dilation_w, g.stride_w, &g.pad_left, &s.out_w);
      }
      if (s.out_h > 12 || s.out_w > 12 || s.batches * s.in_h * s.in_w * s.in_c > kMaxIn) continue;
      if (s.out_c * s.filter_h * s.filter_w * s.filter_c > kMaxFilter) continue;
      if (static_cast<int32_t>(conv2d_s8_scratch_bytes(s, g, Tier::Mve)) > kMaxScratch ||
          static_cast<int32_t>(conv2d_s8_scratch_bytes(s, g, kBuiltTier)) > kMaxScratch)
        continue;
      break;
    }
    const QuantS8 q{random_zero_point(r), random_zero_point(r), 0, 0};
    QuantS8 qa = q;
    random_act(r, &qa.act_min, &qa.act_max);
    const int32_t in_n = s.batches * s.in_h * s.in_w * s.in_c;
    const int32_t f_n = s.out_c * s.filter_h * s.filter_w * s.filter_c;
    const int32_t out_n = s.batches * s.out_h * s.out_w * s.out_c;
    random_s8(r, g_in, in_n);
    random_s8(r, g_filter, f_n);
    random_bias(r, g_bias, s.out_c);
    random_requant(r, g_mult, g_shift, s.out_c);
    // The zoo's quantization, which the DSP tier's shallow loop takes.
    if (r.one_in(first_layer ? 2 : 3)) zoo_requant(r, &qa.act_min, &qa.act_max, g_mult, g_shift, s.out_c);
    const bool no_bias = r.one_in(6);
    const int32_t k = s.filter_h * s.filter_w * s.filter_c;
    for (int32_t c = 0; c < s.out_c; ++c)
      g_folded[c] = folded_bias_rows(g_filter, k, no_bias ? nullptr : g_bias, q.input_zp, c);

    conv2d_s8(s, g, qa, g_in, g_filter, no_bias ? nullptr : g_bias, g_mult, g_shift, g_want);
    for (int32_t j = 0; j < out_n + 16; ++j) g_got[j] = 0x55;

    const int32_t in_dims[4] = {s.batches, s.in_h, s.in_w, s.in_c};
    const int32_t f_dims[4] = {s.out_c, s.filter_h, s.filter_w, s.filter_c};
    const int32_t out_dims[4] = {s.batches, s.out_h, s.out_w, s.out_c};
    // Any scratch from the least the kernel takes to its fastest blocks' (compiled programs
    // hold one or the other): the blocks are as many pixels as fit, and on the DSP tier the
    // packed rows or shallow table the fastest or the least size. One case in four on the DSP
    // tier: too little for the least packed rows, which the kernel then runs without.
    const uint32_t least = static_cast<uint32_t>(conv2d_s8_scratch_bytes(s, g, kBuiltTier, true));
    const uint32_t most = static_cast<uint32_t>(conv2d_s8_scratch_bytes(s, g, kBuiltTier));
    const uint32_t pack = static_cast<uint32_t>(
        conv2d_s8_path(s, g) == Conv2dPath::Portable ? 0 : mat_mult_s8_pack_bytes(kBuiltTier, k, true));
    // First layers take the most, for their 16-row blocks (and draw nothing).
    const auto draw = [&] {
      return pack > 0 && r.one_in(4) ? least - pack + r.next() % pack : least + r.next() % (most - least + 1);
    };
    const int32_t scratch_n = static_cast<int32_t>(first_layer ? most : draw());
    const int32_t scratch_dims[1] = {scratch_n > 0 ? scratch_n : 1};
    // One case in eight on the DSP tier: a scratch off a word boundary (a crafted program's),
    // which the kernel runs without the packed rows rather than fault on LDRD.
    int8_t* const scratch = g_scratch + (pack > 0 && r.one_in(8) ? 1 : 0);
    rt::TensorView ins[6];
    conv_inputs(ins, g_in, in_dims, g_filter, f_dims, no_bias ? nullptr : g_bias, g_mult, g_shift, g_folded, s.out_c);
    rt::TensorView outs[2] = {make_view(g_got, rt::DType::Int8, 4, out_dims, false),
                              make_view(scratch, rt::DType::Int8, 1, scratch_dims, false)};
    const int32_t ints[10] = {g.stride_h, g.stride_w, g.pad_top, g.pad_left, g.dilation_h, g.dilation_w,
                              qa.input_zp, qa.output_zp, qa.act_min, qa.act_max};
    const rt::OpContext ctx{ins, 6, outs, 2, ints, 10, nullptr, 0};
    const RowStream rs{s.in_h, s.in_w * s.in_c, s.out_h, s.out_w, s.out_c,
                       g.stride_h, g.pad_top, g.dilation_h * (s.filter_h - 1) + 1, 4};
    check_conv_case(o, i, ctx, check_conv2d_s8, run_conv2d_s8, check_conv2d_s8_with_fold,
                    conv2d_s8_path(s, g) != Conv2dPath::Portable, rs, g_arena, in_n, out_n, g_want);
  }
  // A folded bias that is not the fold of the op's own bias and filter is refused by the host
  // tools' check; the device check trusts it (it decides the numbers, not the memory touched).
  {
    const int32_t in_dims[4] = {1, 1, 1, 3}, f_dims[4] = {2, 1, 1, 3}, out_dims[4] = {1, 1, 1, 2};
    for (int32_t j = 0; j < 6; ++j) g_filter[j] = static_cast<int8_t>(j + 1);
    g_bias[0] = g_bias[1] = 0, g_mult[0] = g_mult[1] = 1 << 30, g_shift[0] = g_shift[1] = -1;
    g_folded[0] = folded_bias_rows(g_filter, 3, g_bias, 5, 0);
    g_folded[1] = folded_bias_rows(g_filter, 3, g_bias, 5, 1) + 1;
    rt::TensorView ins[6];
    conv_inputs(ins, g_in, in_dims, g_filter, f_dims, g_bias, g_mult, g_shift, g_folded, 2);
    rt::TensorView outs[1] = {make_view(g_got, rt::DType::Int8, 4, out_dims, false)};
    const int32_t ints[10] = {1, 1, 0, 0, 1, 1, 5, 0, -128, 127};
    const rt::OpContext ctx{ins, 6, outs, 1, ints, 10, nullptr, 0};
    ++o.cases;
    if (check_conv2d_s8_with_fold(ctx) != rt::Status::BadQuantization ||
        check_conv2d_s8(ctx) != rt::Status::Ok) {
      ++o.mismatches;
      if (o.first_bad < 0) o.first_bad = cases;
    }
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
