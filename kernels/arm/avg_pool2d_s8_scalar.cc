//===- avg_pool2d_s8_scalar.cc - avg_window_s8 in plain Thumb-2 ------------===//
//
// Per tap a load and an add for each channel, its sum kept in a register over the clipped window
// (no bounds checks, no index arithmetic), then one division. The DSP tier takes four channels
// per word load with SXTAB16 (windows of up to 255 taps per row), the Cortex-M3 four per word
// load too; the remaining channels, and the Cortex-M0, go channel by channel.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP

#include "ember/kernels/arm/avg_pool2d_s8.h"

#include "ember/kernels/arm/primitives_scalar.h"

#if EMBER_TIER == EMBER_TIER_DSP
#include "ember/kernels/arm/primitives_dsp.h"
#endif

namespace ember::kernels::arm {

#if EMBER_TIER == EMBER_TIER_DSP
namespace {

// Taps a 16-bit lane sum can take: 255 * 128 = 32,640 < 2^15.
constexpr int32_t kLaneTaps = 255;

// acc's two int16 lanes plus the odd bytes (b1, b3) of word, one SXTAB16 (as sxtb16_odd).
inline uint32_t sxtab16_odd(uint32_t acc, uint32_t word) {
  uint32_t r;
  asm("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(acc), "r"(word));
  return r;
}

// Four channels from c on: per tap one word load and two SXTAB16 into 16-bit lane sums (even
// channels, odd channels), moved into 32-bit sums before a row could take a lane past kLaneTaps.
void four_channels(const AvgWindowS8& w, int32_t c, int8_t* out) {
  int32_t sum[4] = {0, 0, 0, 0};
  uint32_t even = 0, odd = 0;
  int32_t taps = 0;
  const auto flush = [&] {
    sum[0] += static_cast<int16_t>(even), sum[2] += static_cast<int32_t>(even) >> 16;
    sum[1] += static_cast<int16_t>(odd), sum[3] += static_cast<int32_t>(odd) >> 16;
    even = odd = 0, taps = 0;
  };
  const int8_t* row = w.first + c;
  for (int32_t ky = 0; ky < w.ny; ++ky, row += w.row_step) {
    if (taps + w.nx > kLaneTaps) flush();
    const int8_t* p = row;
    for (int32_t kx = 0; kx < w.nx; ++kx, p += w.col_step) {
      const uint32_t x = read_u32(p);
      even = static_cast<uint32_t>(__sxtab16(static_cast<int32_t>(even), static_cast<int32_t>(x)));
      odd = sxtab16_odd(odd, x);
    }
    taps += w.nx;
  }
  flush();
  for (int32_t k = 0; k < 4; ++k) out[c + k] = avg_finish_s8(sum[k], w);
}

}  // namespace
#elif defined(__ARM_ARCH_7M__)
namespace {

// The Cortex-M3 (no SIMD): four channels from c on, per tap one word load (unaligned loads are
// legal on Armv7-M, not on the Cortex-M0) and each byte sign-extended into its own sum.
void four_channels(const AvgWindowS8& w, int32_t c, int8_t* out) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const int8_t* row = w.first + c;
  for (int32_t ky = 0; ky < w.ny; ++ky, row += w.row_step) {
    const int8_t* p = row;
    for (int32_t kx = 0; kx < w.nx; ++kx, p += w.col_step) {
      const uint32_t x = read_u32(p);
      s0 += static_cast<int8_t>(x), s1 += static_cast<int8_t>(x >> 8);
      s2 += static_cast<int8_t>(x >> 16), s3 += static_cast<int32_t>(x) >> 24;
    }
  }
  const int32_t sum[4] = {s0, s1, s2, s3};
  for (int32_t k = 0; k < 4; ++k) out[c + k] = avg_finish_s8(sum[k], w);
}

}  // namespace
#endif

void avg_window_s8(const AvgWindowS8& w, int8_t* out) {
  int32_t c = 0;
#if EMBER_TIER == EMBER_TIER_DSP
  if (w.nx <= kLaneTaps)
    for (; c + 4 <= w.channels; c += 4) four_channels(w, c, out);
#elif defined(__ARM_ARCH_7M__)
  for (; c + 4 <= w.channels; c += 4) four_channels(w, c, out);
#endif
  for (; c < w.channels; ++c) {
    int32_t sum = 0;
    const int8_t* row = w.first + c;
    for (int32_t ky = 0; ky < w.ny; ++ky, row += w.row_step) {
      const int8_t* p = row;
      for (int32_t kx = 0; kx < w.nx; ++kx, p += w.col_step) sum += *p;
    }
    out[c] = avg_finish_s8(sum, w);
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_SCALAR || EMBER_TIER == EMBER_TIER_DSP
