//===- in_place_test.h - Row-streaming kernels run over their own input -*- C++ -*-===//
//
// The tier tests' check of the in-place contract in kernels/kernels.def: a conv or depthwise
// case (batch 1) runs again with its output over its input, at the least distance the
// contract allows in each direction, and must give the same bytes as the portable kernel
// run apart; and check_conv_case, the rest of a conv or depthwise case's checks around it. The distances are computed here from the contract's text (a fourth
// implementation beside compiler/in_place.cc, runtime/program_verifier.cc and
// tests/plan_check.py, so a kernel is not checked against the planner's own arithmetic).

#pragma once

#include <stdint.h>
#include <string.h>

#include "ember/kernels/arm/tier_test.h"
#include "ember/runtime/op_context.h"

namespace ember::kernels::arm::testing {

/// A row-streaming op's geometry along y, for the distances below (batch 1, NHWC).
struct RowStream {
  int32_t in_h, in_row_bytes;     // input rows and bytes per row
  int32_t out_h, out_w, pixel;    // output rows, pixels per row, bytes per pixel
  int32_t stride, pad_top, window;  // window = dilation_h * (KH - 1) + 1
  int32_t block;                  // B: 4 for conv2d_s8, 1 for depthwise_conv2d_s8
};

/// Top-down: output pixel q ends at or below input row max(0, row(q - B + 1) * stride -
/// pad_top). Returns how far below the input the output must start at least.
inline int32_t least_below(const RowStream& r) {
  int32_t need = 0;
  const int32_t total = r.out_h * r.out_w;
  for (int32_t q = 0; q < total; ++q) {
    const int32_t back = q - r.block + 1 < 0 ? 0 : q - r.block + 1;
    int32_t first = (back / r.out_w) * r.stride - r.pad_top;
    first = first < 0 ? 0 : (first > r.in_h ? r.in_h : first);
    const int32_t d = (q + 1) * r.pixel - first * r.in_row_bytes;
    need = d > need ? d : need;
  }
  return need;
}

/// Bottom-up: output pixel q starts at or above the end of input row
/// min(in_h - 1, row(q + B - 1) * stride - pad_top + window - 1). Returns how far above the
/// input's start the output must start at least.
inline int32_t least_above(const RowStream& r) {
  int32_t need = 0;
  const int32_t total = r.out_h * r.out_w;
  for (int32_t q = 0; q < total; ++q) {
    const int32_t ahead = q + r.block - 1 < total ? q + r.block - 1 : total - 1;
    int32_t last = (ahead / r.out_w) * r.stride - r.pad_top + r.window - 1;
    last = last < -1 ? -1 : (last >= r.in_h ? r.in_h - 1 : last);
    const int32_t d = (last + 1) * r.in_row_bytes - q * r.pixel;
    need = d > need ? d : need;
  }
  return need;
}

/// Runs `run(ctx)` with input 0 copied into `arena` and output 0 over it: top-down at
/// least_below, then bottom-up at least_above, then each one byte further (a distance that is
/// not a whole number of pixels: depthwise_conv2d_s8 then takes its row-at-a-time path). True
/// when all give `want` (out_bytes bytes). `arena` holds at least in_bytes + out_bytes + 1
/// bytes. The views in ctx are copied, not changed.
template <typename Run>
bool in_place_matches(const rt::OpContext& ctx, const RowStream& r, Run run, int8_t* arena, int32_t in_bytes,
                      int32_t out_bytes, const int8_t* want) {
  rt::TensorView ins[8], outs[2];
  for (size_t i = 0; i < ctx.num_inputs && i < 8; ++i) ins[i] = ctx.inputs[i];
  for (size_t i = 0; i < ctx.num_outputs && i < 2; ++i) outs[i] = ctx.outputs[i];
  const int8_t* input = ctx.in(0).as<const int8_t>();
  bool ok = true;
  for (int run_index = 0; run_index < 4; ++run_index) {
    const int bottom_up = run_index % 2, extra = run_index / 2;
    const int32_t below = least_below(r) + extra, above = least_above(r) + extra;
    int8_t* in = bottom_up ? arena : arena + below;
    int8_t* out = bottom_up ? arena + above : arena;
    // below <= out_bytes + 1 and above <= in_bytes + 1: every layout fits.
    memset(arena, 0x55, static_cast<size_t>(in_bytes) + static_cast<size_t>(out_bytes) + 1);
    memcpy(in, input, static_cast<size_t>(in_bytes));
    ins[0].data = in, outs[0].data = out;
    rt::OpContext c = ctx;
    c.inputs = ins, c.outputs = outs, c.rows_bottom_up = bottom_up != 0;
    run(c);
    ok = ok && memcmp(out, want, static_cast<size_t>(out_bytes)) == 0;
  }
  return ok;
}

/// Case `index` of a conv or depthwise test, counted in `o`: the optimized check and run
/// against `want` (out_bytes bytes, then 16 guard bytes of 0x55 in output 0); for batch 1
/// the same in place (in_place_matches); then the host tools' check, which must accept the
/// folded bias (input 5) and refuse it one off in its last channel. `optimized`: the case
/// takes an optimized path, not the portable fallback.
inline void check_conv_case(Outcome& o, int32_t index, const rt::OpContext& ctx, KernelFn check, KernelFn run,
                            KernelFn check_with_fold, bool optimized, const RowStream& rs, int8_t* arena,
                            int32_t in_bytes, int32_t out_bytes, const int8_t* want) {
  ++o.cases;
  bool bad = false;
  if (check(ctx) != rt::Status::Ok) {
    ++o.rejected;
    bad = true;
  } else {
    // A scratch output (its buffer 16 bytes longer) must not be overrun either.
    int8_t* scratch = ctx.num_outputs > 1 ? ctx.out(1).as<int8_t>() : nullptr;
    const int32_t scratch_bytes = scratch != nullptr ? ctx.out(1).dims[0] : 0;
    for (int32_t j = 0; j < 16 && scratch != nullptr; ++j) scratch[scratch_bytes + j] = 0x55;
    run(ctx);
    const int8_t* got = ctx.out(0).as<const int8_t>();
    for (int32_t j = 0; j < out_bytes; ++j) bad |= got[j] != want[j];
    for (int32_t j = out_bytes; j < out_bytes + 16; ++j) bad |= got[j] != 0x55;  // no overrun
    for (int32_t j = 0; j < 16 && scratch != nullptr; ++j) bad |= scratch[scratch_bytes + j] != 0x55;
    if (optimized) ++o.optimized;
    if (ctx.in(0).dims[0] == 1) bad |= !in_place_matches(ctx, rs, run, arena, in_bytes, out_bytes, want);
  }
  int32_t* folded = ctx.in(5).as<int32_t>();
  const int32_t last = ctx.in(5).dims[0] - 1;
  bad |= check_with_fold(ctx) != check(ctx);
  ++folded[last];
  bad |= check(ctx) == rt::Status::Ok && check_with_fold(ctx) != rt::Status::BadQuantization;
  --folded[last];
  if (bad) {
    ++o.mismatches;
    if (o.first_bad < 0) o.first_bad = index;
  }
}

}  // namespace ember::kernels::arm::testing
