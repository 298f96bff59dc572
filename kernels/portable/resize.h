//===- resize.h - Nearest and bilinear resizing (upsampling) ----*- C++ -*-===//
//
// F.interpolate / nn.Upsample. Nearest moves bytes on every axis whose size changes (source
// index floor(dst * in / out), PyTorch's "nearest" for whole-number scale factors), so one
// kernel serves int8 and float32 in any layout. Bilinear interpolates two axes, given as
// parameters (H and W wherever the layout put them), at PyTorch's source coordinates:
//   align_corners false: src = max(0, (dst + 0.5) * in / out - 0.5)
//   align_corners true:  src = dst * (in - 1) / (out - 1)   (0 when out is 1)
// Both are exact fractions n / D (D = 2 * out, or out - 1), so the int8 kernel computes the
// 2x2 weighted sum in integers, over D_h * D_w, and rounds once, half to even: the float
// result rounded as quantize would. Input and output share scale and zero point (the weights
// sum to one, so the zero point needs no correction).

#pragma once

#include <stdint.h>

#include "ember/runtime/op_context.h"

namespace ember::kernels {

/// resize_nearest: input -> output of the same dtype (int8 or float32) and rank; on every axis
/// out[.., j, ..] = in[.., j * in_d / out_d, ..]. No parameters.
rt::Status check_resize_nearest(const rt::OpContext& ctx);
rt::Status run_resize_nearest(const rt::OpContext& ctx);

/// resize_bilinear_s8 / _f32: input -> output, same rank; only axes axis_h < axis_w may change
/// size. ints: axis_h, axis_w, align_corners (0 or 1).
rt::Status check_resize_bilinear_s8(const rt::OpContext& ctx);
rt::Status run_resize_bilinear_s8(const rt::OpContext& ctx);
rt::Status check_resize_bilinear_f32(const rt::OpContext& ctx);
rt::Status run_resize_bilinear_f32(const rt::OpContext& ctx);

}  // namespace ember::kernels
