//===- resize.cc - Nearest and bilinear resizing (upsampling) -------------===//

#include "kernels/portable/resize.h"

#include <string.h>

#include "kernels/portable/op_check.h"
#include "kernels/portable/requantize.h"

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
  Taps at(int32_t j) const {
    // n / denom is the source coordinate (see resize.h), n >= 0.
    const int64_t n = align ? static_cast<int64_t>(j) * (in - 1) : static_cast<int64_t>(in) * (2 * j + 1) - out;
    const int64_t pos = n < 0 ? 0 : n;
    const int32_t i0 = static_cast<int32_t>(pos / denom);
    return Taps{i0, i0 + 1 < in ? i0 + 1 : in - 1, static_cast<int32_t>(pos % denom)};
  }
};

Axis axis(const TensorView& in, const TensorView& out, int32_t d, bool align) {
  const int32_t o = out.dims[d];
  return Axis{in.dims[d], o, align ? (o > 1 ? o - 1 : 1) : 2 * o, align};
}

template <typename T, typename Combine>
void bilinear(const OpContext& c, Combine combine) {
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  if (empty(out)) return;
  const int32_t ah = c.ints[0], aw = c.ints[1];
  const Axis h = axis(in, out, ah, c.ints[2] != 0), w = axis(in, out, aw, c.ints[2] != 0);
  const T* src = in.as<const T>();
  T* dst = out.as<T>();
  int32_t index[rt::kMaxRank] = {}, at[rt::kMaxRank];
  do {
    const Taps y = h.at(index[ah]), x = w.at(index[aw]);
    memcpy(at, index, sizeof(at));
    T v[4];
    const int32_t rows[2] = {y.i0, y.i1}, cols[2] = {x.i0, x.i1};
    for (int k = 0; k < 4; ++k) {
      at[ah] = rows[k / 2], at[aw] = cols[k % 2];
      v[k] = src[offset(at, in.dims, in.rank)];
    }
    *dst++ = combine(v, y.frac, h.denom, x.frac, w.denom);
  } while (next(index, out.dims, out.rank));
}

Status check_bilinear(const OpContext& c, DType dtype) {
  EMBER_RETURN_IF_ERROR(check_same_rank(c, 3));
  EMBER_KCHECK(c.in(0).dtype == dtype, BadOpSignature);
  const int32_t ah = c.ints[0], aw = c.ints[1];
  EMBER_KCHECK(ah >= 0 && ah < aw && aw < c.in(0).rank && (c.ints[2] == 0 || c.ints[2] == 1), BadOpParameter);
  for (int d = 0; d < c.in(0).rank; ++d)
    EMBER_KCHECK(d == ah || d == aw || c.in(0).dims[d] == c.out(0).dims[d], BadShape);
  // int8: |sum of weights * q| <= 128 * D_h * D_w must fit int32; D <= 2 * out.
  EMBER_KCHECK(static_cast<int64_t>(c.out(0).dims[ah]) * c.out(0).dims[aw] <= (int64_t{1} << 21), BadShape);
  return Status::Ok;
}

}  // namespace

rt::Status check_resize_nearest(const rt::OpContext& c) { return check_same_rank(c, 0); }

rt::Status run_resize_nearest(const rt::OpContext& c) {
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  if (empty(out)) return Status::Ok;
  const size_t elem = dtype_size(in.dtype);
  const uint8_t* src = static_cast<const uint8_t*>(in.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  int32_t index[rt::kMaxRank] = {}, at[rt::kMaxRank];
  do {
    for (int d = 0; d < in.rank; ++d)
      at[d] = static_cast<int32_t>(static_cast<int64_t>(index[d]) * in.dims[d] / out.dims[d]);
    memcpy(dst, src + offset(at, in.dims, in.rank) * elem, elem);
    dst += elem;
  } while (next(index, out.dims, out.rank));
  return Status::Ok;
}

rt::Status check_resize_bilinear_s8(const rt::OpContext& c) { return check_bilinear(c, DType::Int8); }

rt::Status run_resize_bilinear_s8(const rt::OpContext& c) {
  bilinear<int8_t>(c, [](const int8_t* v, int32_t fy, int32_t dy, int32_t fx, int32_t dx) {
    const int32_t top = (dx - fx) * v[0] + fx * v[1], bottom = (dx - fx) * v[2] + fx * v[3];
    const int32_t r = rounding_divide_half_even((dy - fy) * top + fy * bottom, dy * dx);
    return static_cast<int8_t>(r < -128 ? -128 : (r > 127 ? 127 : r));
  });
  return Status::Ok;
}

rt::Status check_resize_bilinear_f32(const rt::OpContext& c) { return check_bilinear(c, DType::Float32); }

// PyTorch's CPU order: h0 * (w0 * x00 + w1 * x01) + h1 * (w0 * x10 + w1 * x11).
rt::Status run_resize_bilinear_f32(const rt::OpContext& c) {
  bilinear<float>(c, [](const float* v, int32_t fy, int32_t dy, int32_t fx, int32_t dx) {
    const float h1 = static_cast<float>(fy) / static_cast<float>(dy), w1 = static_cast<float>(fx) / static_cast<float>(dx);
    const float h0 = 1.0f - h1, w0 = 1.0f - w1;
    return h0 * (w0 * v[0] + w1 * v[1]) + h1 * (w0 * v[2] + w1 * v[3]);
  });
  return Status::Ok;
}

}  // namespace ember::kernels
