//===- resize.cc - Nearest and bilinear resizing (upsampling) -------------===//

#include "ember/kernels/portable/resize.h"

#include <string.h>

#include "ember/kernels/portable/op_check.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

namespace {

// Row-major offset of `index` in `dims`.
size_t offset(const int32_t* index, const int32_t* dims, int rank) {
  size_t o = 0;
  for (int d = 0; d < rank; ++d) o = o * static_cast<size_t>(dims[d]) + static_cast<size_t>(index[d]);
  return o;
}

// Advances a row-major index over dims; false after the last.
bool next(int32_t* index, const int32_t* dims, int rank) {
  for (int d = rank; d-- > 0;) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

bool empty(const TensorView& t) {
  for (int d = 0; d < t.rank; ++d)
    if (t.dims[d] == 0) return true;
  return false;
}

Status check_same_rank(const OpContext& c, int ints) {
  EMBER_KCHECK(has_counts(c, 1, 1, ints, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == out.dtype && (in.dtype == DType::Int8 || in.dtype == DType::Float32), BadOpSignature);
  EMBER_KCHECK(in.rank == out.rank && in.rank >= 1, BadShape);
  for (int d = 0; d < in.rank; ++d) EMBER_KCHECK(in.dims[d] > 0 || out.dims[d] == 0, BadShape);
  return Status::Ok;
}

// One output coordinate's two source positions and the weight of the second, over `denom`.
struct Taps {
  int32_t i0, i1, frac;
};

struct Axis {
  int32_t in, out, denom;
  bool align;
  // n / denom is the source coordinate (see resize.h), n >= 0; the check keeps n in int32.
  Taps at(int32_t j) const {
    const int32_t n = align ? j * (in - 1) : in * (2 * j + 1) - out;
    const int32_t pos = n < 0 ? 0 : n;
    const int32_t i0 = pos / denom;
    return Taps{i0, i0 + 1 < in ? i0 + 1 : in - 1, pos % denom};
  }
};

Axis axis(const TensorView& in, const TensorView& out, int32_t d, bool align) {
  const int32_t o = out.dims[d];
  return Axis{in.dims[d], o, align ? (o > 1 ? o - 1 : 1) : 2 * o, align};
}

size_t product(const TensorView& t, int32_t from, int32_t to) {
  size_t n = 1;
  for (int32_t d = from; d < to; ++d) n *= static_cast<size_t>(t.dims[d]);
  return n;
}

// The tensor as [outer, H, mid, W, inner]: each output pixel's taps are computed once and its
// `inner` values (the channels, channels-last) weighed in one loop.
template <typename T, typename Combine>
void bilinear(const OpContext& c, Combine combine) {
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  const int32_t ah = c.ints[0], aw = c.ints[1];
  const Axis h = axis(in, out, ah, c.ints[2] != 0), w = axis(in, out, aw, c.ints[2] != 0);
  const size_t outer = product(in, 0, ah), mid = product(in, ah + 1, aw), inner = product(in, aw + 1, in.rank);
  const T* src = in.as<const T>();
  T* dst = out.as<T>();
  for (size_t o = 0; o < outer; ++o)
    for (int32_t y = 0; y < h.out; ++y) {
      const Taps ty = h.at(y);
      for (size_t m = 0; m < mid; ++m) {
        const T* row0 = src + ((o * h.in + ty.i0) * mid + m) * w.in * inner;
        const T* row1 = src + ((o * h.in + ty.i1) * mid + m) * w.in * inner;
        for (int32_t x = 0; x < w.out; ++x) {
          const Taps tx = w.at(x);
          const size_t a = static_cast<size_t>(tx.i0) * inner, b = static_cast<size_t>(tx.i1) * inner;
          for (size_t i = 0; i < inner; ++i)
            *dst++ = combine(row0[a + i], row0[b + i], row1[a + i], row1[b + i], ty.frac, h.denom, tx.frac, w.denom);
        }
      }
    }
}

Status check_bilinear(const OpContext& c, DType dtype) {
  EMBER_RETURN_IF_ERROR(check_same_rank(c, 3));
  EMBER_KCHECK(c.in(0).dtype == dtype, BadOpSignature);
  const int32_t ah = c.ints[0], aw = c.ints[1];
  EMBER_KCHECK(ah >= 0 && ah < aw && aw < c.in(0).rank && (c.ints[2] == 0 || c.ints[2] == 1), BadOpParameter);
  for (int d = 0; d < c.in(0).rank; ++d)
    EMBER_KCHECK(d == ah || d == aw || c.in(0).dims[d] == c.out(0).dims[d], BadShape);
  // Sizes to 2^14 keep a source coordinate's numerator (in * (2 * out)) in int32; the int8 sum
  // of weights * q is then at most 128 * D_h * D_w, D <= 2 * out, within int32 when
  // out_h * out_w <= 2^21.
  const int32_t limit = 1 << 14;
  EMBER_KCHECK(c.in(0).dims[ah] <= limit && c.out(0).dims[ah] <= limit, BadShape);
  EMBER_KCHECK(c.in(0).dims[aw] <= limit && c.out(0).dims[aw] <= limit, BadShape);
  EMBER_KCHECK(static_cast<int64_t>(c.out(0).dims[ah]) * c.out(0).dims[aw] <= (int64_t{1} << 21), BadShape);
  return Status::Ok;
}

}  // namespace

rt::Status check_resize_nearest(const rt::OpContext& c) { return check_same_rank(c, 0); }

// The source index is computed per position of the leading axes; the trailing axes whose
// size does not change (the channels, channels-last) are one contiguous run.
rt::Status run_resize_nearest(const rt::OpContext& c) {
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  if (empty(out)) return Status::Ok;
  int lead = in.rank;
  while (lead > 0 && in.dims[lead - 1] == out.dims[lead - 1]) --lead;
  const size_t run = product(in, lead, in.rank) * dtype_size(in.dtype);
  const uint8_t* src = static_cast<const uint8_t*>(in.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  int32_t index[rt::kMaxRank] = {}, at[rt::kMaxRank];
  do {
    for (int d = 0; d < lead; ++d)
      at[d] = static_cast<int32_t>(static_cast<int64_t>(index[d]) * in.dims[d] / out.dims[d]);
    memcpy(dst, src + offset(at, in.dims, lead) * run, run);
    dst += run;
  } while (next(index, out.dims, lead));
  return Status::Ok;
}

rt::Status check_resize_bilinear_s8(const rt::OpContext& c) { return check_bilinear(c, DType::Int8); }

rt::Status run_resize_bilinear_s8(const rt::OpContext& c) {
  bilinear<int8_t>(c, [](int32_t v00, int32_t v01, int32_t v10, int32_t v11, int32_t fy, int32_t dy, int32_t fx,
                         int32_t dx) {
    const int32_t top = (dx - fx) * v00 + fx * v01, bottom = (dx - fx) * v10 + fx * v11;
    const int32_t r = rounding_divide_half_even((dy - fy) * top + fy * bottom, dy * dx);
    return static_cast<int8_t>(r < -128 ? -128 : (r > 127 ? 127 : r));
  });
  return Status::Ok;
}

rt::Status check_resize_bilinear_f32(const rt::OpContext& c) { return check_bilinear(c, DType::Float32); }

// PyTorch's CPU order: h0 * (w0 * x00 + w1 * x01) + h1 * (w0 * x10 + w1 * x11).
rt::Status run_resize_bilinear_f32(const rt::OpContext& c) {
  bilinear<float>(c, [](float v00, float v01, float v10, float v11, int32_t fy, int32_t dy, int32_t fx, int32_t dx) {
    const float h1 = static_cast<float>(fy) / static_cast<float>(dy), w1 = static_cast<float>(fx) / static_cast<float>(dx);
    const float h0 = 1.0f - h1, w0 = 1.0f - w1;
    return h0 * (w0 * v00 + w1 * v01) + h1 * (w0 * v10 + w1 * v11);
  });
  return Status::Ok;
}

}  // namespace ember::kernels
