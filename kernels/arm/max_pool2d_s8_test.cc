//===- max_pool2d_s8_test.cc - Optimized max pool vs portable, random cases ===//
//
// Windows 1..5 (non-square), strides 1..3, dilation 1..2, padding on every side (windows
// that overhang the input, and with dilation windows with no tap inside), channel counts
// 1..40 around the vector widths, batches of 1 and 2, narrowed activation ranges.

#include "kernels/arm/max_pool2d_s8.h"

#include "kernels/arm/tier_test.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxIn = 2 * 12 * 12 * 40, kMaxOut = 2 * 13 * 13 * 40;
int8_t g_in[kMaxIn], g_want[kMaxOut], g_got[kMaxOut + 16];

}  // namespace

Outcome test_max_pool2d_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    int32_t ints[10], in_dims[4], out_dims[4];
    for (;;) {
      const int32_t n = r.one_in(4) ? 2 : 1, h = r.range(1, 12), w = r.range(1, 12);
      const int32_t c = r.one_in(3) ? r.range(1, 40) : (r.one_in(2) ? 16 : 4) * r.range(1, 2) + r.range(0, 2);
      ints[0] = r.range(1, 5), ints[1] = r.range(1, 5);              // kernel
      ints[2] = r.range(1, 3), ints[3] = r.range(1, 3);              // stride
      ints[6] = r.one_in(4) ? 2 : 1, ints[7] = r.one_in(4) ? 2 : 1;  // dilation
      int32_t oh, ow;
      random_axis(r, h, ints[0], ints[6], ints[2], &ints[4], &oh);
      random_axis(r, w, ints[1], ints[7], ints[3], &ints[5], &ow);
      random_act(r, &ints[8], &ints[9]);
      const int32_t in[4] = {n, h, w, c}, out[4] = {n, oh, ow, c};
      for (int32_t k = 0; k < 4; ++k) in_dims[k] = in[k], out_dims[k] = out[k];
      // Pools also keep each side's padding below the window (check_window_axis).
      const int32_t ext_h = ints[6] * (ints[0] - 1) + 1, ext_w = ints[7] * (ints[1] - 1) + 1;
      const bool pads_ok = ints[4] < ext_h && (oh - 1) * ints[2] + ext_h - h - ints[4] < ext_h && ints[5] < ext_w &&
                           (ow - 1) * ints[3] + ext_w - w - ints[5] < ext_w;
      if (pads_ok && element_count(in_dims, 4) <= kMaxIn && element_count(out_dims, 4) <= kMaxOut) break;
    }
    const int32_t out_n = element_count(out_dims, 4);
    random_s8(r, g_in, element_count(in_dims, 4));
    for (int32_t j = 0; j < out_n + 16; ++j) g_got[j] = 0x55;
    rt::TensorView ins[1] = {make_view(g_in, rt::DType::Int8, 4, in_dims, false)};
    rt::TensorView want[1] = {make_view(g_want, rt::DType::Int8, 4, out_dims, false)};
    rt::TensorView got[1] = {make_view(g_got, rt::DType::Int8, 4, out_dims, false)};
    const rt::OpContext want_ctx{ins, 1, want, 1, ints, 10, nullptr, 0};
    const bool refused = kernels::check_max_pool2d_s8(want_ctx) != rt::Status::Ok;  // a bad case
    if (!refused) kernels::run_max_pool2d_s8(want_ctx);
    compare_optimized(o, i, refused, &check_max_pool2d_s8, &run_max_pool2d_s8,
                      rt::OpContext{ins, 1, got, 1, ints, 10, nullptr, 0}, g_got, g_want, out_n);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
