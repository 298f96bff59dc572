//===- add_s8_scalar.cc - add_s8 runs in plain Thumb-2 --------------------===//
//
// Also the DSP tier's kernel (the per-element work is 32x32-bit multiplies, which SIMD32 does
// not help). The per-op constants are hoisted, an operand that repeats is rescaled once (a
// separate loop per case, so the element loop has no step test), and the rescaling and
// requantization use the 32-bit forms of primitives_scalar.h (one SMLAL each) instead of the
// portable 64-bit divisions.

#include "kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "kernels/arm/add_s8.h"
#include "kernels/arm/primitives_scalar.h"

namespace ember::kernels::arm {

void add_s8_run(const AddParamsS8& p, const int8_t* a, int32_t a_step, const int8_t* b, int32_t b_step,
                int8_t* out, int32_t n) {
  if (n <= 0) return;  // a[0] and b[0] are read below
  const int32_t ls = p.left_shift;
  const int32_t am = p.a_multiplier, as = p.a_shift, bm = p.b_multiplier, bs = p.b_shift;
  const int32_t azp = p.a_zp, bzp = p.b_zp;
  const ChannelRequant q = channel_requant(p.output_multiplier, p.output_shift);
  const OutputClamp oc = output_clamp(p.output_zp, p.act_min, p.act_max);
  const auto scale_a = [&](int32_t v) { return scale_input_s32((v - azp) * (1 << ls), am, as); };
  const auto scale_b = [&](int32_t v) { return scale_input_s32((v - bzp) * (1 << ls), bm, bs); };
  const auto store = [&](int32_t i, int32_t sum) { out[i] = clamp_output(oc, requantize_value(q, sum)); };
  if (a_step != 0 && b_step != 0) {
    for (int32_t i = 0; i < n; ++i) store(i, scale_a(a[i]) + scale_b(b[i]));
  } else if (a_step != 0) {
    const int32_t sb = scale_b(b[0]);
    for (int32_t i = 0; i < n; ++i) store(i, scale_a(a[i]) + sb);
  } else if (b_step != 0) {
    const int32_t sa = scale_a(a[0]);
    for (int32_t i = 0; i < n; ++i) store(i, sa + scale_b(b[i]));
  } else {
    const int32_t sum = scale_a(a[0]) + scale_b(b[0]);
    for (int32_t i = 0; i < n; ++i) store(i, sum);
  }
}

namespace {

// One requantization form for the whole run: the caller has chosen it, and telling GCC so
// keeps one form in the loop (with both, it computed both and selected: about 30 instructions
// per element).
template <bool kRight>
void run_tables(const ChannelRequant q, const OutputClamp oc, const int32_t* ta, const uint8_t* a, const int32_t* tb,
                const uint8_t* b, int8_t* out, int32_t n) {
  if ((q.right >= 0) != kRight) __builtin_unreachable();
  // Entries are below 2^30 in magnitude (the check recomputed them): the sum fits in int32.
  for (int32_t i = 0; i < n; ++i) out[i] = clamp_output(oc, requantize_value(q, ta[a[i]] + tb[b[i]]));
}

}  // namespace

void add_s8_run_tables(const AddParamsS8& p, const int32_t* ta, const int8_t* a, const int32_t* tb, const int8_t* b,
                       int8_t* out, int32_t n) {
  const ChannelRequant q = channel_requant(p.output_multiplier, p.output_shift);
  const OutputClamp oc = output_clamp(p.output_zp, p.act_min, p.act_max);
  const uint8_t* ua = reinterpret_cast<const uint8_t*>(a);
  const uint8_t* ub = reinterpret_cast<const uint8_t*>(b);
  if (q.right >= 0) run_tables<true>(q, oc, ta, ua, tb, ub, out, n);
  else run_tables<false>(q, oc, ta, ua, tb, ub, out, n);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
