//===- lut_s8.h - Optimized int8 table lookup -------------------*- C++ -*-===//
//
// The same op as kernels/portable/lut_s8.h for the built tier. The entry (lut_s8.cc) is
// tier-independent; lut_s8_run (lut_s8_{scalar,mve}.cc; the DSP tier uses the scalar one) is
// the loop. The output may alias the input (in-place planning): each element is read before
// its output is written.

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels::arm {

/// out[i] = table[in[i] + 128] for i < n. One implementation per tier.
void lut_s8_run(const int8_t* table, const int8_t* in, int8_t* out, int32_t n);

rt::Status check_lut_s8(const rt::OpContext& ctx);
rt::Status run_lut_s8(const rt::OpContext& ctx);

}  // namespace ember::kernels::arm
