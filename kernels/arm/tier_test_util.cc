//===- tier_test_util.cc - Random operands for the tier tests -------------===//

#include "ember/kernels/arm/tier_test.h"

namespace ember::kernels::arm::testing {

rt::TensorView make_view(void* data, rt::DType dtype, int32_t rank, const int32_t* dims, bool constant) {
  rt::TensorView t;
  t.data = data, t.dtype = dtype, t.rank = static_cast<uint8_t>(rank), t.constant = constant;
  for (int32_t i = 0; i < rank; ++i) t.dims[i] = dims[i];
  return t;
}

void conv_inputs(rt::TensorView (&ins)[6], int8_t* input, const int32_t* in_dims, int8_t* filter,
                 const int32_t* filter_dims, int32_t* bias, int32_t* multiplier, int32_t* shift, int32_t* folded,
                 int32_t channels) {
  const int32_t c_dims[1] = {channels};
  ins[0] = make_view(input, rt::DType::Int8, 4, in_dims, false);
  ins[1] = make_view(filter, rt::DType::Int8, 4, filter_dims, true);
  ins[2] = bias == nullptr ? rt::TensorView{} : make_view(bias, rt::DType::Int32, 1, c_dims, true);
  ins[3] = make_view(multiplier, rt::DType::Int32, 1, c_dims, true);
  ins[4] = make_view(shift, rt::DType::Int32, 1, c_dims, true);
  ins[5] = make_view(folded, rt::DType::Int32, 1, c_dims, true);
}

void compare_optimized(Outcome& o, int32_t index, bool refused, KernelFn check, KernelFn run, const rt::OpContext& ctx,
                       int8_t* got, const int8_t* want, int32_t n) {
  ++o.cases;
  bool bad = refused;
  if (check(ctx) != rt::Status::Ok) {
    ++o.rejected;
    bad = true;
  } else {
    run(ctx);
    for (int32_t j = 0; j < n; ++j) bad |= got[j] != want[j];
    for (int32_t j = n; j < n + 16; ++j) bad |= got[j] != 0x55;
    ++o.optimized;
  }
  if (bad) {
    ++o.mismatches;
    if (o.first_bad < 0) o.first_bad = index;
  }
}

void compare_same_shape(Outcome& o, int32_t index, Rng& r, int32_t in_place_one_in, KernelFn check_portable,
                        KernelFn run_portable, KernelFn check_optimized, KernelFn run_optimized, rt::TensorView* ins,
                        size_t n_ins, const int32_t* ints, size_t n_ints, int32_t rank, const int32_t* dims,
                        const int8_t* in, int8_t* got, int8_t* want) {
  const int32_t n = element_count(dims, rank);
  rt::TensorView want_view[1] = {make_view(want, rt::DType::Int8, rank, dims, false)};
  const rt::OpContext want_ctx{ins, n_ins, want_view, 1, ints, n_ints, nullptr, 0};
  const bool refused = check_portable(want_ctx) != rt::Status::Ok;  // a bad case
  if (!refused) run_portable(want_ctx);
  for (int32_t j = 0; j < n + 16; ++j) got[j] = 0x55;
  if (r.one_in(in_place_one_in)) {
    for (int32_t j = 0; j < n; ++j) got[j] = in[j];
    ins[0] = make_view(got, rt::DType::Int8, rank, dims, false);
  }
  rt::TensorView got_view[1] = {make_view(got, rt::DType::Int8, rank, dims, false)};
  compare_optimized(o, index, refused, check_optimized, run_optimized,
                    rt::OpContext{ins, n_ins, got_view, 1, ints, n_ints, nullptr, 0}, got, want, n);
}

int32_t random_zero_point(Rng& r) {
  switch (r.range(0, 4)) {
    case 0: return -128;
    case 1: return 127;
    case 2: return 0;
    default: return r.range(-128, 127);
  }
}

void random_requant(Rng& r, int32_t* multiplier, int32_t* shift, int32_t n) {
  // Mostly realistic shifts, plus every extreme; a few all-extreme ops.
  const int32_t mode = r.range(0, 5);
  for (int32_t i = 0; i < n; ++i) {
    switch (r.range(0, 5)) {
      case 0: multiplier[i] = int32_t{1} << 30; break;
      case 1: multiplier[i] = INT32_MAX; break;
      default: multiplier[i] = static_cast<int32_t>((uint32_t{1} << 30) | (r.next() >> 2)); break;
    }
    if (r.one_in(40)) multiplier[i] = 0;
    if (mode == 0) {
      shift[i] = r.range(-31, 30);
    } else if (mode == 1) {
      static const int32_t kEdges[] = {-31, -30, -1, 0, 1, 30};
      shift[i] = kEdges[r.range(0, 5)];
    } else if (mode == 5) {
      shift[i] = r.range(0, 12);  // all non-negative (depthwise layers)
    } else {
      shift[i] = r.one_in(8) ? r.range(-31, 2) : r.range(-12, -1);
    }
  }
}

void random_act(Rng& r, int32_t* act_min, int32_t* act_max) {
  if (r.range(0, 2) != 0) {
    *act_min = -128, *act_max = 127;
    return;
  }
  const int32_t a = r.range(-128, 127), b = r.range(-128, 127);
  *act_min = a < b ? a : b, *act_max = a < b ? b : a;
}

void zoo_requant(Rng& r, int32_t* act_min, int32_t* act_max, int32_t* multiplier, int32_t* shift, int32_t n) {
  *act_min = -128, *act_max = 127;
  for (int32_t c = 0; c < n; ++c) {
    shift[c] = r.range(-4, -2);
    if (r.one_in(3)) multiplier[c] = int32_t{1} << 30;
  }
}

void random_s8(Rng& r, int8_t* data, int32_t n) {
  const int32_t mode = r.range(0, 7);
  for (int32_t i = 0; i < n; ++i) {
    const uint32_t v = r.next();
    data[i] = mode == 0 ? static_cast<int8_t>((v & 1) ? 127 : -128) : static_cast<int8_t>(v >> 24);
  }
}

void random_bias(Rng& r, int32_t* bias, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    switch (r.range(0, 9)) {
      case 0: bias[i] = INT32_MAX; break;  // the accumulator wraps
      case 1: bias[i] = INT32_MIN; break;
      case 2: bias[i] = static_cast<int32_t>(r.next()); break;
      default: bias[i] = r.range(-40000, 40000); break;
    }
  }
}

void random_axis(Rng& r, int32_t in, int32_t kernel, int32_t dilation, int32_t stride, int32_t* pad,
                 int32_t* out) {
  const int32_t extent = dilation * (kernel - 1) + 1;
  const int32_t extra = stride > 1 ? stride - 1 : 1;
  for (;;) {
    const int32_t before = r.one_in(3) ? 0 : r.range(0, extent);
    const int32_t after = r.range(0, before + extra);
    const int32_t span = in + before + after - extent;
    if (span < 0) continue;
    *pad = before;
    *out = span / stride + 1;
    return;
  }
}

PoolCase random_pool(Rng& r, bool dilated, int32_t max_in, int32_t max_out) {
  PoolCase p;
  int32_t* w = p.window;
  for (;;) {
    const int32_t n = r.one_in(4) ? 2 : 1, c = r.one_in(3) ? r.range(1, 40) : (r.one_in(2) ? 16 : 4) * r.range(1, 2) + r.range(0, 2);
    int32_t h, wd, oh, ow;
    if (r.one_in(10)) {  // global
      h = r.range(14, 20), wd = r.range(14, 20);
      w[0] = h, w[1] = wd, w[2] = w[3] = 1, w[4] = w[5] = 0, w[6] = w[7] = 1, oh = ow = 1;
    } else {
      h = r.range(1, 12), wd = r.range(1, 12);
      w[0] = r.range(1, 5), w[1] = r.range(1, 5), w[2] = r.range(1, 3), w[3] = r.range(1, 3);
      w[6] = dilated && r.one_in(4) ? 2 : 1, w[7] = dilated && r.one_in(4) ? 2 : 1;
      random_axis(r, h, w[0], w[6], w[2], &w[4], &oh);
      random_axis(r, wd, w[1], w[7], w[3], &w[5], &ow);
    }
    // Pools keep the leading padding at most half the window and the trailing one below it
    // (check_window_axis).
    const int32_t ext_h = w[6] * (w[0] - 1) + 1, ext_w = w[7] * (w[1] - 1) + 1;
    const bool pads_ok = 2 * w[4] <= ext_h && (oh - 1) * w[2] + ext_h - h - w[4] < ext_h && 2 * w[5] <= ext_w &&
                         (ow - 1) * w[3] + ext_w - wd - w[5] < ext_w;
    const int32_t in[4] = {n, h, wd, c}, out[4] = {n, oh, ow, c};
    for (int32_t k = 0; k < 4; ++k) p.in_dims[k] = in[k], p.out_dims[k] = out[k];
    if (pads_ok && element_count(p.in_dims, 4) <= max_in && element_count(p.out_dims, 4) <= max_out) return p;
  }
}

}  // namespace ember::kernels::arm::testing
