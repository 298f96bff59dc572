//===- legalize.cc - Map aten ops onto Ember's op set ---------------------===//
//
// The front end copies aten nodes verbatim. This pass gives each one its Ember name and a
// normalised attribute set (explicit 4-sided padding, expanded strides, constant scalars as
// tensors), removes pure aliases (clone, dropout, contiguous), rewrites inference batch norm as
// a multiply-add by constants, and rejects every op it does not know with the op's aten name
// and the user's source line.

#include <cmath>
#include <limits>
#include <algorithm>
#include <map>
#include <set>

#include "compiler/op_info.h"
#include "compiler/passes/pass_util.h"
#include "compiler/passes/passes.h"

namespace ember::compiler {
namespace {

using Ints = std::vector<int64_t>;

std::string base_name(const std::string& kind) {
  // "aten.conv2d.default" -> "aten.conv2d"; the overload rarely matters after the front end.
  const size_t dot = kind.rfind('.');
  const size_t first = kind.find('.');
  return dot != std::string::npos && dot != first ? kind.substr(0, dot) : kind;
}

Ints expand(const Ints& v, size_t n, int64_t fill) {
  if (v.empty()) return Ints(n, fill);
  if (v.size() == 1) return Ints(n, v[0]);
  return v;
}

Ints int_list(const Op& op, const std::string& key, size_t n, int64_t fill) {
  if (!op.has(key)) return Ints(n, fill);
  if (auto* v = std::get_if<int64_t>(&op.attrs.at(key))) return Ints(n, *v);
  return expand(op.ints_attr(key), n, fill);
}

const std::set<std::string> kAliases = {
    "aten.clone", "aten.contiguous", "aten.dropout", "aten.alias", "aten.detach",
    "aten.lift_fresh_copy", "aten.feature_dropout", "aten.alpha_dropout"};

class Legalizer {
 public:
  Legalizer(Graph& g, Diagnostics& d) : g_(g), diag_(d) {}

  Status run() {
    // Aliases first, while every reader is still in g_.ops.
    for (Op& op : g_.ops)
      if (kAliases.count(base_name(op.kind))) alias(op);
    std::vector<Op> ops = std::move(g_.ops);
    g_.ops.clear();
    for (Op& op : ops) legalize(op);
    return diag_.empty() ? Status::Success : Status::Failure;
  }

 private:
  void emit(Op op) { g_.ops.push_back(std::move(op)); }
  const Tensor& in(const Op& op, size_t i) { return g_.tensors[op.inputs[i]]; }

  void legalize(Op& op) {
    const std::string name = base_name(op.kind);
    // ops.def's aten column, and rsub (other - self), sub with its operands swapped below.
    static const std::map<std::string, std::string> kRenames = [] {
      std::map<std::string, std::string> renames{{"aten.rsub", "sub"}};
      size_t count = 0;
      const OpInfo* ops = op_table(&count);
      for (size_t i = 0; i < count; ++i)
        if (*ops[i].aten != '\0') renames[ops[i].aten] = ops[i].kind;
      return renames;
    }();
    static const std::map<std::string, std::string> kViews = {
        {"aten.view", ""}, {"aten.reshape", ""}, {"aten._unsafe_view", ""},
        {"aten.flatten", ""}, {"aten.squeeze", ""}, {"aten.unsqueeze", ""},
        {"aten.view_copy", ""}, {"aten.expand_dims", ""}};

    if (name == "aten.gelu") {
      const bool tanh = op.has("approximate") && op.s("approximate") == "tanh";
      op.kind = "gelu";
      op.attrs = {{"approximate", int64_t{tanh ? 1 : 0}}};
      return emit(std::move(op));
    }
    if (auto it = kRenames.find(name); it != kRenames.end()) {
      if ((it->second == "add" || it->second == "sub") && op.has("alpha") && op.f("alpha") != 1.0)
        return fail(op, "alpha != 1 is not supported");
      if (it->second == "div" && op.has("rounding_mode"))
        return fail(op, "div with a rounding mode is not supported");
      // Scalar overloads carry one operand as a number attribute (rsub.Scalar's `other`,
      // pow.Tensor_Scalar's `exponent`, pow.Scalar's `self`); kernels take tensors only.
      const std::string out_name = g_.tensors[op.outputs[0]].name;
      for (const char* key : {"other", "exponent"})
        if (op.has(key))
          op.inputs.push_back(add_constant_f32(g_, out_name + "_" + key, {}, {static_cast<float>(op.f(key))}));
      if (op.has("self"))
        op.inputs.insert(op.inputs.begin(), add_constant_f32(g_, out_name + "_self", {}, {static_cast<float>(op.f("self"))}));
      if (name == "aten.rsub") std::swap(op.inputs[0], op.inputs[1]);  // other - self
      op.kind = it->second;
      op.attrs.clear();
      return emit(std::move(op));
    }
    if (kViews.count(name)) return reshape(op);
    if (kAliases.count(name)) return;  // rewired in run()
    if (name == "aten.conv1d" || name == "aten.conv2d" || name == "aten.convolution") return conv(op);
    if (name == "aten.relu") return clamp(op, 0.0, INFINITY);
    if (name == "aten.relu6") return clamp(op, 0.0, 6.0);
    if (name == "aten.hardtanh")
      return clamp(op, op.has("min_val") ? op.f("min_val") : -1.0, op.has("max_val") ? op.f("max_val") : 1.0);
    if (name == "aten.clamp")
      return clamp(op, op.has("min") ? op.f("min") : -INFINITY, op.has("max") ? op.f("max") : INFINITY);
    if (name == "aten.avg_pool2d") return avg_pool2d(op);
    if (name == "aten.max_pool2d") return max_pool2d(op);
    if (name == "aten.avg_pool3d") return avg_pool3d(op);
    if (name == "aten.adaptive_avg_pool2d") return adaptive_avg_pool2d(op);
    if (name == "aten.mean") return mean(op);
    if (name == "aten.softmax" || name == "aten._softmax") {
      op.attrs = {{"dim", norm_dim(op.i("dim"), in(op, 0).shape.size())}};
      op.kind = "softmax";
      op.inputs.resize(1);
      return emit(std::move(op));
    }
    if (name == "aten.permute") return transpose(op, op.ints_attr("dims"));
    if (name == "aten.transpose") {
      const size_t rank = in(op, 0).shape.size();
      Ints perm(rank);
      for (size_t d = 0; d < rank; ++d) perm[d] = static_cast<int64_t>(d);
      std::swap(perm[norm_dim(op.i("dim0"), rank)], perm[norm_dim(op.i("dim1"), rank)]);
      return transpose(op, perm);
    }
    if (name == "aten.t") return transpose(op, in(op, 0).shape.size() == 2 ? Ints{1, 0} : Ints{0});
    if (name == "aten.cat" || name == "aten.concat") {
      const int64_t dim = op.has("dim") ? op.i("dim") : 0;
      op.attrs = {{"dim", norm_dim(dim, g_.tensors[op.outputs[0]].shape.size())}};
      op.kind = "cat";
      return emit(std::move(op));
    }
    if (name == "aten.pad" || name == "aten.constant_pad_nd") return pad(op);
    if (name == "aten._native_batch_norm_legit_no_training" || name == "aten.batch_norm")
      return batch_norm(op);
    if (name == "quantized_decomposed.quantize_per_tensor") return quantize(op);
    if (name == "quantized_decomposed.dequantize_per_tensor" ||
        name == "quantized_decomposed.dequantize_per_channel")
      return dequantize(op);
    fail(op, "unsupported op '" + op.kind + "': Ember has no kernel for it");
  }

  void fail(const Op& op, const std::string& message) {
    diag_.error(op, op.kind + ": " + message);
  }

  void alias(Op& op) {
    // Identity: readers of the output read the input instead.
    if (g_.is_graph_output(op.outputs[0]) && g_.tensors[op.inputs[0]].is_constant)
      return fail(op, "a constant as a model output is not supported");
    g_.replace_uses(op.outputs[0], op.inputs[0]);
  }

  void reshape(Op& op) {
    op.kind = "reshape";
    op.attrs.clear();
    op.inputs.resize(1);
    emit(std::move(op));
  }

  void transpose(Op& op, Ints perm) {
    const size_t rank = in(op, 0).shape.size();
    for (auto& p : perm) p = norm_dim(p, rank);
    op.kind = "transpose";
    op.attrs = {{"perm", perm}};
    op.inputs.resize(1);
    emit(std::move(op));
  }

  void clamp(Op& op, double lo, double hi) {
    op.kind = "clamp";
    op.attrs = {{"min", lo}, {"max", hi}};
    op.inputs.resize(1);
    emit(std::move(op));
  }

  void conv(Op& op) {
    const Tensor& x = in(op, 0);
    const Tensor& w = in(op, 1);
    const size_t rank = x.shape.size();
    if (rank != 3 && rank != 4) return fail(op, "only 1-D and 2-D convolution is supported");
    if (op.has("transposed") && op.i("transposed")) return fail(op, "transposed convolution is not supported");
    const size_t n = rank - 2;
    Ints stride = int_list(op, "stride", n, 1), dilation = int_list(op, "dilation", n, 1);
    Ints kernel(w.shape.begin() + 2, w.shape.end());
    Ints before(n, 0), after(n, 0);
    const Tensor& y = g_.tensors[op.outputs[0]];
    if (op.has("padding") && std::holds_alternative<std::string>(op.attrs.at("padding"))) {
      if (op.s("padding") == "same") {
        for (size_t d = 0; d < n; ++d) {
          const int64_t total = (y.shape[2 + d] - 1) * stride[d] + (kernel[d] - 1) * dilation[d] + 1 - x.shape[2 + d];
          before[d] = total / 2;
          after[d] = total - before[d];
        }
      }
    } else {
      before = after = int_list(op, "padding", n, 0);
    }
    const int64_t groups = op.has("groups") ? op.i("groups") : 1;
    if (n == 1) {  // a 1-D conv is a 2-D conv over [L, 1]
      stride.push_back(1), dilation.push_back(1), before.push_back(0), after.push_back(0);
    }
    op.kind = "conv";
    op.attrs = {{"stride", stride}, {"dilation", dilation},
                {"padding", Ints{before[0], before[1], after[0], after[1]}},
                {"groups", groups}, {"rank", static_cast<int64_t>(rank)}};
    op.inputs.resize(3, -1);
    emit(std::move(op));
  }

  void pool_common(Op& op, const Ints& kernel, Ints stride, Ints padding) {
    if (stride.empty()) stride = kernel;
    op.attrs["kernel"] = kernel;
    op.attrs["stride"] = stride;
    op.attrs["padding"] = Ints{padding[0], padding[1], padding[0], padding[1]};
    op.inputs.resize(1);
  }

  void avg_pool2d(Op& op) {
    if (op.has("divisor_override")) return fail(op, "divisor_override is not supported");
    const Ints kernel = int_list(op, "kernel_size", 2, 1);
    const Ints stride = op.has("stride") ? expand(op.ints_attr("stride"), 2, 0) : Ints{};
    const Ints padding = int_list(op, "padding", 2, 0);
    const int64_t include = op.has("count_include_pad") ? op.i("count_include_pad") : 1;
    op.attrs.clear();
    pool_common(op, kernel, stride.empty() || stride[0] == 0 ? Ints{} : stride, padding);
    op.attrs["count_include_pad"] = include;
    op.kind = "avg_pool2d";
    emit(std::move(op));
  }

  void max_pool2d(Op& op) {
    const Ints kernel = int_list(op, "kernel_size", 2, 1);
    const Ints stride = op.has("stride") ? expand(op.ints_attr("stride"), 2, 0) : Ints{};
    const Ints padding = int_list(op, "padding", 2, 0);
    const Ints dilation = int_list(op, "dilation", 2, 1);
    op.attrs.clear();
    pool_common(op, kernel, stride.empty() || stride[0] == 0 ? Ints{} : stride, padding);
    op.attrs["dilation"] = dilation;
    op.kind = "max_pool2d";
    emit(std::move(op));
  }

  void avg_pool3d(Op& op) {
    if (op.has("divisor_override")) return fail(op, "divisor_override is not supported");
    const Ints kernel = int_list(op, "kernel_size", 3, 1);
    Ints stride = op.has("stride") ? expand(op.ints_attr("stride"), 3, 0) : Ints{};
    if (stride.empty() || stride[0] == 0) stride = kernel;
    const Ints padding = int_list(op, "padding", 3, 0);
    const int64_t include = op.has("count_include_pad") ? op.i("count_include_pad") : 1;
    op.attrs = {{"kernel", kernel}, {"stride", stride}, {"padding", padding},
                {"count_include_pad", include}};
    op.kind = "avg_pool3d";
    op.inputs.resize(1);
    emit(std::move(op));
  }

  void global_avg_pool(Op& op, int out_tensor) {
    const Tensor& x = in(op, 0);
    op.kind = "avg_pool2d";
    op.attrs.clear();
    pool_common(op, Ints{x.shape[2], x.shape[3]}, Ints{1, 1}, Ints{0, 0});
    op.attrs["count_include_pad"] = int64_t{1};
    op.outputs = {out_tensor};
    emit(std::move(op));
  }

  void adaptive_avg_pool2d(Op& op) {
    const Tensor& x = in(op, 0);
    const Tensor& y = g_.tensors[op.outputs[0]];
    if (x.shape.size() != 4) return fail(op, "expects a 4-D input");
    const int64_t oh = y.shape[2], ow = y.shape[3];
    if (x.shape[2] % oh || x.shape[3] % ow)
      return fail(op, "output size must divide the input size");
    const Ints kernel{x.shape[2] / oh, x.shape[3] / ow};
    op.kind = "avg_pool2d";
    op.attrs.clear();
    pool_common(op, kernel, kernel, Ints{0, 0});
    op.attrs["count_include_pad"] = int64_t{1};
    emit(std::move(op));
  }

  void mean(Op& op) {
    const Tensor& x = in(op, 0);
    if (x.shape.size() != 4) return fail(op, "mean is supported over H and W of a 4-D tensor only");
    Ints dims = op.ints_attr("dim");
    for (auto& d : dims) d = norm_dim(d, 4);
    std::sort(dims.begin(), dims.end());
    if (dims != Ints{2, 3}) return fail(op, "mean is supported over H and W of a 4-D tensor only");
    const bool keepdim = op.has("keepdim") && op.i("keepdim");
    if (keepdim) return global_avg_pool(op, op.outputs[0]);
    // mean without keepdim = global pool to [N, C, 1, 1], then a view to [N, C].
    const int out = op.outputs[0];
    Tensor pooled = g_.tensors[out];
    pooled.name += "_pooled";
    pooled.shape = {x.shape[0], x.shape[1], 1, 1};
    const int pooled_id = g_.add_tensor(std::move(pooled));
    Op view;
    view.kind = "reshape";
    view.inputs = {pooled_id};
    view.outputs = {out};
    view.source = op.source;
    global_avg_pool(op, pooled_id);
    emit(std::move(view));
  }

  void pad(Op& op) {
    if (op.has("mode") && op.s("mode") != "constant") return fail(op, "only constant padding is supported");
    const size_t rank = in(op, 0).shape.size();
    const Ints pad = op.ints_attr("pad");
    Ints before(rank, 0), after(rank, 0);
    for (size_t k = 0; k < pad.size() / 2; ++k) {  // aten lists pads from the last dim backwards
      before[rank - 1 - k] = pad[2 * k];
      after[rank - 1 - k] = pad[2 * k + 1];
    }
    for (size_t d = 0; d < rank; ++d)
      if (before[d] < 0 || after[d] < 0) return fail(op, "negative padding is not supported");
    const double value = op.has("value") ? op.f("value") : 0.0;
    op.kind = "pad";
    op.attrs = {{"before", before}, {"after", after}, {"value", value}};
    op.inputs.resize(1);
    emit(std::move(op));
  }

  void batch_norm(Op& op) {
    // Inference batch norm: y = x * (gamma / sqrt(var + eps)) + (beta - mean * that).
    const Tensor& x = in(op, 0);
    const size_t c = static_cast<size_t>(x.shape[1]);
    auto values = [&](size_t i, double fill) {
      if (i >= op.inputs.size() || op.inputs[i] < 0) return std::vector<double>(c, fill);
      return constant_values(in(op, i));
    };
    for (size_t i = 1; i < op.inputs.size(); ++i)
      if (op.inputs[i] >= 0 && !in(op, i).is_constant) return fail(op, "batch norm statistics must be constant");
    const auto gamma = values(1, 1.0), beta = values(2, 0.0), mu = values(3, 0.0), var = values(4, 1.0);
    const double eps = op.has("eps") ? op.f("eps") : 1e-5;
    std::vector<float> scale(c), shift(c);
    for (size_t k = 0; k < c; ++k) {
      const double s = gamma[k] / std::sqrt(var[k] + eps);
      scale[k] = static_cast<float>(s);
      shift[k] = static_cast<float>(beta[k] - mu[k] * s);
    }
    Ints shape(x.shape.size() - 1, 1);
    shape[0] = static_cast<int64_t>(c);
    const std::string name = g_.tensors[op.outputs[0]].name;
    const int scale_t = add_constant_f32(g_, name + "_bn_scale", shape, scale);
    const int shift_t = add_constant_f32(g_, name + "_bn_shift", shape, shift);
    const int scaled = g_.add_tensor_like(op.outputs[0], "_bn_scaled");
    Op mul{"mul", {op.inputs[0], scale_t}, {scaled}, {}, op.source};
    Op add{"add", {scaled, shift_t}, {op.outputs[0]}, {}, op.source};
    emit(std::move(mul));
    emit(std::move(add));
  }

  // Scale and zero point come as scalar attributes (.default) or as constant tensors (.tensor).
  bool read_qparams(Op& op, std::vector<double>& scale, std::vector<int32_t>& zp) {
    if (op.has("scale")) {
      scale = {op.f("scale")};
      zp = {static_cast<int32_t>(op.f("zero_point"))};
      return true;
    }
    const char* names[2] = {"scale", "zero_point"};
    for (int k = 0; k < 2; ++k) {
      if (op.inputs.size() < 3 || op.inputs[1 + k] < 0 || !in(op, 1 + k).is_constant) {
        fail(op, std::string(names[k]) + " must be a constant");
        return false;
      }
    }
    scale = constant_values(in(op, 1));
    for (double z : constant_values(in(op, 2))) zp.push_back(static_cast<int32_t>(z));
    return true;
  }

  void quantize(Op& op) {
    std::vector<double> scale;
    std::vector<int32_t> zp;
    if (!read_qparams(op, scale, zp)) return;
    if (op.has("dtype") && op.s("dtype") != "torch.int8") return fail(op, "only int8 quantization is supported");
    op.kind = "quantize";
    op.attrs = {{"qmin", op.has("quant_min") ? op.i("quant_min") : int64_t{-128}},
                {"qmax", op.has("quant_max") ? op.i("quant_max") : int64_t{127}}};
    op.inputs.resize(1);
    g_.tensors[op.outputs[0]].quant = Quant{scale, zp, -1};
    emit(std::move(op));
  }

  void dequantize(Op& op) {
    std::vector<double> scale;
    std::vector<int32_t> zp;
    const bool per_channel = op.kind.find("per_channel") != std::string::npos;
    if (!read_qparams(op, scale, zp)) return;
    const std::string dtype = op.has("dtype") ? op.s("dtype") : "torch.int8";
    if (dtype != "torch.int8" && dtype != "torch.int32") return fail(op, "unsupported quantized dtype " + dtype);
    const int axis = per_channel ? static_cast<int>(norm_dim(op.i("axis"), in(op, 0).shape.size())) : -1;
    Tensor& src = g_.tensors[op.inputs[0]];
    Quant q{scale, zp, axis};
    if (src.quant && !(*src.quant == q)) return fail(op, "a tensor dequantized with two different parameter sets");
    src.quant = q;
    op.kind = "dequantize";
    op.attrs.clear();
    op.inputs.resize(1);
    emit(std::move(op));
  }

  Graph& g_;
  Diagnostics& diag_;
};

}  // namespace

Status legalize(Graph& graph, const Target&, Diagnostics& diag) {
  return Legalizer(graph, diag).run();
}

}  // namespace ember::compiler
