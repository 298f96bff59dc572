//===- tier.h - The kernel tier this build compiles -------------*- C++ -*-===//
//
// Maps the compiler's architecture macros to one EMBER_TIER value, as CMSIS-NN's
// arm_nn_math_types.h does: MVE (Helium, __ARM_FEATURE_MVE: Cortex-M55/M85), DSP (the ACLE
// SIMD32 instructions, __ARM_FEATURE_DSP: Cortex-M4/M7/M33), otherwise scalar (Cortex-M0/M3 and
// the host). Every tier file (kernels/arm/<stem>_{scalar,dsp,mve}.cc) sits wholly under one
// `#if EMBER_TIER == ...`; a file not for the built tier compiles to nothing. There is no
// run-time dispatch. EMBER_FORCE_TIER_SCALAR builds the scalar tier on any core (tests).
//
// Tier is also what the compiler passes to the host-callable <kernel>_scratch_bytes(): it
// sizes scratch for the target's tier, not the host's.

#pragma once

#define EMBER_TIER_SCALAR 1
#define EMBER_TIER_DSP 2
#define EMBER_TIER_MVE 3

#if defined(EMBER_FORCE_TIER_SCALAR)
#define EMBER_TIER EMBER_TIER_SCALAR
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define EMBER_TIER EMBER_TIER_MVE
#elif defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#define EMBER_TIER EMBER_TIER_DSP
#else
#define EMBER_TIER EMBER_TIER_SCALAR
#endif

namespace ember::kernels {

/// A kernel tier, as the compiler's Target::tier names it. Portable means the reference kernels
/// only (no optimized kernel, no scratch).
enum class Tier : unsigned char { Portable = 0, Scalar = 1, Dsp = 2, Mve = 3 };

/// The tier this translation unit is built for.
inline constexpr Tier kBuiltTier = static_cast<Tier>(EMBER_TIER);

/// "scalar", "dsp", "mve" or "portable".
inline constexpr const char* tier_name(Tier t) {
  return t == Tier::Mve ? "mve" : t == Tier::Dsp ? "dsp" : t == Tier::Scalar ? "scalar" : "portable";
}

}  // namespace ember::kernels
