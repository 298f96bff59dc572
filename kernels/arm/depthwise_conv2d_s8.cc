//===- depthwise_conv2d_s8.cc - Optimized int8 depthwise: checks, dispatch ===//
//
// Row order (the in-place contract of kernels/kernels.def): the tier's body writes each
// channel's rows in the op's direction, but may finish one channel group over every row
// before the next group reads its input (the MVE one does). Each channel's output depends on
// the same channel's input only, so when the output sits a whole number of pixels from the
// input every output byte lands on its own channel's input, and the contract holds channel
// by channel: the body runs once. Otherwise an overlapping op runs the body one output row
// at a time, in the op's direction, which is row-major order over all channels: a row's
// output lies wholly below (above) the input rows it reads.

#include "ember/kernels/arm/depthwise_conv2d_s8.h"

#include <string.h>

#include "ember/kernels/arm/fold.h"
#include "ember/kernels/arm/operands.h"
#include "ember/kernels/portable/conv2d_s8.h"
#include "ember/kernels/portable/depthwise_conv2d_s8.h"

namespace ember::kernels::arm {
namespace {

// Whether two byte ranges share a byte. Compared as integers: the views may belong to
// different objects (then they never overlap).
bool overlap(const void* a, size_t na, const void* b, size_t nb) {
  const uintptr_t pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  return na != 0 && nb != 0 && pa < pb + nb && pb < pa + na;
}

// Whether a and b are a whole number of `pixel`-byte steps apart.
bool whole_pixels_apart(const void* a, const void* b, size_t pixel) {
  const uintptr_t pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  return (pa > pb ? pa - pb : pb - pa) % pixel == 0;
}

// A map one pixel wide with a window down its height (streaming wakeword's 1-D layers) is, byte
// for byte, a map one pixel high with the window along its width: the filter [1, KH, 1, C] is
// [1, 1, KH, C]. The bodies take a row of pixels in one pass but pay a row's set-up per row, so
// the column runs as one row. The pixels keep their order; a bottom-up op (rows last-first)
// keeps its shape, and so does a single output pixel (nothing to gain).
void column_as_row(DepthwiseS8& d) {
  Conv2dShape& s = d.shape;
  Conv2dGeometry& g = d.geometry;
  if (s.in_w != 1 || s.out_w != 1 || s.filter_w != 1 || g.pad_left != 0 || s.out_h == 1 || d.rows_bottom_up) return;
  s.in_w = s.in_h, s.out_w = s.out_h, s.filter_w = s.filter_h;
  s.in_h = s.out_h = s.filter_h = 1;
  g.stride_w = g.stride_h, g.pad_left = g.pad_top, g.dilation_w = g.dilation_h;
  g.stride_h = g.dilation_h = 1, g.pad_top = 0;
}

// The MVE kernel's strip is its scratch: without room for it, or off a 16-byte boundary, the
// portable kernel runs.
bool mve_strip_missing(const DepthwiseS8& d) {
  return kBuiltTier == Tier::Mve &&
         (d.scratch_bytes < kDepthwiseStripBytes || reinterpret_cast<uintptr_t>(d.scratch) % 16 != 0);
}

// n input bytes with each repeated m times.
void repeat_bytes(const int8_t* src, int8_t* dst, size_t n, int32_t m) {
  for (size_t i = 0; i < n; ++i) {
    const int8_t v = src[i];
    for (int32_t j = 0; j < m; ++j) *dst++ = v;
  }
}

// Depth multiplier M > 1 (depthwise_expanded_bytes): one output row at a time, in the op's
// direction, over a copy of its window rows with each channel repeated M times. A row's
// window is copied before the row is written: an in-place op's output rows never cover
// input rows that later rows read (kernels/kernels.def), so every row reads the input the
// portable kernel reads.
rt::Status run_expanded(const rt::OpContext& c, DepthwiseS8& d) {
  const Conv2dShape s = d.shape;
  const Conv2dGeometry g = d.geometry;
  const size_t expanded = depthwise_expanded_bytes(s);
  if (d.scratch_bytes < expanded) return kernels::run_depthwise_conv2d_s8(c);
  int8_t* const rows = d.scratch;
  d.scratch += expanded, d.scratch_bytes -= expanded;
  if (mve_strip_missing(d)) return kernels::run_depthwise_conv2d_s8(c);
  const int32_t m = s.out_c / s.in_c;
  const size_t in_row = static_cast<size_t>(s.in_w) * static_cast<size_t>(s.in_c);
  const size_t row_bytes = in_row * static_cast<size_t>(m);
  const size_t out_row = static_cast<size_t>(s.out_w) * static_cast<size_t>(s.out_c);
  const int8_t* const input = d.input;
  int8_t* const output = d.output;
  expanded_row_op(d.shape, d.geometry);
  d.input = rows, d.disjoint = true, d.rows_bottom_up = false;
  const int32_t total = s.batches * s.out_h;
  for (int32_t k = 0; k < total; ++k) {
    const int32_t row = row_in_order(k, total, c.rows_bottom_up), n = row / s.out_h, y = row % s.out_h;
    for (int32_t ky = 0; ky < s.filter_h; ++ky) {
      const int32_t iy = y * g.stride_h - g.pad_top + ky * g.dilation_h;
      int8_t* const dst = rows + static_cast<size_t>(ky) * row_bytes;
      if (iy >= 0 && iy < s.in_h)
        repeat_bytes(input + (static_cast<size_t>(n) * static_cast<size_t>(s.in_h) + static_cast<size_t>(iy)) * in_row,
                     dst, in_row, m);
      else
        memset(dst, d.quant.input_zp, row_bytes);
    }
    d.output = output + static_cast<size_t>(row) * out_row;
    depthwise_conv2d_s8_body(d);
  }
  return Status::Ok;
}

}  // namespace

template <Tier T>
rt::Status check_depthwise_conv2d_s8_as(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(kernels::check_conv_any_s8(c, true, false));
  EMBER_RETURN_IF_ERROR(check_requantization_values(c, c.in(1).dims[3]));
  EMBER_RETURN_IF_ERROR(check_added_operands(c, c.in(1).dims[3]));
  // The tier's kernel runs with the folded bias (run below); the filter is then a constant
  // with data (check_added_operands), read once here at load.
  const TensorView& filter = c.in(1);
  if (has_folded_bias(c))
    EMBER_KCHECK(depthwise_conv2d_s8_takes_filter(filter.as<const int8_t>(), filter.num_elements(), T),
                 BadQuantization);
  return Status::Ok;
}

template <Tier T>
rt::Status check_depthwise_conv2d_s8_with_fold_as(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(check_depthwise_conv2d_s8_as<T>(c));
  const TensorView& filter = c.in(1);
  const int32_t o = filter.dims[3];
  return check_folded_bias(c, o, [&](int32_t i) {
    return folded_bias_depthwise(filter.as<const int8_t>(), filter.dims[1] * filter.dims[2], o,
                                 c.in(2).as<const int32_t>(), c.ints[6], i);
  });
}

template rt::Status check_depthwise_conv2d_s8_as<Tier::Scalar>(const rt::OpContext&);
template rt::Status check_depthwise_conv2d_s8_as<Tier::Dsp>(const rt::OpContext&);
template rt::Status check_depthwise_conv2d_s8_as<Tier::Mve>(const rt::OpContext&);
template rt::Status check_depthwise_conv2d_s8_with_fold_as<Tier::Scalar>(const rt::OpContext&);
template rt::Status check_depthwise_conv2d_s8_with_fold_as<Tier::Dsp>(const rt::OpContext&);
template rt::Status check_depthwise_conv2d_s8_with_fold_as<Tier::Mve>(const rt::OpContext&);

rt::Status check_depthwise_conv2d_s8(const rt::OpContext& c) { return check_depthwise_conv2d_s8_as<kBuiltTier>(c); }

rt::Status check_depthwise_conv2d_s8_with_fold(const rt::OpContext& c) {
  return check_depthwise_conv2d_s8_with_fold_as<kBuiltTier>(c);
}

rt::Status run_depthwise_conv2d_s8(const rt::OpContext& c) {
  const Conv2dShape s = conv_shape_from(c.in(0), c.in(1), c.out(0));
  if (!has_folded_bias(c)) return kernels::run_depthwise_conv2d_s8(c);
  DepthwiseS8 d{s,
                conv_geometry_from(c.ints),
                QuantS8{c.ints[6], c.ints[7], c.ints[8], c.ints[9]},
                c.in(0).as<const int8_t>(),
                c.in(1).as<const int8_t>(),
                c.in(kFoldedBias).as<const int32_t>(),
                c.in(3).as<const int32_t>(),
                c.in(4).as<const int32_t>(),
                c.out(0).as<int8_t>(),
                is_absent(c.in(2)) ? nullptr : c.in(2).as<const int32_t>(),
                c.rows_bottom_up};
  d.scratch = c.num_outputs > kScratch ? c.out(kScratch).as<int8_t>() : nullptr;
  d.scratch_bytes = scratch_bytes_given(c);
  if (s.out_c != s.in_c) return run_expanded(c, d);
  if (mve_strip_missing(d)) return kernels::run_depthwise_conv2d_s8(c);
  d.disjoint = !overlap(d.input, c.in(0).num_elements(), d.output, c.out(0).num_elements());
  if (d.disjoint || whole_pixels_apart(d.input, d.output, static_cast<size_t>(s.in_c))) {
    column_as_row(d);
    depthwise_conv2d_s8_body(d);
    return Status::Ok;
  }
  // One output row per call: batch 1, height 1, the window's top moved by pad_top (negative
  // below the first row; depthwise_conv2d_s8.h allows it). d itself is the call's op (a copy
  // would add its bytes to the stack bound of every kernel below).
  const int32_t rows = s.batches * s.out_h;
  const size_t in_image = static_cast<size_t>(s.in_h) * s.in_w * s.in_c;
  const size_t out_row = static_cast<size_t>(s.out_w) * s.out_c;
  const int8_t* const input = d.input;
  int8_t* const output = d.output;
  const int32_t pad_top = d.geometry.pad_top;
  d.shape.batches = 1, d.shape.out_h = 1, d.rows_bottom_up = false;
  for (int32_t k = 0; k < rows; ++k) {
    const int32_t row = row_in_order(k, rows, c.rows_bottom_up), n = row / s.out_h, y = row % s.out_h;
    d.input = input + static_cast<size_t>(n) * in_image;
    d.output = output + static_cast<size_t>(row) * out_row;
    d.geometry.pad_top = pad_top - y * d.geometry.stride_h;
    depthwise_conv2d_s8_body(d);
  }
  return Status::Ok;
}

}  // namespace ember::kernels::arm
