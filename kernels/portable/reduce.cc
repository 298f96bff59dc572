//===- reduce.cc - mean, sum, amax and amin over any set of axes ----------===//
//
// Outputs in order; for each, an odometer over the reduced axes gathers its inputs. int8 sums
// are int32 (the check bounds a group to 2^23 positions of at most 255 each).

#include "ember/kernels/portable/reduce.h"

#include "ember/kernels/portable/op_check.h"
#include "ember/kernels/portable/requantize.h"

namespace ember::kernels {
namespace {

// Calls fold(offset) for every input position of every output element, and done(o) after
// output element o's positions.
template <typename Fold, typename Done>
void for_each_group(const ReduceShape& s, Fold fold, Done done) {
  size_t stride[rt::kMaxRank];
  size_t st = 1;
  for (int d = s.rank - 1; d >= 0; --d) stride[d] = st, st *= static_cast<size_t>(s.dims[d]);
  int kept[rt::kMaxRank], red[rt::kMaxRank];
  int nk = 0, nr = 0;
  size_t outputs = 1;
  for (int d = 0; d < s.rank; ++d) {
    if (s.reduced[d]) {
      red[nr++] = d;
    } else {
      kept[nk++] = d;
      outputs *= static_cast<size_t>(s.dims[d]);
    }
  }
  int32_t ko[rt::kMaxRank] = {};
  for (size_t o = 0; o < outputs; ++o) {
    size_t base = 0;
    for (int i = 0; i < nk; ++i) base += static_cast<size_t>(ko[i]) * stride[kept[i]];
    int32_t ro[rt::kMaxRank] = {};
    for (bool more = true; more;) {
      size_t offset = base;
      for (int i = 0; i < nr; ++i) offset += static_cast<size_t>(ro[i]) * stride[red[i]];
      fold(offset);
      more = false;
      for (int i = nr - 1; i >= 0 && !more; --i) {
        if (++ro[i] < s.dims[red[i]]) more = true;
        else ro[i] = 0;
      }
    }
    done(o);
    for (int i = nk - 1; i >= 0; --i) {
      if (++ko[i] < s.dims[kept[i]]) break;
      ko[i] = 0;
    }
  }
}

int32_t group_size(const ReduceShape& s) {  // at most 2^23 (checked)
  int64_t n = 1;
  for (int d = 0; d < s.rank; ++d)
    if (s.reduced[d]) n *= s.dims[d];
  return n > INT32_MAX ? INT32_MAX : static_cast<int32_t>(n);
}

int32_t initial_s8(Reduction fn) { return fn == Reduction::Max ? -128 : fn == Reduction::Min ? 127 : 0; }

}  // namespace

void reduce_s8(const ReduceShape& s, Reduction fn, int32_t input_zp, int32_t output_zp,
               int32_t multiplier, int32_t shift, int32_t act_min, int32_t act_max,
               const int8_t* input, int8_t* output) {
  const int32_t count = group_size(s);
  int32_t acc = initial_s8(fn);
  for_each_group(
      s,
      [&](size_t i) {
        const int32_t v = input[i];
        if (fn == Reduction::Max) acc = v > acc ? v : acc;
        else if (fn == Reduction::Min) acc = v < acc ? v : acc;
        else acc += v - input_zp;
      },
      [&](size_t o) {
        if (fn == Reduction::Sum) {
          output[o] = requantize_to_s8(acc, multiplier, shift, output_zp, act_min, act_max);
        } else {
          const int32_t v = fn == Reduction::Mean ? rounding_divide_half_even(acc, count) + input_zp : acc;
          output[o] = static_cast<int8_t>(clamp_i32(v, act_min, act_max));
        }
        acc = initial_s8(fn);
      });
}

void reduce_f32(const ReduceShape& s, Reduction fn, const float* input, float* output) {
  const float count = static_cast<float>(group_size(s));
  bool first = true;
  float acc = 0.0f;
  for_each_group(
      s,
      [&](size_t i) {
        const float v = input[i];
        if (fn == Reduction::Mean || fn == Reduction::Sum) {
          acc += v;
        } else if (first || (acc == acc && (v != v || (fn == Reduction::Max ? v > acc : v < acc)))) {
          acc = v;  // NaN wins and stays, as in torch.amax and torch.amin
        }
        first = false;
      },
      [&](size_t o) {
        output[o] = fn == Reduction::Mean ? acc / count : acc;
        acc = 0.0f;
        first = true;
      });
}

namespace {

Status check_reduce(const OpContext& c, DType dtype, int32_t params) {
  EMBER_KCHECK(has_counts(c, 1, 1, -1, 0), BadOpSignature);
  const TensorView& in = c.in(0);
  const TensorView& out = c.out(0);
  EMBER_KCHECK(is_tensor(in, dtype) && is_tensor(out, dtype, in.rank), BadOpSignature);
  EMBER_KCHECK(c.num_ints == static_cast<size_t>(params + in.rank), BadOpSignature);
  EMBER_KCHECK(c.ints[0] >= 0 && c.ints[0] <= 3, BadOpParameter);
  int64_t group = 1;
  for (int32_t d = 0; d < in.rank; ++d) {
    const int32_t flag = c.ints[params + d];
    EMBER_KCHECK(flag == 0 || flag == 1, BadOpParameter);
    EMBER_KCHECK(out.dims[d] == (flag ? 1 : in.dims[d]), BadShape);
    if (flag) group *= in.dims[d];
  }
  EMBER_KCHECK(group >= 1 && group <= (int64_t{1} << 23), BadShape);
  return Status::Ok;
}

ReduceShape shape_of(const OpContext& c, int32_t params) {
  return ReduceShape{c.in(0).rank, c.in(0).dims, c.ints + params};
}

}  // namespace

rt::Status check_reduce_s8(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(check_reduce(c, DType::Int8, 7));
  EMBER_KCHECK(valid_zero_point(c.ints[1]) && valid_zero_point(c.ints[2]), BadQuantization);
  EMBER_KCHECK(valid_multiplier(c.ints[3]) && valid_shift(c.ints[4]), BadQuantization);
  EMBER_KCHECK(valid_act_s8(c.ints[5], c.ints[6]), BadOpParameter);
  return Status::Ok;
}

rt::Status run_reduce_s8(const rt::OpContext& c) {
  reduce_s8(shape_of(c, 7), static_cast<Reduction>(c.ints[0]), c.ints[1], c.ints[2], c.ints[3], c.ints[4],
            c.ints[5], c.ints[6], c.in(0).as<const int8_t>(), c.out(0).as<int8_t>());
  return rt::Status::Ok;
}

rt::Status check_reduce_f32(const rt::OpContext& c) { return check_reduce(c, DType::Float32, 1); }

rt::Status run_reduce_f32(const rt::OpContext& c) {
  reduce_f32(shape_of(c, 1), static_cast<Reduction>(c.ints[0]), c.in(0).as<const float>(), c.out(0).as<float>());
  return rt::Status::Ok;
}

}  // namespace ember::kernels
