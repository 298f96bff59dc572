//===- select_kernel.cc - A kernel per op, parameters packed --------------===//
//
// Chooses the kernel for each op from its kind and operand dtypes, and packs the op's
// attributes into the integer and float parameter lists in the order kernels/kernels.def fixes.
// Reshapes get no kernel: the memory planner makes them views. The kernel chosen here is the
// portable one; pack_weights then records, per op, whether the target's tier has an optimized
// kernel for it or why not, so `ember inspect` can show it.

#include <cmath>

#include "ember/compiler/kernel_table.h"
#include "ember/compiler/op_info.h"
#include "ember/compiler/passes/pass_util.h"
#include "ember/compiler/passes/passes.h"
#include "ember/kernels/portable/reduce.h"
#include "ember/runtime/op_signatures.h"

namespace ember::compiler {
namespace {

using I = std::vector<int32_t>;

int32_t n(const Op& op, const char* key) { return static_cast<int32_t>(op.i(key)); }
int32_t at(const Op& op, const char* key, size_t i) { return static_cast<int32_t>(op.ints_attr(key)[i]); }

float act(const Op& op, const char* key, float fallback) {
  return op.has(key) ? static_cast<float>(op.f(key)) : fallback;
}

I window(const Op& op) {  // kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left
  return {at(op, "kernel", 0), at(op, "kernel", 1), at(op, "stride", 0), at(op, "stride", 1),
          at(op, "padding", 0), at(op, "padding", 1)};
}

I conv_geometry(const Op& op) {
  return {at(op, "stride", 0), at(op, "stride", 1), at(op, "padding", 0), at(op, "padding", 1),
          at(op, "dilation", 0), at(op, "dilation", 1)};
}

I concat(I a, const I& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

I int_vector(const std::vector<int64_t>& v) { return I(v.begin(), v.end()); }

// The runtime takes at most kMaxVariadicInputs inputs per op (its operand views live on the
// stack): a wider cat (an unrolled sequence stacked over time) becomes cats of groups first,
// each into a tensor of the output's dtype and quantization, pushed ahead of the final cat.
void split_wide_cat(Graph& g, Op& op) {
  const size_t group = rt::kMaxVariadicInputs;
  const int64_t dim = op.i("dim");
  while (op.inputs.size() > group) {
    std::vector<int> merged;
    for (size_t i = 0; i < op.inputs.size(); i += group) {
      const std::vector<int> part(op.inputs.begin() + i, op.inputs.begin() + std::min(op.inputs.size(), i + group));
      if (part.size() == 1) { merged.push_back(part[0]); continue; }
      const int t = g.add_tensor_like(op.outputs[0], "_part" + std::to_string(i / group));
      g.tensors[t].shape[dim] = 0;
      for (int p : part) g.tensors[t].shape[dim] += g.tensors[p].shape[dim];
      Op cat = op;
      cat.inputs = part;
      cat.outputs = {t};
      cat.kernel = kernel_id(g.tensors[t].dtype == DType::Int8 ? "cat_s8" : "cat_f32");
      cat.kernel_reason = "portable reference kernel";
      g.ops.push_back(std::move(cat));
      merged.push_back(t);
    }
    op.inputs = merged;
  }
}

// Why an op of a quantized program runs in float.
std::string float_reason(const std::string& kind) {
  if (has_trait(kind, Int8)) return "float: its operands are float (the quantizer left them so)";
  if (has_trait(kind, ScalarTable)) return "float: " + kind + " of two tensors has no int8 form";
  return "float: " + kind + " has no int8 form";
}

}  // namespace

Status select_kernel(Graph& g, const Target&, Diagnostics& diag) {
  // In a quantized program, a float op is a fallback worth naming (`ember inspect`).
  bool quantized = false;
  for (const Tensor& t : g.tensors) quantized |= !t.is_constant && t.dtype == DType::Int8;
  std::vector<Op> ops = std::move(g.ops);
  g.ops.clear();
  for (Op& op : ops) {
    const std::string& k = op.kind;
    const bool s8 = g.tensors[op.outputs[0]].dtype == DType::Int8;
    const std::string suffix = s8 ? "_s8" : "_f32";
    const float lo = act(op, "act_min", -INFINITY), hi = act(op, "act_max", INFINITY);
    std::string name;
    op.ints.clear();
    op.floats.clear();
    if (k == "reshape") {
      g.ops.push_back(std::move(op));
      continue;
    } else if (k == "ethos_u") {  // keeps its note (delegate_npu)
      op.kernel = kernel_id("ethos_u");
      op.ints = concat(concat({n(op, "npu")}, int_vector(op.ints_attr("input_offsets"))),
                       int_vector(op.ints_attr("output_offsets")));
      g.ops.push_back(std::move(op));
      continue;
    } else if (k == "conv") {
      name = (op.i("depthwise") ? "depthwise_conv2d" : "conv2d") + suffix;
      op.ints = conv_geometry(op);
      if (s8) op.ints = concat(op.ints, {n(op, "input_zp"), n(op, "output_zp"), n(op, "q_min"), n(op, "q_max")});
      else op.floats = {lo, hi};
    } else if (k == "linear") {
      name = "fully_connected" + suffix;
      if (s8) op.ints = {n(op, "input_zp"), n(op, "output_zp"), n(op, "q_min"), n(op, "q_max")};
      else op.floats = {lo, hi};
    } else if (k == "add" && s8) {
      name = "add_s8";
      for (const char* key : {"left_shift", "a_zp", "a_multiplier", "a_shift", "b_zp", "b_multiplier",
                              "b_shift", "output_zp", "output_multiplier", "output_shift", "q_min", "q_max"})
        op.ints.push_back(n(op, key));
    } else if (k == "matmul") {
      name = "batch_matmul" + suffix;
      if (s8)
        for (const char* key : {"a_zp", "b_zp", "output_zp", "output_multiplier", "output_shift", "q_min", "q_max"})
          op.ints.push_back(n(op, key));
    } else if (k == "layer_norm") {
      name = "layer_norm_f32";
      op.floats = {static_cast<float>(op.f("eps"))};
    } else if (k == "mul" && s8) {
      name = "mul_s8";
      for (const char* key : {"a_zp", "b_zp", "output_zp", "output_multiplier", "output_shift", "q_min", "q_max"})
        op.ints.push_back(n(op, key));
    } else if (has_trait(k, Binary) && !s8) {
      name = k + "_f32";
      op.floats = {lo, hi};
    } else if (k == "avg_pool2d") {
      name = "avg_pool2d" + suffix;
      op.ints = concat(window(op), {n(op, "count_include_pad")});
      if (s8) op.ints = concat(op.ints, {static_cast<int32_t>(g.tensors[op.inputs[0]].quant->zero_point[0]),
                                         n(op, "q_min"), n(op, "q_max")});
    } else if (k == "max_pool2d") {
      name = "max_pool2d" + suffix;
      op.ints = concat(window(op), {at(op, "dilation", 0), at(op, "dilation", 1)});
      if (s8) op.ints = concat(op.ints, {n(op, "q_min"), n(op, "q_max")});
    } else if (k == "avg_pool3d") {
      name = "avg_pool3d_f32";
      op.ints = concat(concat(int_vector(op.ints_attr("kernel")), int_vector(op.ints_attr("stride"))),
                       concat(int_vector(op.ints_attr("padding")), {n(op, "count_include_pad")}));
    } else if (k == "softmax") {
      name = "softmax" + suffix;
    } else if (k == "lut") {
      name = "lut_s8";
    } else if (k == "requantize") {
      name = "requantize_s8";
      for (const char* key : {"input_zp", "output_zp", "multiplier", "shift", "q_min", "q_max"})
        op.ints.push_back(n(op, key));
    } else if (k == "pad") {
      name = "pad" + suffix;
      const double value = op.f("value");
      if (s8) {
        const Quant& q = *g.tensors[op.outputs[0]].quant;
        const double qv = std::nearbyint(value / q.scale[0]) + q.zero_point[0];
        op.ints.push_back(static_cast<int32_t>(std::fmin(127.0, std::fmax(-128.0, qv))));
      } else {
        op.floats = {static_cast<float>(value)};
      }
      op.ints = concat(op.ints, int_vector(op.ints_attr("before")));
    } else if (k == "transpose") {
      name = "transpose" + suffix;
      op.ints = int_vector(op.ints_attr("perm"));
    } else if (k == "cat") {
      name = "cat" + suffix;
      op.ints = {n(op, "dim")};
      split_wide_cat(g, op);
    } else if (k == "slice") {
      name = "slice";
      op.ints = {n(op, "dim"), n(op, "start"), n(op, "step")};
    } else if (k == "adaptive_pool") {
      name = "adaptive_pool" + suffix;
      op.ints = concat({n(op, "function")}, int_vector(op.ints_attr("axes")));
    } else if (k == "resize") {
      name = op.i("mode") == 0 ? "resize_nearest" : "resize_bilinear" + suffix;
      if (op.i("mode") == 1) op.ints = {at(op, "axes", 0), at(op, "axes", 1), n(op, "align_corners")};
    } else if (k == "spread") {  // fills with zero: the zero point, or float 0.0's bits (0)
      name = "spread";
      op.ints = {n(op, "dim"), 0, n(op, "step"), s8 ? g.tensors[op.inputs[0]].quant->zero_point[0] : 0};
    } else if (k == "mean" || k == "sum" || k == "amax" || k == "amin") {
      name = "reduce" + suffix;
      using kernels::Reduction;
      const Reduction fn = k == "mean" ? Reduction::Mean : k == "sum" ? Reduction::Sum
                           : k == "amax" ? Reduction::Max : Reduction::Min;
      op.ints = {static_cast<int32_t>(fn)};
      if (s8 && k == "sum") {
        for (const char* key : {"input_zp", "output_zp", "multiplier", "shift", "q_min", "q_max"})
          op.ints.push_back(n(op, key));
      } else if (s8) {
        const int32_t zp = g.tensors[op.inputs[0]].quant->zero_point[0];
        op.ints = concat(op.ints, {zp, zp, 0, 0, n(op, "q_min"), n(op, "q_max")});
      }
      op.ints = concat(op.ints, int_vector(op.ints_attr("axes")));
    } else if (k == "quantize") {
      name = "quantize_s8";
      const Quant& q = *g.tensors[op.outputs[0]].quant;
      op.ints = {q.zero_point[0]};
      op.floats = {static_cast<float>(1.0 / q.scale[0])};
    } else if (k == "dequantize") {
      const Quant& q = *g.tensors[op.inputs[0]].quant;
      if (!q.per_tensor()) {
        diag.error(op, "dequantize: per-channel dequantization of an activation is not supported");
        continue;
      }
      name = "dequantize_s8";
      op.ints = {q.zero_point[0]};
      op.floats = {static_cast<float>(q.scale[0])};
    } else if (has_trait(k, Unary) && !s8) {
      name = k + "_f32";
      if (k == "gelu") op.ints = {n(op, "approximate")};
      if (k == "clamp") op.floats = {static_cast<float>(op.f("min")), static_cast<float>(op.f("max"))};
      if (k == "leaky_relu") op.floats = {static_cast<float>(op.f("slope"))};
      if (k == "elu") op.floats = {static_cast<float>(op.f("alpha")), static_cast<float>(op.f("scale")),
                                   static_cast<float>(op.f("input_scale"))};
    }
    op.kernel = name.empty() ? -1 : kernel_id(name);
    if (op.kernel < 0) {
      diag.error(op, k + ": no " + (s8 ? "int8" : "float") + " kernel" + (name.empty() ? "" : " '" + name + "'"));
      continue;
    }
    op.kernel_reason = s8 || !quantized || k == "dequantize" || kernel_info(op.kernel)->moves_bytes()
                           ? "portable reference kernel"
                           : float_reason(k);
    if (k == "softmax" && op.i("dim") + 1 != static_cast<int64_t>(g.tensors[op.inputs[0]].shape.size())) {
      // Over another axis: that axis swapped with the last one, the softmax, and back.
      std::vector<int64_t> perm(g.tensors[op.inputs[0]].shape.size());
      for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
      std::swap(perm[static_cast<size_t>(op.i("dim"))], perm.back());
      const int x = op.inputs[0], y = op.outputs[0];
      auto swapped = [&](int t) {
        std::vector<int64_t> shape = g.tensors[t].shape;
        std::swap(shape[static_cast<size_t>(op.i("dim"))], shape.back());
        return g.add_tensor_like(t, "_axis_last", shape);
      };
      op.inputs[0] = swapped(x), op.outputs[0] = swapped(y);
      auto transpose = [&](int from, int to) {
        Op t{"transpose", {from}, {to}, {{"perm", perm}}, op.source};
        t.kernel = kernel_id("transpose" + suffix);
        t.kernel_reason = "portable reference kernel";
        t.ints = int_vector(perm);
        return t;
      };
      g.ops.push_back(transpose(x, op.inputs[0]));
      const Op after = transpose(op.outputs[0], y);
      g.ops.push_back(std::move(op));
      g.ops.push_back(after);
      continue;
    }
    const bool pool = k == "avg_pool2d" || k == "max_pool2d";
    if (pool && !s8 && (std::isfinite(lo) || std::isfinite(hi))) {  // float pools take no bounds
      const int out = op.outputs[0];
      const int pooled = g.add_tensor_like(out, "_pooled");
      op.outputs[0] = pooled;
      Op clamp{"clamp", {pooled}, {out}, {}, op.source};
      clamp.kernel = kernel_id("clamp_f32");
      clamp.kernel_reason = op.kernel_reason;
      clamp.floats = {lo, hi};
      g.ops.push_back(std::move(op));
      g.ops.push_back(std::move(clamp));
      continue;
    }
    g.ops.push_back(std::move(op));
  }
  return diag.empty() ? Status::Success : Status::Failure;
}

}  // namespace ember::compiler
