//===- add_s8_scalar.cc - add_s8 runs in plain Thumb-2 --------------------===//
//
// Also the DSP tier's kernel (the per-element work is 32x32-bit multiplies, which SIMD32 does
// not help). The per-op constants are hoisted, an operand that repeats is rescaled once (a
// separate loop per case, so the element loop has no step test), and the rescaling and
// requantization use the 32-bit forms of primitives_scalar.h (one SMLAL each) instead of the
// portable 64-bit divisions.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "ember/kernels/arm/add_s8.h"
#include "ember/kernels/arm/primitives_scalar.h"

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
// keeps one form in the loop (with both, it computed both and selected, per element).
template <bool kRight>
void run_tables(const ChannelRequant q, const OutputClamp oc, const int32_t* ta, const uint8_t* a, const int32_t* tb,
                const uint8_t* b, int8_t* out, int32_t n) {
  if ((q.right >= 0) != kRight) __builtin_unreachable();
  // Entries are below 2^30 in magnitude (the check recomputed them): the sum fits in int32.
  for (int32_t i = 0; i < n; ++i) out[i] = clamp_output(oc, requantize_value(q, ta[a[i]] + tb[b[i]]));
}

#if EMBER_TIER == EMBER_TIER_DSP || defined(__ARM_ARCH_7M__)
// run_tables for an output requantization in the FastOut form (primitives_scalar.h; ic's adds)
// in assembly: per element two LDRB, two table LDR, the add, then SMMLA (Cortex-M3: SMLAL onto
// rh:0), the one-instruction tie test (the fix-up out of line), ASR, SSAT, STRB and the loop,
// about half of GCC's loop. n > 0.
void run_tables_fast(const FastOut& f, int32_t zp, const int32_t* ta, const uint8_t* a, const int32_t* tb,
                     const uint8_t* b, int8_t* out, int32_t n) {
  const int8_t* const end = out + n;
  int32_t x, y, h;
#define EMBER_ADD_LOAD                                   \
  "1:\n\t"                                               \
  "ldrb   %[x], [%[a]], #1\n\t"                           \
  "ldrb   %[y], [%[b]], #1\n\t"                           \
  "ldr    %[x], [%[ta], %[x], lsl #2]\n\t"                \
  "ldr    %[y], [%[tb], %[y], lsl #2]\n\t"                \
  "add    %[x], %[x], %[y]\n\t"
#define EMBER_ADD_STORE(R)                               \
  "2:\n\t"                                               \
  "ssat   " R ", #8, " R "\n\t"                           \
  "strb   " R ", [%[out]], #1\n\t"                        \
  "cmp    %[out], %[end]\n\t"                             \
  "bne    1b\n\t"
// The tie fix-up of result R when the product's low word (in LOW) is zero too; T is free.
#define EMBER_ADD_TIE(R, LOW, T)                         \
  ".subsection 1\n"                                      \
  "3:\n\t"                                               \
  "cmp    " LOW ", #0\n\t"                                \
  "bne    2b\n\t"                                         \
  "ldr    " T ", %[zp]\n\t"                               \
  "sub    " R ", " R ", " T "\n\t"                        \
  "bic    " R ", " R ", #1\n\t"                           \
  "add    " R ", " R ", " T "\n\t"                        \
  "b      2b\n\t"                                         \
  ".previous\n\t"
  asm volatile(
#if EMBER_TIER == EMBER_TIER_DSP
      // h = SMMLA(sum, m, rh); the sum stays in x for a tie's low word, the result is y.
      EMBER_ADD_LOAD
      "smmla  %[h], %[x], %[m], %[rh]\n\t"
      "tst    %[h], %[low]\n\t"
      "asr    %[y], %[h], %[right]\n\t"
      "beq    4f\n\t"
      EMBER_ADD_STORE("%[y]")
      ".subsection 1\n"
      "4:\n\t"
      "mul    %[h], %[x], %[m]\n\t"
      "b      3f\n\t"
      ".previous\n\t"
      EMBER_ADD_TIE("%[y]", "%[h]", "%[h]")
#else
      // y:h = rh:0 + sum * m (SMLAL): h the high word, y the low one for a tie; the result is x.
      EMBER_ADD_LOAD
      "mov    %[h], %[rh]\n\t"
      "movs   %[y], #0\n\t"
      "smlal  %[y], %[h], %[x], %[m]\n\t"
      "tst    %[h], %[low]\n\t"
      "asr    %[x], %[h], %[right]\n\t"
      "beq    3f\n\t"
      EMBER_ADD_STORE("%[x]")
      EMBER_ADD_TIE("%[x]", "%[y]", "%[y]")
#endif
      : [x] "=&r"(x), [y] "=&r"(y), [h] "=&r"(h), [a] "+r"(a), [b] "+r"(b), [out] "+r"(out)
      : [ta] "r"(ta), [tb] "r"(tb), [end] "r"(end), [m] "r"(f.m), [rh] "r"(f.rh), [right] "r"(f.right),
        [low] "r"(f.low), [zp] "m"(zp)
      : "cc", "memory");
#undef EMBER_ADD_LOAD
#undef EMBER_ADD_STORE
#undef EMBER_ADD_TIE
}
#endif

}  // namespace

void add_s8_run_tables(const AddParamsS8& p, const int32_t* ta, const int8_t* a, const int32_t* tb, const int8_t* b,
                       int8_t* out, int32_t n) {
  const uint8_t* ua = reinterpret_cast<const uint8_t*>(a);
  const uint8_t* ub = reinterpret_cast<const uint8_t*>(b);
#if EMBER_TIER == EMBER_TIER_DSP || defined(__ARM_ARCH_7M__)
  FastOut f;
  if (n > 0 && fast_out(p.output_multiplier, p.output_shift, p.output_zp, p.act_min == -128 && p.act_max == 127, &f)) {
    run_tables_fast(f, p.output_zp, ta, ua, tb, ub, out, n);
    return;
  }
#endif
  const ChannelRequant q = channel_requant(p.output_multiplier, p.output_shift);
  const OutputClamp oc = output_clamp(p.output_zp, p.act_min, p.act_max);
  if (q.right >= 0) run_tables<true>(q, oc, ta, ua, tb, ub, out, n);
  else run_tables<false>(q, oc, ta, ua, tb, ub, out, n);
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
