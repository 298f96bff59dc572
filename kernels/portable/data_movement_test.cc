//===- data_movement_test.cc - Tests of pad, transpose, cat, slice, spread, copy ===//
//
// Byte-moving kernels against index-arithmetic references, for both element sizes, and the
// checks' rejections.

#include <gtest/gtest.h>

#include <cstring>

#include <numeric>

#include "ember/kernels/portable/cat.h"
#include "ember/kernels/portable/copy.h"
#include "ember/kernels/portable/pad.h"
#include "ember/kernels/portable/slice.h"
#include "ember/kernels/portable/test_util.h"
#include "ember/kernels/portable/transpose.h"

namespace ember::kernels {
namespace {

using namespace testing;

std::vector<int32_t> random_dims(std::mt19937& rng, int rank) {
  std::vector<int32_t> d(rank);
  for (auto& x : d) x = rand_int(rng, 1, 4);
  return d;
}

size_t numel(const std::vector<int32_t>& d) {
  return std::accumulate(d.begin(), d.end(), size_t{1}, std::multiplies<size_t>());
}

// Multi-index of flat position i in dims d.
std::vector<int32_t> unravel(size_t i, const std::vector<int32_t>& d) {
  std::vector<int32_t> idx(d.size());
  for (int k = static_cast<int>(d.size()) - 1; k >= 0; --k) idx[k] = i % d[k], i /= d[k];
  return idx;
}

size_t ravel(const std::vector<int32_t>& idx, const std::vector<int32_t>& d) {
  size_t i = 0;
  for (size_t k = 0; k < d.size(); ++k) i = i * d[k] + idx[k];
  return i;
}

TEST(Pad, RandomS8AndF32) {
  std::mt19937 rng(70);
  for (int t = 0; t < 200; ++t) {
    const int rank = rand_int(rng, 1, 5);
    const auto in_dims = random_dims(rng, rank);
    std::vector<int32_t> before(rank), out_dims(rank);
    for (int d = 0; d < rank; ++d)
      before[d] = rand_int(rng, 0, 2), out_dims[d] = in_dims[d] + before[d] + rand_int(rng, 0, 2);
    auto in8 = random_s8(rng, numel(in_dims));
    auto inf = random_f32(rng, numel(in_dims));
    std::vector<int8_t> out8(numel(out_dims));
    std::vector<float> outf(numel(out_dims));
    OpBuilder op8, opf;
    op8.in(in8.data(), DType::Int8, in_dims).out(out8.data(), DType::Int8, out_dims);
    op8.ints = {-128};
    op8.ints.insert(op8.ints.end(), before.begin(), before.end());
    opf.in(inf.data(), DType::Float32, in_dims).out(outf.data(), DType::Float32, out_dims);
    opf.ints = before;
    opf.floats = {-1.5f};
    ASSERT_EQ(check_pad_s8(op8.without_data().ctx()), Status::Ok);
    ASSERT_EQ(check_pad_f32(opf.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_pad_s8(op8.ctx()), Status::Ok);
    ASSERT_EQ(run_pad_f32(opf.ctx()), Status::Ok);
    for (size_t o = 0; o < out8.size(); ++o) {
      auto idx = unravel(o, out_dims);
      bool inside = true;
      for (int d = 0; d < rank; ++d) {
        idx[d] -= before[d];
        inside = inside && idx[d] >= 0 && idx[d] < in_dims[d];
      }
      ASSERT_EQ(out8[o], inside ? in8[ravel(idx, in_dims)] : -128);
      ASSERT_EQ(outf[o], inside ? inf[ravel(idx, in_dims)] : -1.5f);
    }
  }
}

TEST(Pad, CheckRejects) {
  OpBuilder op;
  op.in(nullptr, DType::Int8, {2, 3}).out(nullptr, DType::Int8, {3, 5});
  op.ints = {0, 1, 1};
  EXPECT_EQ(check_pad_s8(op.ctx()), Status::Ok);
  op.ints = {0, 1, 3};  // after = 5 - 3 - 3 < 0
  EXPECT_EQ(check_pad_s8(op.ctx()), Status::BadShape);
  op.ints = {0, -1, 1};
  EXPECT_EQ(check_pad_s8(op.ctx()), Status::BadOpParameter);
  op.ints = {200, 1, 1};
  EXPECT_EQ(check_pad_s8(op.ctx()), Status::BadOpParameter);
  op.ints = {0, 1};
  EXPECT_EQ(check_pad_s8(op.ctx()), Status::BadOpSignature);
  op.ints = {0, 1, 1};
  op.outs[0].rank = 3;
  EXPECT_EQ(check_pad_s8(op.ctx()), Status::BadShape);
  OpBuilder f;
  f.in(nullptr, DType::Float32, {2}).out(nullptr, DType::Float32, {4});
  f.ints = {1};
  EXPECT_EQ(check_pad_f32(f.ctx()), Status::BadOpSignature);  // pad value missing
  f.floats = {0.0f};
  EXPECT_EQ(check_pad_f32(f.ctx()), Status::Ok);
}

TEST(Transpose, RandomS8AndF32) {
  std::mt19937 rng(71);
  for (int t = 0; t < 200; ++t) {
    const int rank = rand_int(rng, 1, 5);
    const auto in_dims = random_dims(rng, rank);
    std::vector<int32_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<int32_t> out_dims(rank);
    for (int d = 0; d < rank; ++d) out_dims[d] = in_dims[perm[d]];
    auto in8 = random_s8(rng, numel(in_dims));
    auto inf = random_f32(rng, numel(in_dims));
    std::vector<int8_t> out8(in8.size());
    std::vector<float> outf(inf.size());
    OpBuilder op8, opf;
    op8.in(in8.data(), DType::Int8, in_dims).out(out8.data(), DType::Int8, out_dims);
    opf.in(inf.data(), DType::Float32, in_dims).out(outf.data(), DType::Float32, out_dims);
    op8.ints = opf.ints = perm;
    ASSERT_EQ(check_transpose_s8(op8.without_data().ctx()), Status::Ok);
    ASSERT_EQ(check_transpose_f32(opf.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_transpose_s8(op8.ctx()), Status::Ok);
    ASSERT_EQ(run_transpose_f32(opf.ctx()), Status::Ok);
    for (size_t o = 0; o < out8.size(); ++o) {
      const auto oi = unravel(o, out_dims);
      std::vector<int32_t> ii(rank);
      for (int d = 0; d < rank; ++d) ii[perm[d]] = oi[d];
      ASSERT_EQ(out8[o], in8[ravel(ii, in_dims)]);
      ASSERT_EQ(outf[o], inf[ravel(ii, in_dims)]);
    }
  }
}

TEST(Transpose, CheckRejects) {
  OpBuilder op;
  op.in(nullptr, DType::Int8, {2, 3, 4}).out(nullptr, DType::Int8, {4, 2, 3});
  op.ints = {2, 0, 1};
  EXPECT_EQ(check_transpose_s8(op.ctx()), Status::Ok);
  op.ints = {2, 0, 0};
  EXPECT_EQ(check_transpose_s8(op.ctx()), Status::BadOpParameter);
  op.ints = {3, 0, 1};
  EXPECT_EQ(check_transpose_s8(op.ctx()), Status::BadOpParameter);
  op.ints = {0, 2, 1};
  EXPECT_EQ(check_transpose_s8(op.ctx()), Status::BadShape);
  op.ints = {2, 0};
  EXPECT_EQ(check_transpose_s8(op.ctx()), Status::BadOpSignature);
  op.ints = {2, 0, 1};
  EXPECT_EQ(check_transpose_f32(op.ctx()), Status::BadOpSignature);
}

TEST(Cat, RandomS8AndF32) {
  std::mt19937 rng(72);
  for (int t = 0; t < 200; ++t) {
    const int rank = rand_int(rng, 1, 5), count = rand_int(rng, 1, 4);
    const int axis = rand_int(rng, 0, rank - 1);
    auto out_dims = random_dims(rng, rank);
    out_dims[axis] = 0;
    std::vector<std::vector<int32_t>> dims(count, out_dims);
    std::vector<std::vector<int8_t>> in8(count);
    std::vector<std::vector<float>> inf(count);
    OpBuilder op8, opf;
    for (int i = 0; i < count; ++i) {
      dims[i][axis] = rand_int(rng, 0, 3);  // empty inputs are allowed
      out_dims[axis] += dims[i][axis];
      in8[i] = random_s8(rng, numel(dims[i]));
      inf[i] = random_f32(rng, numel(dims[i]));
      op8.in(in8[i].data(), DType::Int8, dims[i]);
      opf.in(inf[i].data(), DType::Float32, dims[i]);
    }
    std::vector<int8_t> out8(numel(out_dims));
    std::vector<float> outf(out8.size());
    op8.out(out8.data(), DType::Int8, out_dims);
    opf.out(outf.data(), DType::Float32, out_dims);
    op8.ints = opf.ints = {rand_int(rng, 0, 1) ? axis : axis - rank};
    ASSERT_EQ(check_cat_s8(op8.without_data().ctx()), Status::Ok);
    ASSERT_EQ(check_cat_f32(opf.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_cat_s8(op8.ctx()), Status::Ok);
    ASSERT_EQ(run_cat_f32(opf.ctx()), Status::Ok);
    for (size_t o = 0; o < out8.size(); ++o) {
      auto idx = unravel(o, out_dims);
      int i = 0;
      while (idx[axis] >= dims[i][axis]) idx[axis] -= dims[i][axis], ++i;
      ASSERT_EQ(out8[o], in8[i][ravel(idx, dims[i])]);
      ASSERT_EQ(outf[o], inf[i][ravel(idx, dims[i])]);
    }
  }
}

TEST(Cat, CheckRejects) {
  OpBuilder op;
  op.in(nullptr, DType::Int8, {2, 3}).in(nullptr, DType::Int8, {2, 4});
  op.out(nullptr, DType::Int8, {2, 7});
  op.ints = {1};
  EXPECT_EQ(check_cat_s8(op.ctx()), Status::Ok);
  op.ints = {2};
  EXPECT_EQ(check_cat_s8(op.ctx()), Status::BadOpParameter);
  op.ints = {-3};
  EXPECT_EQ(check_cat_s8(op.ctx()), Status::BadOpParameter);
  op.ints = {0};
  EXPECT_EQ(check_cat_s8(op.ctx()), Status::BadShape);
  op.ints = {1};
  op.outs[0].dims[1] = 8;
  EXPECT_EQ(check_cat_s8(op.ctx()), Status::BadShape);
  op.outs[0].dims[1] = 7;
  op.ins[1].dtype = DType::Float32;
  EXPECT_EQ(check_cat_s8(op.ctx()), Status::BadOpSignature);
  op.ins.clear();
  EXPECT_EQ(check_cat_s8(op.ctx()), Status::BadOpSignature);
}

TEST(Copy, CopiesBytesAcrossShapes) {
  std::vector<float> in = {1, 2, 3, 4, 5, 6}, out(6);
  OpBuilder op;
  op.in(in.data(), DType::Float32, {2, 3}).out(out.data(), DType::Float32, {6});
  ASSERT_EQ(check_copy(op.without_data().ctx()), Status::Ok);
  ASSERT_EQ(run_copy(op.ctx()), Status::Ok);
  EXPECT_EQ(in, out);
  op.outs[0].dims[0] = 5;
  EXPECT_EQ(check_copy(op.ctx()), Status::BadShape);
  op.outs[0].dims[0] = 6;
  op.outs[0].dtype = DType::Int32;
  EXPECT_EQ(check_copy(op.ctx()), Status::BadOpSignature);
}

TEST(Slice, RandomS8AndF32) {
  std::mt19937 rng(73);
  for (int t = 0; t < 200; ++t) {
    const int rank = rand_int(rng, 1, 5);
    const auto in_dims = random_dims(rng, rank);
    const int axis = rand_int(rng, 0, rank - 1);
    const int32_t len = in_dims[axis];
    const int32_t start = rand_int(rng, 0, len - 1), step = rand_int(rng, -3, 3) | 1;  // odd: never 0
    const int32_t room = step > 0 ? len - 1 - start : start;  // positions after the first
    auto out_dims = in_dims;
    out_dims[axis] = 1 + room / std::abs(step) - rand_int(rng, 0, room / std::abs(step));
    auto in8 = random_s8(rng, numel(in_dims));
    auto inf = random_f32(rng, numel(in_dims));
    std::vector<int8_t> out8(numel(out_dims));
    std::vector<float> outf(numel(out_dims));
    OpBuilder op8, opf;
    op8.in(in8.data(), DType::Int8, in_dims).out(out8.data(), DType::Int8, out_dims).ints = {axis, start, step};
    opf.in(inf.data(), DType::Float32, in_dims).out(outf.data(), DType::Float32, out_dims).ints = {axis, start, step};
    ASSERT_EQ(check_slice(op8.without_data().ctx()), Status::Ok);
    ASSERT_EQ(check_slice(opf.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_slice(op8.ctx()), Status::Ok);
    ASSERT_EQ(run_slice(opf.ctx()), Status::Ok);
    for (size_t o = 0; o < out8.size(); ++o) {
      auto idx = unravel(o, out_dims);
      idx[axis] = start + idx[axis] * step;
      ASSERT_EQ(out8[o], in8[ravel(idx, in_dims)]);
      ASSERT_EQ(outf[o], inf[ravel(idx, in_dims)]);
    }
  }
}

TEST(Spread, RandomS8AndF32) {
  std::mt19937 rng(74);
  for (int t = 0; t < 200; ++t) {
    const int rank = rand_int(rng, 1, 5);
    const auto in_dims = random_dims(rng, rank);
    const int axis = rand_int(rng, 0, rank - 1);
    const int32_t start = rand_int(rng, 0, 3), step = rand_int(rng, 1, 3);
    auto out_dims = in_dims;
    out_dims[axis] = start + (in_dims[axis] - 1) * step + 1 + rand_int(rng, 0, 2);
    auto in8 = random_s8(rng, numel(in_dims));
    auto inf = random_f32(rng, numel(in_dims));
    std::vector<int8_t> out8(numel(out_dims));
    std::vector<float> outf(numel(out_dims));
    const float fill = 0.25f;
    int32_t bits;
    std::memcpy(&bits, &fill, 4);
    OpBuilder op8, opf;
    op8.in(in8.data(), DType::Int8, in_dims).out(out8.data(), DType::Int8, out_dims).ints = {axis, start, step, -7};
    opf.in(inf.data(), DType::Float32, in_dims).out(outf.data(), DType::Float32, out_dims).ints = {axis, start, step, bits};
    ASSERT_EQ(check_spread(op8.without_data().ctx()), Status::Ok);
    ASSERT_EQ(check_spread(opf.without_data().ctx()), Status::Ok);
    ASSERT_EQ(run_spread(op8.ctx()), Status::Ok);
    ASSERT_EQ(run_spread(opf.ctx()), Status::Ok);
    for (size_t o = 0; o < out8.size(); ++o) {
      auto idx = unravel(o, out_dims);
      const int32_t j = idx[axis] - start;
      const bool written = j >= 0 && j % step == 0 && j / step < in_dims[axis];
      idx[axis] = j / step;
      ASSERT_EQ(out8[o], written ? in8[ravel(idx, in_dims)] : -7);
      ASSERT_EQ(outf[o], written ? inf[ravel(idx, in_dims)] : fill);
    }
  }
}

TEST(Spread, CheckRejects) {
  OpBuilder op;
  int8_t buf[40] = {};
  op.in(buf, DType::Int8, {2, 2, 4}).out(buf, DType::Int8, {2, 4, 4}).ints = {1, 1, 2, 0};  // rows 1, 3
  EXPECT_EQ(check_spread(op.ctx()), Status::Ok);
  op.ints = {1, 2, 2, 0};  // rows 2, 4: past the axis
  EXPECT_EQ(check_spread(op.ctx()), Status::BadOpParameter);
  op.ints = {1, 0, 0, 0};
  EXPECT_EQ(check_spread(op.ctx()), Status::BadOpParameter);
  op.ints = {1, 0, 2147483647, 0};  // the last position overflows int32
  EXPECT_EQ(check_spread(op.ctx()), Status::BadOpParameter);
  op.ints = {1, 0, 1, 128};  // not an int8 fill
  EXPECT_EQ(check_spread(op.ctx()), Status::BadOpParameter);
  op.ints = {1, 0, 1};
  EXPECT_EQ(check_spread(op.ctx()), Status::BadOpSignature);
  op.ints = {0, 0, 1, 0};  // dims other than the axis differ
  EXPECT_EQ(check_spread(op.ctx()), Status::BadShape);
}

TEST(Slice, CheckRejects) {
  OpBuilder op;
  int8_t buf[24] = {};
  op.in(buf, DType::Int8, {2, 3, 4}).out(buf, DType::Int8, {2, 2, 4}).ints = {1, 1, 1};
  EXPECT_EQ(check_slice(op.ctx()), Status::Ok);
  op.ints = {1, 2, 1};  // positions 2, 3: past the axis
  EXPECT_EQ(check_slice(op.ctx()), Status::BadOpParameter);
  op.ints = {1, 0, 2};  // positions 0, 2
  EXPECT_EQ(check_slice(op.ctx()), Status::Ok);
  op.ints = {1, 0, 0};
  EXPECT_EQ(check_slice(op.ctx()), Status::BadOpParameter);
  op.ints = {1, 2, -1};  // positions 2, 1: backwards (flip)
  EXPECT_EQ(check_slice(op.ctx()), Status::Ok);
  op.ints = {1, 1, -1};  // positions 1, 0
  EXPECT_EQ(check_slice(op.ctx()), Status::Ok);
  op.ints = {1, 0, -1};  // positions 0, -1
  EXPECT_EQ(check_slice(op.ctx()), Status::BadOpParameter);
  op.ints = {1, 3, -1};  // starts past the axis
  EXPECT_EQ(check_slice(op.ctx()), Status::BadOpParameter);
  op.ints = {1, -1, 1};
  EXPECT_EQ(check_slice(op.ctx()), Status::BadOpParameter);
  op.ints = {3, 0, 1};
  EXPECT_EQ(check_slice(op.ctx()), Status::BadOpParameter);
  op.ints = {0, 0, 1};  // dims other than the axis differ
  EXPECT_EQ(check_slice(op.ctx()), Status::BadShape);
  op.ints = {1, 0, 2147483647};  // the last position overflows int32
  EXPECT_EQ(check_slice(op.ctx()), Status::BadOpParameter);
  op.ints = {1, 1, 1};
  op.outs[0].dtype = DType::Float32;
  EXPECT_EQ(check_slice(op.ctx()), Status::BadOpSignature);
}

}  // namespace
}  // namespace ember::kernels
