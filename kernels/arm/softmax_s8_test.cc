//===- softmax_s8_test.cc - Optimized softmax vs portable, random cases ---===//
//
// 1..4 rows of 1..40 values (some of up to 600: past the 511 of the 32-bit sum), against tables
// as the compiler builds them (e_0 = 2^23, falling geometrically, here in integers: the kernel
// tests run without libm) in most cases and hostile ones in the rest: negative or huge values,
// one value past 2^23 (just, or far enough for e * 256 to pass 2^32), all zero, small values whose sums make rounding ties. Rows of one repeated value and of -128/127 extremes;
// a tenth of the cases in place.

#include "ember/kernels/arm/softmax_s8.h"

#include "ember/kernels/arm/tier_test.h"
#include "ember/kernels/portable/softmax_s8.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxN = 1200;
int8_t g_in[kMaxN], g_want[kMaxN], g_got[kMaxN + 16];
int32_t g_table[256];

void random_table(Rng& r) {
  switch (r.range(0, 7)) {
    case 0:  // anything (negative values, sums past 2^32)
      for (int32_t& v : g_table) v = static_cast<int32_t>(r.next());
      return;
    case 1:  // all zero: every sum is 0
      for (int32_t& v : g_table) v = 0;
      return;
    case 2:  // small values: sums small enough for exact halves (the rounding's ties)
      for (int32_t& v : g_table) v = r.range(0, 6);
      return;
    default: {  // e_d = 2^23 * k^d, k in (0, 1)
      const uint32_t k = static_cast<uint32_t>(r.range(0, 65535));
      uint32_t e = 1u << 23;
      for (int32_t& v : g_table) v = static_cast<int32_t>(e), e = static_cast<uint32_t>((uint64_t{e} * k) >> 16);
      if (r.one_in(4))  // past the fast path: just, or where e * 256 passes 2^32
        g_table[r.one_in(2) ? 0 : r.range(0, 255)] = r.one_in(2) ? (1 << 23) + r.range(1, 3)
                                                  : r.one_in(2) ? 1 << 24 : r.range(1 << 23, 1 << 25);
      if (r.one_in(8)) g_table[r.range(0, 255)] = -r.range(1, 1000);
    }
  }
}

}  // namespace

Outcome test_softmax_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    random_table(r);
    const int32_t depth = r.one_in(10) ? r.range(41, 600) : r.range(1, 40);
    const int32_t rows = r.range(1, kMaxN / depth < 4 ? kMaxN / depth : 4);
    const int32_t n = rows * depth;
    random_s8(r, g_in, n);
    if (r.one_in(8)) {
      const int8_t v = static_cast<int8_t>(r.range(-128, 127));
      for (int32_t j = 0; j < n; ++j) g_in[j] = v;
    } else if (r.one_in(8)) {
      for (int32_t j = 0; j < n; ++j) g_in[j] = r.one_in(2) ? -128 : 127;
    }
    const int32_t dims[2] = {rows, depth}, table_dims[1] = {256};
    rt::TensorView ins[2] = {make_view(g_in, rt::DType::Int8, 2, dims, false),
                             make_view(g_table, rt::DType::Int32, 1, table_dims, true)};
    compare_same_shape(o, i, r, 10, &kernels::check_softmax_s8, &kernels::run_softmax_s8, &check_softmax_s8,
                       &run_softmax_s8, ins, 2, nullptr, 0, 2, dims, g_in, g_got, g_want);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
