//===- fully_connected_s8_test.cc - Optimized linear vs portable, random cases ===//
//
// Depths around the vector widths (1..70, 4n+-1, 16n+-1) and up to 300, 1..5 rows (the 4-row
// blocks and their tails), 1..37 outputs.

#include "ember/kernels/arm/fully_connected_s8.h"

#include "ember/kernels/arm/fold.h"
#include "ember/kernels/arm/kernels.h"
#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/fully_connected_s8.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxK = 300, kMaxO = 40, kMaxRows = 5;
int8_t g_in[kMaxRows * kMaxK], g_filter[kMaxO * kMaxK], g_want[kMaxRows * kMaxO], g_got[kMaxRows * kMaxO + 16];
int32_t g_bias[kMaxO], g_folded[kMaxO], g_mult[kMaxO], g_shift[kMaxO];


}  // namespace

Outcome test_fully_connected_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    const int32_t k = r.one_in(4) ? r.range(1, kMaxK) : r.range(1, 70);
    const int32_t n_out = r.range(1, 37), rows = r.one_in(3) ? r.range(2, kMaxRows) : 1;
    QuantS8 q{random_zero_point(r), random_zero_point(r), 0, 0};
    random_act(r, &q.act_min, &q.act_max);
    random_s8(r, g_in, rows * k);
    random_s8(r, g_filter, n_out * k);
    random_bias(r, g_bias, n_out);
    random_requant(r, g_mult, g_shift, n_out);
    // The zoo's quantization (shifts -4..-2, whole int8 range), which the Cortex-M3's
    // row_groups takes. In one such case in four the results tie often (round half to even):
    // every multiplier 2^30, activations and input zero point in [-1, 1], biases in [-64, 64],
    // so the sums stay small, few outputs saturate, and an eighth to a 32nd of them are ties.
    if (r.one_in(3)) {
      zoo_requant(r, &q.act_min, &q.act_max, g_mult, g_shift, n_out);
      if (r.one_in(4)) {
        q.input_zp = r.range(-1, 1);
        for (int32_t j = 0; j < rows * k; ++j) g_in[j] = static_cast<int8_t>(r.range(-1, 1));
        for (int32_t c = 0; c < n_out; ++c) g_mult[c] = int32_t{1} << 30, g_bias[c] = r.range(-64, 64);
      }
    }
    const bool no_bias = r.one_in(6);
    for (int32_t c = 0; c < n_out; ++c)
      g_folded[c] = folded_bias_rows(g_filter, k, no_bias ? nullptr : g_bias, q.input_zp, c);
    fully_connected_s8(rows, k, n_out, q, g_in, g_filter, no_bias ? nullptr : g_bias, g_mult, g_shift, g_want);
    for (int32_t j = 0; j < rows * n_out + 16; ++j) g_got[j] = 0x55;
    const int32_t in_dims[2] = {rows, k}, f_dims[2] = {n_out, k}, c_dims[1] = {n_out}, out_dims[2] = {rows, n_out};
    rt::TensorView ins[6] = {make_view(g_in, rt::DType::Int8, 2, in_dims, false),
                             make_view(g_filter, rt::DType::Int8, 2, f_dims, true),
                             no_bias ? rt::TensorView{} : make_view(g_bias, rt::DType::Int32, 1, c_dims, true),
                             make_view(g_mult, rt::DType::Int32, 1, c_dims, true),
                             make_view(g_shift, rt::DType::Int32, 1, c_dims, true),
                             make_view(g_folded, rt::DType::Int32, 1, c_dims, true)};
    rt::TensorView outs[1] = {make_view(g_got, rt::DType::Int8, 2, out_dims, false)};
    const int32_t ints[4] = {q.input_zp, q.output_zp, q.act_min, q.act_max};
    const rt::OpContext ctx{ins, 6, outs, 1, ints, 4, nullptr, 0};
    ++o.cases;
    bool bad = false;
    if (check_fully_connected_s8(ctx) != rt::Status::Ok) {
      ++o.rejected;
      bad = true;
    } else {
      run_fully_connected_s8(ctx);
      for (int32_t j = 0; j < rows * n_out; ++j) bad |= g_got[j] != g_want[j];
      for (int32_t j = rows * n_out; j < rows * n_out + 16; ++j) bad |= g_got[j] != 0x55;
      ++o.optimized;
    }
    // The host tools' check accepts the right folded bias and refuses one off by one.
    bad |= check_fully_connected_s8_with_fold(ctx) != check_fully_connected_s8(ctx);
    ++g_folded[n_out - 1];
    bad |= check_fully_connected_s8(ctx) == rt::Status::Ok &&
           check_fully_connected_s8_with_fold(ctx) != rt::Status::BadQuantization;
    --g_folded[n_out - 1];
    if (bad) {
      ++o.mismatches;
      if (o.first_bad < 0) o.first_bad = i;
    }
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
