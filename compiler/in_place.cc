//===- in_place.cc - Which ops may write their output over an input ------===//

#include "ember/compiler/in_place.h"

#include <algorithm>
#include <cstring>

#include "ember/compiler/kernel_table.h"

namespace ember::compiler {

std::optional<uint64_t> row_stream_delta(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                                         size_t elem, int64_t stride_h, int64_t pad_top, int64_t block) {
  if (in.size() != 4 || out.size() != 4 || in[0] != 1 || out[0] != 1 || stride_h < 1 || pad_top < 0 || block < 1)
    return std::nullopt;
  const int64_t in_row = in[2] * in[3] * static_cast<int64_t>(elem);
  const int64_t pixel = out[3] * static_cast<int64_t>(elem), width = out[2];
  int64_t delta = 0;
  // Output pixel q is written while the inputs of pixels from q - block + 1 on may still be
  // read: rows from first(row of that pixel). Within a row the worst pixel is the last one,
  // or one of the first block - 1 (whose block reaches back into the previous row).
  auto at = [&](int64_t q) {
    const int64_t y0 = std::max<int64_t>(0, q - block + 1) / std::max<int64_t>(1, width);
    const int64_t first = std::min(in[1], std::max<int64_t>(0, y0 * stride_h - pad_top));
    delta = std::max(delta, (q + 1) * pixel - first * in_row);
  };
  for (int64_t y = 0; y < out[1] && width > 0; ++y) {
    for (int64_t x = 0; x < std::min(width, block - 1); ++x) at(y * width + x);
    at(y * width + width - 1);
  }
  return static_cast<uint64_t>(delta);
}

std::optional<uint64_t> row_stream_rise(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                                        size_t elem, int64_t stride_h, int64_t pad_top, int64_t window,
                                        int64_t block) {
  if (in.size() != 4 || out.size() != 4 || in[0] != 1 || out[0] != 1 || stride_h < 1 || pad_top < 0 || block < 1 ||
      window < 1)
    return std::nullopt;
  const int64_t in_row = in[2] * in[3] * static_cast<int64_t>(elem);
  const int64_t pixel = out[3] * static_cast<int64_t>(elem), width = out[2], total = out[1] * out[2];
  int64_t rise = 0;
  // Output pixel q is written while the inputs of pixels up to q + block - 1 may still be
  // read: rows up to last(row of that pixel). Within a row the worst pixel is the first one,
  // or one whose block reaches into a later row (the last block - 1).
  auto at = [&](int64_t q) {
    const int64_t y = std::min(total - 1, q + block - 1) / width;
    const int64_t last = std::clamp<int64_t>(y * stride_h - pad_top + window - 1, -1, in[1] - 1);
    rise = std::max(rise, (last + 1) * in_row - q * pixel);
  };
  for (int64_t y = 0; y < out[1] && width > 0; ++y) {
    at(y * width);
    for (int64_t x = std::max<int64_t>(1, width - block + 1); x < width; ++x) at(y * width + x);
  }
  return static_cast<uint64_t>(rise);
}

std::vector<InPlace> in_place_candidates(const Graph& g, const Op& op, PlanMode mode) {
  std::vector<InPlace> out;
  if (mode == PlanMode::Simple || op.kernel < 0 || op.outputs.empty()) return out;  // output 0; 1 = scratch
  const KernelInfo* info = kernel_info(op.kernel);
  if (!info) return out;
  const Tensor& result = g.tensors[op.outputs[0]];
  auto operand = [&](size_t i) -> const Tensor* {
    if (i >= op.inputs.size() || op.inputs[i] < 0 || g.tensors[op.inputs[i]].is_constant) return nullptr;
    return &g.tensors[op.inputs[i]];
  };
  auto elementwise = [&](size_t i) {
    const Tensor* t = operand(i);
    if (t && t->shape == result.shape && dtype_size(result.dtype) <= dtype_size(t->dtype)) out.push_back({int(i), 0});
  };
  using rt::InPlaceRule;
  switch (info->in_place) {
    case InPlaceRule::Binary: elementwise(0); elementwise(1); return out;
    case InPlaceRule::Unary: elementwise(0); return out;
    case InPlaceRule::None: return out;
    case InPlaceRule::Npu: return out;  // its inputs are windows of its scratch (plan_memory)
    default: break;  // row-streaming
  }
  if (mode != PlanMode::Smallest) return out;
  // Positions in the kernel's ints (kernels/kernels.def): conv and depthwise {stride_h,
  // stride_w, pad_top, ...}, pools {kh, kw, stride_h, stride_w, pad_top, ...}.
  const bool pool = info->in_place == InPlaceRule::PoolRows;
  const int stride = pool ? 2 : 0, pad = pool ? 4 : 2;
  const int64_t block = info->in_place == InPlaceRule::ConvRows ? kConvBlockPixels : 1;  // pixels per block
  const Tensor* in = operand(0);
  if (!in || static_cast<int>(op.ints.size()) <= pad) return out;
  auto delta = row_stream_delta(in->shape, result.shape, dtype_size(result.dtype), op.ints[stride], op.ints[pad], block);
  if (!delta) return out;
  InPlace rule{0, *delta};
  // Bottom-up: conv2d_s8 and depthwise_conv2d_s8 (filter OHWI or 1HWC: KH is dimension 1).
  const Tensor* filter = op.inputs.size() > 1 && op.inputs[1] >= 0 ? &g.tensors[op.inputs[1]] : nullptr;
  if (!pool && filter && filter->shape.size() == 4 && op.ints.size() > 4)
    if (auto rise = row_stream_rise(in->shape, result.shape, dtype_size(result.dtype), op.ints[stride], op.ints[pad],
                                    op.ints[4] * (filter->shape[1] - 1) + 1, block))
      rule.may_rise = true, rule.rise = *rise;
  if (info->in_place == InPlaceRule::DepthwiseRows && in->shape.size() == 4)
    rule.grain = static_cast<uint64_t>(in->shape[3]) * dtype_size(in->dtype);
  out.push_back(rule);
  return out;
}

}  // namespace ember::compiler
