//===- adaptive_pool.cc - Adaptive average and max pooling ----------------===//

#include "ember/kernels/portable/adaptive_pool.h"

#include "ember/kernels/portable/op_check.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {

namespace {

struct Window {
  int32_t start[rt::kMaxRank], end[rt::kMaxRank];
};

// Advances index within [lo, hi) per axis, last axis fastest; false after the last.
bool next(int32_t* index, const int32_t* lo, const int32_t* hi, int rank) {
  for (int d = rank; d-- > 0;) {
    if (++index[d] < hi[d]) return true;
    index[d] = lo[d];
  }
  return false;
}

template <typename T, typename Acc, typename Finish>
void pool(const OpContext& c, bool max, Finish finish) {
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  const int rank = in.rank;
  for (int d = 0; d < rank; ++d)
    if (out.dims[d] == 0) return;
  const T* src = in.as<const T>();
  T* dst = out.as<T>();
  int32_t o[rt::kMaxRank] = {}, zero[rt::kMaxRank] = {}, at[rt::kMaxRank];
  do {
    Window w;
    for (int d = 0; d < rank; ++d) {
      const int64_t n = in.dims[d], m = out.dims[d];
      w.start[d] = c.ints[1 + d] ? static_cast<int32_t>(o[d] * n / m) : o[d];
      w.end[d] = c.ints[1 + d] ? static_cast<int32_t>(((o[d] + 1) * n + m - 1) / m) : o[d] + 1;
      at[d] = w.start[d];
    }
    Acc acc = 0;
    T best = src[0];
    int32_t count = 0;
    do {
      size_t i = 0;
      for (int d = 0; d < rank; ++d) i = i * static_cast<size_t>(in.dims[d]) + static_cast<size_t>(at[d]);
      const T v = src[i];
      if (count == 0 || v > best) best = v;
      acc += v;
      ++count;
    } while (next(at, w.start, w.end, rank));
    *dst++ = max ? best : finish(acc, count);
  } while (next(o, zero, out.dims, rank));
}

Status check(const OpContext& c, DType dtype) {
  EMBER_KCHECK(has_counts(c, 1, 1, -1, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == dtype && out.dtype == dtype, BadOpSignature);
  EMBER_KCHECK(in.rank == out.rank && in.rank >= 1 && c.num_ints == static_cast<size_t>(1 + in.rank), BadOpSignature);
  EMBER_KCHECK(c.ints[0] == 0 || c.ints[0] == 1, BadOpParameter);
  int64_t window = 1;  // at most ceil(in / out) + 1 per pooled axis
  for (int d = 0; d < in.rank; ++d) {
    EMBER_KCHECK(c.ints[1 + d] == 0 || c.ints[1 + d] == 1, BadOpParameter);
    EMBER_KCHECK(c.ints[1 + d] ? (in.dims[d] > 0 || out.dims[d] == 0) : in.dims[d] == out.dims[d], BadShape);
    if (c.ints[1 + d] && out.dims[d] > 0) window *= in.dims[d] / out.dims[d] + 2;
    EMBER_KCHECK(window <= (int64_t{1} << 24), BadShape);
  }
  return Status::Ok;
}

}  // namespace

rt::Status check_adaptive_pool_s8(const rt::OpContext& c) { return check(c, DType::Int8); }

// The check keeps a window within 2^24 elements: the int32 sum of int8 values is exact.
rt::Status run_adaptive_pool_s8(const rt::OpContext& c) {
  pool<int8_t, int32_t>(c, c.ints[0] == 1, [](int32_t sum, int32_t count) {
    return static_cast<int8_t>(rounding_divide_half_even(sum, count));
  });
  return Status::Ok;
}

rt::Status check_adaptive_pool_f32(const rt::OpContext& c) { return check(c, DType::Float32); }

rt::Status run_adaptive_pool_f32(const rt::OpContext& c) {
  pool<float, float>(c, c.ints[0] == 1, [](float sum, int32_t count) { return sum / static_cast<float>(count); });
  return Status::Ok;
}

}  // namespace ember::kernels
