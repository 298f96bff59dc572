//===- add_s8_test.cc - Optimized add vs portable, random cases -----------===//
//
// The broadcast cases of binary_test_util.cc with zero points at -128 and 127, left shifts
// 0..22, input shifts -31..0 and output shifts -31..30 with the extreme multipliers; half of
// them with the rescale tables the compiler adds. Then tables with one wrong entry, which the
// check must refuse.

#include "ember/kernels/arm/add_s8.h"

#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels::arm::testing {
namespace {

void draw_add(Rng& r, int32_t* ints) {  // the AddParamsS8 order
  AddParamsS8 p{};
  p.left_shift = r.one_in(2) ? 20 : r.range(0, 22);
  p.a_zp = random_zero_point(r), p.b_zp = random_zero_point(r), p.output_zp = random_zero_point(r);
  int32_t m[3], s[3];
  random_requant(r, m, s, 3);
  p.a_multiplier = m[0], p.b_multiplier = m[1], p.output_multiplier = m[2];
  p.a_shift = s[0] > 0 ? -s[0] : s[0], p.b_shift = s[1] > 0 ? -s[1] : s[1];
  if (r.one_in(4)) p.a_shift = 0;
  p.output_shift = s[2];
  random_act(r, &p.act_min, &p.act_max);
  const int32_t v[12] = {p.left_shift, p.a_zp, p.a_multiplier, p.a_shift, p.b_zp, p.b_multiplier,
                         p.b_shift, p.output_zp, p.output_multiplier, p.output_shift, p.act_min, p.act_max};
  for (int32_t i = 0; i < 12; ++i) ints[i] = v[i];
}

int32_t g_tables[2][kRescaleTableSize];

rt::TensorView table_view(int32_t* table) {
  static const int32_t dims[1] = {kRescaleTableSize};
  return make_view(table, rt::DType::Int32, 1, dims, true);
}

// Both operands' tables of the op with these ints (the AddParamsS8 order), into g_tables.
void fill_tables(const int32_t* ints) {
  add_s8_rescale_table(ints[1], ints[0], ints[2], ints[3], g_tables[0]);
  add_s8_rescale_table(ints[4], ints[0], ints[5], ints[6], g_tables[1]);
}

// The compiler's tables (pack_weights), one case in two.
size_t add_tables(Rng& r, const int32_t* ints, rt::TensorView* extra) {
  if (r.one_in(2)) return 0;
  fill_tables(ints);
  extra[0] = table_view(g_tables[0]);
  extra[1] = table_view(g_tables[1]);
  return 2;
}

}  // namespace

Outcome test_add_s8(uint32_t seed, int32_t cases) {
  Outcome o = test_binary_s8(seed, cases, 12, &draw_add, &kernels::check_add_s8, &kernels::run_add_s8,
                             &check_add_s8, &run_add_s8, &add_tables);
  // The tables hold the portable kernel's rescaled values; a table entry off by one anywhere is
  // refused with BadQuantization (each counted as a mismatch otherwise).
  Rng r{seed ^ 0x7AB1Eu};
  int8_t a[4], b[4], out[4];
  const int32_t dims[1] = {4};
  for (int32_t i = 0; i < cases / 8; ++i) {
    int32_t ints[12];
    draw_add(r, ints);
    fill_tables(ints);
    bool bad = false;
    for (int32_t q = -128; q < 128; ++q) {
      const uint8_t k = static_cast<uint8_t>(q);
      bad |= g_tables[0][k] != kernels::multiply_by_quantized_multiplier((q - ints[1]) * (1 << ints[0]), ints[2], ints[3]);
      bad |= g_tables[1][k] != kernels::multiply_by_quantized_multiplier((q - ints[4]) * (1 << ints[0]), ints[5], ints[6]);
    }
    g_tables[r.range(0, 1)][r.range(0, kRescaleTableSize - 1)] += r.one_in(2) ? 1 : -1;
    rt::TensorView ins[4] = {make_view(a, rt::DType::Int8, 1, dims, false), make_view(b, rt::DType::Int8, 1, dims, false),
                             table_view(g_tables[0]), table_view(g_tables[1])};
    rt::TensorView outs[1] = {make_view(out, rt::DType::Int8, 1, dims, false)};
    ++o.cases;
    if (bad || check_add_s8(rt::OpContext{ins, 4, outs, 1, ints, 12, nullptr, 0}) != rt::Status::BadQuantization) {
      ++o.mismatches;
      if (o.first_bad < 0) o.first_bad = cases + i;
    }
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
