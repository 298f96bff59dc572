//===- conv_common.h - Shapes and parameters shared by convolutions -*- C++ -*-===//
//
// The plain structs the convolution kernels (int8 and float, regular and depthwise) take, and
// the one shape check all of them share. Layouts: input NHWC, output NHWC, filter OHWI for a
// regular conv (I = C_in / groups), 1HWC for depthwise (C = C_in * depth_multiplier).

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

/// Sizes of one convolution. filter_c is the filter's last dim: C_in / groups for a regular
/// conv, out_c for depthwise.
struct Conv2dShape {
  int32_t batches;
  int32_t in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t filter_h, filter_w, filter_c;
};

/// Window geometry; the kernel's ints start with these six in this order.
/// Padding bottom/right is implied by the output size (see check_window_axis).
struct Conv2dGeometry {
  int32_t stride_h, stride_w;
  int32_t pad_top, pad_left;
  int32_t dilation_h, dilation_w;
};

/// int8 quantization of a conv/linear op: zero points of input and output in [-128, 127],
/// activation clamp bounds with -128 <= act_min <= act_max <= 127.
struct QuantS8 {
  int32_t input_zp, output_zp;
  int32_t act_min, act_max;
};

/// The k-th of `rows` output rows in the op's row order (kernels/kernels.def): k top-down,
/// counted from the last bottom-up.
inline int32_t row_in_order(int32_t k, int32_t rows, bool bottom_up) { return bottom_up ? rows - 1 - k : k; }

inline Conv2dGeometry conv_geometry_from(const int32_t* ints) {
  return Conv2dGeometry{ints[0], ints[1], ints[2], ints[3], ints[4], ints[5]};
}

/// Shape of a conv op from its operand views (rank 4 each, checked beforehand).
inline Conv2dShape conv_shape_from(const TensorView& in, const TensorView& filter,
                                   const TensorView& out) {
  return Conv2dShape{in.dims[0],     in.dims[1],     in.dims[2],     in.dims[3],
                     out.dims[1],    out.dims[2],    out.dims[3],    filter.dims[1],
                     filter.dims[2], filter.dims[3]};
}

/// Checks input/filter/output shapes (rank 4, dtypes already checked) and the geometry.
/// Regular: filter [O, KH, KW, C/groups], groups divides C and O. Depthwise: filter
/// [1, KH, KW, O], O a multiple of C. Output batch equals input batch.
inline Status check_conv_shapes(const TensorView& in, const TensorView& filter,
                                const TensorView& out, const Conv2dGeometry& g,
                                bool depthwise) {
  EMBER_KCHECK(in.rank == 4 && filter.rank == 4 && out.rank == 4, BadShape);
  const int32_t c = in.dims[3], o = out.dims[3];
  EMBER_KCHECK(c >= 1 && o >= 1 && in.dims[0] >= 1 && out.dims[0] == in.dims[0], BadShape);
  if (depthwise) {
    EMBER_KCHECK(filter.dims[0] == 1 && filter.dims[3] == o && o % c == 0, BadShape);
  } else {
    const int32_t fc = filter.dims[3];
    EMBER_KCHECK(filter.dims[0] == o && fc >= 1 && c % fc == 0, BadShape);
    EMBER_KCHECK(o % (c / fc) == 0, BadShape);
  }
  EMBER_RETURN_IF_ERROR(check_window_axis(in.dims[1], out.dims[1], filter.dims[1], g.stride_h,
                                          g.pad_top, g.dilation_h, false));
  EMBER_RETURN_IF_ERROR(check_window_axis(in.dims[2], out.dims[2], filter.dims[2], g.stride_w,
                                          g.pad_left, g.dilation_w, false));
  return Status::Ok;
}

/// Checks the int8 quantization parameters of a conv/linear op.
inline Status check_quant_s8(const QuantS8& q) {
  EMBER_KCHECK(valid_zero_point(q.input_zp) && valid_zero_point(q.output_zp), BadQuantization);
  EMBER_KCHECK(valid_act_s8(q.act_min, q.act_max), BadOpParameter);
  return Status::Ok;
}

/// Checks the optional int32 bias and the per-channel multiplier/shift vectors (length o).
/// The run uses multiplier and shift values as parameters (a shift out of [-31, 30] would be an
/// undefined shift), so they must be constants in the program file, whose values are readable
/// at load time, and every value is checked here, unless `values` is false: then the caller
/// checks them itself (an optimized tier's valid_requantization, kernels/arm/operands.h).
inline Status check_per_channel(const OpContext& c, size_t bias, int32_t o, bool values = true) {
  const TensorView& b = c.in(bias);
  const TensorView& m = c.in(bias + 1);
  const TensorView& s = c.in(bias + 2);
  if (!is_absent(b)) {
    EMBER_KCHECK(valid_view(b) && b.dtype == DType::Int32, BadOpSignature);
    EMBER_KCHECK(b.rank == 1 && b.dims[0] == o, BadShape);
  }
  EMBER_KCHECK(valid_view(m) && valid_view(s), BadShape);
  EMBER_KCHECK(m.dtype == DType::Int32 && s.dtype == DType::Int32, BadOpSignature);
  EMBER_KCHECK(m.rank == 1 && s.rank == 1 && m.dims[0] == o && s.dims[0] == o, BadQuantization);
  EMBER_KCHECK(m.constant && s.constant, BadOpSignature);
  const int32_t* multiplier = m.as<const int32_t>();
  const int32_t* shift = s.as<const int32_t>();
  if (multiplier == nullptr || shift == nullptr) return Status::Ok;  // unit tests of shapes only
  EMBER_KCHECK(!values || valid_requantization(multiplier, shift, o), BadQuantization);
  return Status::Ok;
}

}  // namespace ember::kernels
