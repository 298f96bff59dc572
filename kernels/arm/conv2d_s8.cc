//===- conv2d_s8.cc - Optimized int8 convolution: checks, dispatch, outer loops ===//
//
// Tier-independent: the inner products are mat_mult_s8 (one per tier). The im2col rows hold
// raw int8 activations, with input_zp in place of padding: folded + sum x * w over the whole
// window then equals the portable bias + sum over the valid taps of (x - input_zp) * w.
//
// Row order (the in-place contract of kernels/kernels.def): top-down, the paths run as one
// pass over the pixels. With ctx.rows_bottom_up the output may overlap the upper end of the
// input, so the tier's product is called on the last rows first: one output row at a time
// (im2col, strided pointwise), or one block of pixels at a time, last block first (pointwise
// over the whole plane). A tier's product may sweep all its rows once per group of output
// channels, so a call that reads the input in place (pointwise) covers at most kInPlaceBlock
// pixels when the output overlaps the input: the contract's B. im2col gathers a block's
// windows into scratch before it writes any of the block's pixels, so its block size is free.

#include "ember/kernels/arm/conv2d_s8.h"

#include "ember/kernels/arm/fold.h"
#include "ember/kernels/arm/operands.h"
#include "ember/kernels/arm/pool_window.h"
#include "ember/kernels/arm/primitives_scalar.h"
#include "ember/kernels/portable/conv2d_s8.h"

namespace ember::kernels::arm {
namespace {

// The pixels a product call over its own input may always take: B = 4 of kernels/kernels.def.
constexpr int32_t kInPlaceBlock = 4;

MatMultS8 base_args(const rt::OpContext& c, const Conv2dShape& s, const QuantS8& q) {
  MatMultS8 m{};
  m.rhs = c.in(1).as<const int8_t>();
  m.cols = s.out_c;
  m.depth = s.filter_h * s.filter_w * s.in_c;
  m.bias = c.in(kFoldedBias).as<const int32_t>();
  m.multiplier = c.in(3).as<const int32_t>();
  m.shift = c.in(4).as<const int32_t>();
  m.output_zp = q.output_zp, m.act_min = q.act_min, m.act_max = q.act_max;
  m.out_stride = s.out_c;
  return m;
}

void pointwise(MatMultS8 m, const Conv2dShape& s, const Conv2dGeometry& g, const int8_t* input,
               int8_t* output, bool bottom_up) {
  if (g.stride_h == 1 && g.stride_w == 1 && s.out_h == s.in_h && s.out_w == s.in_w) {
    const int32_t total = s.batches * s.out_h * s.out_w;
    m.lhs_stride = s.in_c;
    const uintptr_t in = reinterpret_cast<uintptr_t>(input), out = reinterpret_cast<uintptr_t>(output);
    if (out >= in + static_cast<size_t>(total) * s.in_c || in >= out + static_cast<size_t>(total) * s.out_c) {
      m.lhs = input, m.rows = total, m.out = output;  // not in place: one call
      mat_mult_s8(m);
      return;
    }
    // In place: pixel p reads input pixel p only, but the product may sweep a call's pixels
    // once per column group, so a call [a, e) must not write over its own inputs. Each call
    // takes as many pixels as the buffers' actual distance allows, and at least
    // kInPlaceBlock, which the plan's distance guarantees (kernels/kernels.def). Top-down
    // (output below): out + e * Co <= in + a * Ci. Bottom-up, calls from the end down (output
    // above): out + a * Co >= in + e * Ci.
    const int64_t ci = s.in_c, co = s.out_c, apart = static_cast<int64_t>(out) - static_cast<int64_t>(in);
    for (int32_t done = 0; done < total;) {
      const int32_t left = total - done;
      const int64_t fit = bottom_up ? (apart + left * (co - ci)) / co : (-apart + done * (ci - co)) / co;
      const int32_t n = fit >= left ? left : fit > kInPlaceBlock ? static_cast<int32_t>(fit)
                                                                 : (kInPlaceBlock < left ? kInPlaceBlock : left);
      const int32_t first = bottom_up ? left - n : done;
      m.lhs = input + static_cast<size_t>(first) * s.in_c;
      m.out = output + static_cast<size_t>(first) * s.out_c;
      m.rows = n;
      mat_mult_s8(m);
      done += n;
    }
    return;
  }
  m.rows = s.out_w, m.lhs_stride = g.stride_w * s.in_c;
  const int32_t rows = s.batches * s.out_h;
  for (int32_t k = 0; k < rows; ++k) {
    const int32_t row = row_in_order(k, rows, bottom_up), n = row / s.out_h, y = row % s.out_h;
    m.lhs = input + ((static_cast<size_t>(n) * s.in_h + static_cast<size_t>(y) * g.stride_h) * s.in_w) * s.in_c;
    m.out = output + static_cast<size_t>(row) * s.out_w * s.out_c;
    mat_mult_s8(m);
  }
}

// One im2col row at the border: the window of output pixel (n, y, x), KH x KW x C bytes, with
// input_zp where it leaves the input. Out of im2col_run's loop, which copies interior windows.
// With dilation_w 1 every window row has the same padding taps [0, lo), input taps [lo, hi)
// and padding taps [hi, filter_w), found once per pixel: the whole window is filled with
// input_zp in one pass, then each row inside the input copies its taps [lo, hi). (kws's conv1
// has 4 taps of one channel per row: a fill and a copy per row cost their set-up, not bytes.)
__attribute__((noinline)) void gather_border(const Conv2dShape& s, const Conv2dGeometry& g, int8_t pad,
                                             const int8_t* input, int32_t n, int32_t y, int32_t x, int8_t* row) {
  const int32_t c = s.in_c, run = s.filter_w * c;
  const int32_t iy0 = y * g.stride_h - g.pad_top, ix0 = x * g.stride_w - g.pad_left;
  const int8_t* image = input + static_cast<size_t>(n) * s.in_h * s.in_w * c;
  const size_t line = static_cast<size_t>(s.in_w) * c;
  if (g.dilation_w == 1) {
    const int32_t lo = ix0 < 0 ? (-ix0 < s.filter_w ? -ix0 : s.filter_w) : 0;
    const int32_t right = s.in_w - ix0;  // taps before the input's right edge
    const int32_t hi = right < s.filter_w ? (right > lo ? right : lo) : s.filter_w;
    im2col_fill_s8(row, pad, s.filter_h * run);
    if (hi == lo) return;
    row += lo * c;
    const int8_t* src = image + static_cast<ptrdiff_t>(ix0 + lo) * c;
    for (int32_t ky = 0; ky < s.filter_h; ++ky, row += run) {
      const int32_t iy = iy0 + ky * g.dilation_h;
      if (iy >= 0 && iy < s.in_h) im2col_copy_s8(row, src + static_cast<size_t>(iy) * line, (hi - lo) * c);
    }
    return;
  }
  for (int32_t ky = 0; ky < s.filter_h; ++ky) {
    const int32_t iy = iy0 + ky * g.dilation_h;
    if (iy < 0 || iy >= s.in_h) {
      im2col_fill_s8(row, pad, run);
      row += run;
      continue;
    }
    for (int32_t kx = 0; kx < s.filter_w; ++kx, row += c) {
      const int32_t ix = ix0 + kx * g.dilation_w;
      if (ix < 0 || ix >= s.in_w) im2col_fill_s8(row, pad, c);
      else im2col_copy_s8(row, image + static_cast<size_t>(iy) * line + static_cast<size_t>(ix) * c, c);
    }
  }
}

// Pixels [begin, end) in row-major order, gathered and multiplied a block at a time. A window
// inside the input is filter_h runs of filter_w * C bytes. Per output row, whether its window
// rows lie inside the input is found once; the columns [x_lo, x_hi) whose windows lie inside
// along x once per call. Such a pixel's runs start xstep bytes after its left neighbour's.
void im2col_run(MatMultS8 m, const Conv2dShape& shape, const Conv2dGeometry& geometry, int8_t pad,
                const int8_t* input, int8_t* scratch, int32_t block, int8_t* output, int32_t begin, int32_t end) {
  // Copies: the gathers' stores (on MVE an asm with a memory clobber) would make GCC reload every
  // field of the referenced structs for each window row.
  const Conv2dShape s = shape;
  const Conv2dGeometry g = geometry;
  m.lhs = scratch, m.lhs_stride = m.depth;
  const int32_t run = s.filter_w * s.in_c, xstep = g.stride_w * s.in_c;
  const size_t step = static_cast<size_t>(g.dilation_h) * s.in_w * s.in_c;
  int32_t x_lo = 0, x_hi = 0;  // none inside with dilation_w > 1: the border path copies each tap
  if (g.dilation_w == 1) interior_x(s, g, &x_lo, &x_hi);
  int32_t filled = 0, first = begin;
  int32_t x = begin % s.out_w, y = (begin / s.out_w) % s.out_h, n = begin / (s.out_w * s.out_h);
  int32_t lo = 0, hi = 0;  // this output row's interior columns (none if its rows leave the input)
  ptrdiff_t off0 = 0;      // the input offset where column 0's window would start (may be < 0)
  auto start_row = [&] {
    const int32_t iy0 = y * g.stride_h - g.pad_top;
    const bool inside = iy0 >= 0 && iy0 + (s.filter_h - 1) * g.dilation_h < s.in_h;
    lo = inside ? x_lo : 0, hi = inside ? x_hi : 0;
    off0 = ((static_cast<ptrdiff_t>(n) * s.in_h + iy0) * s.in_w - g.pad_left) * s.in_c;
  };
  start_row();
  for (int32_t p = begin; p < end; ++p) {
    int8_t* row = scratch + static_cast<size_t>(filled) * m.depth;
    if (x >= lo && x < hi) {
      const int8_t* src = input + (off0 + static_cast<ptrdiff_t>(x) * xstep);
      for (int32_t ky = 0; ky < s.filter_h; ++ky, row += run, src += step) im2col_copy_s8(row, src, run);
    } else {
      gather_border(s, g, pad, input, n, y, x, row);
    }
    if (++x == s.out_w) {
      x = 0;
      if (++y == s.out_h) y = 0, ++n;
      start_row();
    }
    if (++filled == block || p == end - 1) {
      m.rows = filled;
      m.out = output + static_cast<size_t>(first) * s.out_c;
      mat_mult_s8(m);
      first = p + 1, filled = 0;
    }
  }
}

// `block`: the pixels the scratch holds, at least mat_mult_s8_min_block_rows (run_conv2d_s8).
void im2col(const MatMultS8& m, const Conv2dShape& s, const Conv2dGeometry& g, int8_t pad,
            const int8_t* input, int8_t* scratch, int32_t block, int8_t* output, bool bottom_up) {
  const int32_t rows = s.batches * s.out_h;
  if (!bottom_up) {
    im2col_run(m, s, g, pad, input, scratch, block, output, 0, rows * s.out_w);
    return;
  }
  for (int32_t row = rows - 1; row >= 0; --row)  // one output row at a time, last first
    im2col_run(m, s, g, pad, input, scratch, block, output, row * s.out_w, (row + 1) * s.out_w);
}

}  // namespace

rt::Status check_conv2d_s8(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(kernels::check_conv_any_s8(c, false, false));
  EMBER_RETURN_IF_ERROR(check_requantization_values(c, c.in(1).dims[0]));
  return check_added_operands(c, c.in(1).dims[0]);
}

rt::Status check_conv2d_s8_with_fold(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(check_conv2d_s8(c));
  const TensorView& filter = c.in(1);
  const int32_t k = filter.dims[1] * filter.dims[2] * filter.dims[3];
  return check_folded_bias(c, filter.dims[0], [&](int32_t i) {
    return folded_bias_rows(filter.as<const int8_t>(), k, c.in(2).as<const int32_t>(), c.ints[6], i);
  });
}

rt::Status run_conv2d_s8(const rt::OpContext& c) {
  const Conv2dShape s = conv_shape_from(c.in(0), c.in(1), c.out(0));
  const Conv2dGeometry g = conv_geometry_from(c.ints);
  const QuantS8 q{c.ints[6], c.ints[7], c.ints[8], c.ints[9]};
  const Conv2dPath path = conv2d_s8_path(s, g);
  if (path == Conv2dPath::Portable || !has_folded_bias(c)) return kernels::run_conv2d_s8(c);
  MatMultS8 m = base_args(c, s, q);
  // The scratch: the DSP tier's packed rows (or shallow table) first, the fastest size or else
  // the least, if it fits before the least gathered rows and starts at a word (a compiled
  // program's scratch does; any other runs without them).
  size_t given = scratch_bytes_given(c);
  int8_t* scratch = given > 0 ? c.out(kScratch).as<int8_t>() : nullptr;
  const size_t gathered = path == Conv2dPath::Im2col
                              ? static_cast<size_t>(mat_mult_s8_min_block_rows(kBuiltTier)) * m.depth
                              : 0;
  const size_t most = mat_mult_s8_pack_bytes(kBuiltTier, m.depth);
  const size_t least = mat_mult_s8_pack_bytes(kBuiltTier, m.depth, true);
  const size_t pack = given >= most + gathered ? most : given >= least + gathered ? least : 0;
  if (pack > 0 && reinterpret_cast<uintptr_t>(scratch) % 4 == 0) {
    m.pack = reinterpret_cast<int32_t*>(scratch), m.pack_bytes = pack;
    scratch += pack, given -= pack;
  }
  if (given < gathered) return kernels::run_conv2d_s8(c);
  if (path == Conv2dPath::Pointwise) {
    pointwise(m, s, g, c.in(0).as<const int8_t>(), c.out(0).as<int8_t>(), c.rows_bottom_up);
  } else {
    // As many pixels as the scratch holds, up to the tier's most (given >= one row: checked).
    const size_t rows = given / static_cast<size_t>(m.depth), most = mat_mult_s8_block_rows(kBuiltTier, m.depth);
    im2col(m, s, g, static_cast<int8_t>(q.input_zp), c.in(0).as<const int8_t>(), scratch,
           static_cast<int32_t>(rows < most ? rows : most), c.out(0).as<int8_t>(), c.rows_bottom_up);
  }
  return Status::Ok;
}

}  // namespace ember::kernels::arm
