//===- add_s8_test.cc - Optimized add vs portable, random cases -----------===//
//
// Same shapes and numpy broadcasting (an operand with 1s on any axes, or a lower rank, the
// innermost axis included), in-place outputs, zero points at -128 and 127, left shifts 0..22,
// input shifts -31..0 and output shifts -31..30 with the extreme multipliers.

#include "kernels/arm/add_s8.h"

#include "kernels/arm/tier_test.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxN = 4096;
int8_t g_a[kMaxN], g_b[kMaxN], g_want[kMaxN], g_got[kMaxN + 16];

rt::TensorView view(void* data, int32_t rank, const int32_t* dims) {
  return make_view(data, rt::DType::Int8, rank, dims, false);
}

int32_t count(const int32_t* dims, int32_t rank) {
  int32_t n = 1;
  for (int32_t i = 0; i < rank; ++i) n *= dims[i];
  return n;
}

}  // namespace

Outcome test_add_s8(uint32_t seed, int32_t cases) {
  Rng r{seed};
  Outcome o;
  for (int32_t i = 0; i < cases; ++i) {
    int32_t rank, out_dims[4], a_dims[4], b_dims[4], a_rank, b_rank;
    for (;;) {
      rank = r.range(1, 4);
      for (int32_t k = 0; k < rank; ++k) out_dims[k] = k == rank - 1 ? r.range(1, 40) : r.range(1, 6);
      const bool same = r.one_in(2);
      a_rank = same || r.one_in(2) ? rank : r.range(1, rank);
      b_rank = same || r.one_in(2) ? rank : r.range(1, rank);
      if (a_rank != rank && b_rank != rank) a_rank = rank;
      for (int32_t k = 0; k < a_rank; ++k)
        a_dims[k] = !same && r.one_in(3) ? 1 : out_dims[rank - a_rank + k];
      for (int32_t k = 0; k < b_rank; ++k)
        b_dims[k] = !same && r.one_in(3) ? 1 : out_dims[rank - b_rank + k];
      // The output is the broadcast: an axis of the output where both operands are 1 is 1.
      for (int32_t k = 0; k < rank; ++k) {
        const int32_t ka = k - (rank - a_rank), kb = k - (rank - b_rank);
        const int32_t da = ka >= 0 ? a_dims[ka] : 1, db = kb >= 0 ? b_dims[kb] : 1;
        out_dims[k] = da > db ? da : db;
      }
      if (count(out_dims, rank) <= kMaxN) break;
    }
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
    const int32_t na = count(a_dims, a_rank), nb = count(b_dims, b_rank), n = count(out_dims, rank);
    random_s8(r, g_a, na);
    random_s8(r, g_b, nb);
    const int32_t ints[12] = {p.left_shift, p.a_zp, p.a_multiplier, p.a_shift, p.b_zp, p.b_multiplier,
                              p.b_shift, p.output_zp, p.output_multiplier, p.output_shift, p.act_min, p.act_max};
    rt::TensorView ins[2] = {view(g_a, a_rank, a_dims), view(g_b, b_rank, b_dims)};
    rt::TensorView want_out[1] = {view(g_want, rank, out_dims)};
    const rt::OpContext want_ctx{ins, 2, want_out, 1, ints, 12, nullptr, 0};
    ++o.cases;
    bool bad = kernels::check_add_s8(want_ctx) != rt::Status::Ok;  // a bad case, not a bad kernel
    if (!bad) kernels::run_add_s8(want_ctx);
    for (int32_t j = 0; j < n + 16; ++j) g_got[j] = 0x55;
    // In place, as the compiler plans it: the output over the operand of the output's shape.
    const bool in_place = a_rank == rank && na == n && r.one_in(3);
    if (in_place) {
      for (int32_t j = 0; j < n; ++j) g_got[j] = g_a[j];
      ins[0] = view(g_got, a_rank, a_dims);
    }
    rt::TensorView outs[1] = {view(g_got, rank, out_dims)};
    const rt::OpContext ctx{ins, 2, outs, 1, ints, 12, nullptr, 0};
    if (check_add_s8(ctx) != rt::Status::Ok) {
      ++o.rejected;
      bad = true;
    } else {
      run_add_s8(ctx);
      for (int32_t j = 0; j < n; ++j) bad |= g_got[j] != g_want[j];
      for (int32_t j = n; j < n + 16; ++j) bad |= g_got[j] != 0x55;
      ++o.optimized;
    }
    if (bad) {
      ++o.mismatches;
      if (o.first_bad < 0) o.first_bad = i;
    }
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
