//===- binary_test_util.cc - Random cases for the broadcasting binary ops ---===//

#include "ember/kernels/arm/tier_test.h"

namespace ember::kernels::arm::testing {
namespace {

constexpr int32_t kMaxN = 4096;
int8_t g_a[kMaxN], g_b[kMaxN], g_want[kMaxN], g_got[kMaxN + 16];

rt::TensorView view(void* data, int32_t rank, const int32_t* dims) {
  return make_view(data, rt::DType::Int8, rank, dims, false);
}

}  // namespace

int32_t element_count(const int32_t* dims, int32_t rank) {
  int32_t n = 1;
  for (int32_t i = 0; i < rank; ++i) n *= dims[i];
  return n;
}

BroadcastCase random_broadcast(Rng& r, int32_t max_elements) {
  BroadcastCase c;
  for (;;) {
    c.rank = r.range(1, 4);
    for (int32_t k = 0; k < c.rank; ++k) c.out[k] = k == c.rank - 1 ? r.range(1, 40) : r.range(1, 6);
    const bool same = r.one_in(2);
    c.a_rank = same || r.one_in(2) ? c.rank : r.range(1, c.rank);
    c.b_rank = same || r.one_in(2) ? c.rank : r.range(1, c.rank);
    if (c.a_rank != c.rank && c.b_rank != c.rank) c.a_rank = c.rank;
    for (int32_t k = 0; k < c.a_rank; ++k) c.a[k] = !same && r.one_in(3) ? 1 : c.out[c.rank - c.a_rank + k];
    for (int32_t k = 0; k < c.b_rank; ++k) c.b[k] = !same && r.one_in(3) ? 1 : c.out[c.rank - c.b_rank + k];
    // The output is the broadcast: an axis of the output where both operands are 1 is 1.
    for (int32_t k = 0; k < c.rank; ++k) {
      const int32_t ka = k - (c.rank - c.a_rank), kb = k - (c.rank - c.b_rank);
      const int32_t da = ka >= 0 ? c.a[ka] : 1, db = kb >= 0 ? c.b[kb] : 1;
      c.out[k] = da > db ? da : db;
    }
    if (element_count(c.out, c.rank) <= max_elements) return c;
  }
}

Outcome test_binary_s8(uint32_t seed, int32_t cases, size_t n_ints, void (*draw_ints)(Rng&, int32_t*),
                       KernelFn check_portable, KernelFn run_portable, KernelFn check_optimized,
                       KernelFn run_optimized, AddedInputs added) {
  Rng r{seed};
  Outcome o;
  int32_t ints[16];
  for (int32_t i = 0; i < cases; ++i) {
    const BroadcastCase s = random_broadcast(r, kMaxN);
    draw_ints(r, ints);
    const int32_t na = element_count(s.a, s.a_rank), n = element_count(s.out, s.rank);
    random_s8(r, g_a, na);
    random_s8(r, g_b, element_count(s.b, s.b_rank));
    rt::TensorView ins[4] = {view(g_a, s.a_rank, s.a), view(g_b, s.b_rank, s.b)};
    rt::TensorView want_out[1] = {view(g_want, s.rank, s.out)};
    const rt::OpContext want_ctx{ins, 2, want_out, 1, ints, n_ints, nullptr, 0};
    const bool refused = check_portable(want_ctx) != rt::Status::Ok;  // a bad case, not a bad kernel
    if (!refused) run_portable(want_ctx);
    for (int32_t j = 0; j < n + 16; ++j) g_got[j] = 0x55;
    // In place, as the compiler plans it: the output over the operand of the output's shape.
    if (s.a_rank == s.rank && na == n && r.one_in(3)) {
      for (int32_t j = 0; j < n; ++j) g_got[j] = g_a[j];
      ins[0] = view(g_got, s.a_rank, s.a);
    }
    rt::TensorView outs[1] = {view(g_got, s.rank, s.out)};
    const size_t extra = added != nullptr ? added(r, ints, ins + 2) : 0;
    compare_optimized(o, i, refused, check_optimized, run_optimized,
                      rt::OpContext{ins, 2 + extra, outs, 1, ints, n_ints, nullptr, 0}, g_got, g_want, n);
  }
  return o;
}

}  // namespace ember::kernels::arm::testing
