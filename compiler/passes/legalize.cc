//===- legalize.cc - Map aten ops onto Ember's op set ---------------------===//
//
// The front end copies aten nodes verbatim. This pass gives each one its Ember name and a
// normalised attribute set (explicit 4-sided padding, expanded strides, constant scalars as
// tensors), removes pure aliases (clone, dropout, contiguous), rewrites inference batch norm as
// a multiply-add by constants, gives each result of split/unbind a slice of its own, makes 1-D
// pools 2-D ones over [L, 1] (as 1-D convs), turns zeros/ones/full into constants, and rejects
// every op it does not know with the op's aten name and the user's source line.

#include <cmath>
#include <cstring>
#include <limits>
#include <algorithm>
#include <map>
#include <set>

#include "ember/compiler/op_info.h"
#include "ember/compiler/passes/pass_util.h"
#include "ember/compiler/passes/passes.h"

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

enum class How { Alias, View, Rule };

// compiler/aten_ops.def: each accepted aten op and how legalize takes it.
const std::map<std::string, How>& aten_ops() {
  static const std::map<std::string, How> ops = {
#define EMBER_ATEN(aten, how, op, note) {aten, How::how},
#include "ember/compiler/aten_ops.def"
#undef EMBER_ATEN
  };
  return ops;
}

bool is(const std::string& name, How how) {
  const auto it = aten_ops().find(name);
  return it != aten_ops().end() && it->second == how;
}

class Legalizer {
 public:
  Legalizer(Graph& g, Diagnostics& d) : g_(g), diag_(d) {}

  Status run() {
    // Aliases first, while every reader is still in g_.ops.
    for (Op& op : g_.ops)
      if (is(base_name(op.kind), How::Alias)) alias(op);
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
    const bool quant = name.rfind("quantized_decomposed.", 0) == 0;
    if (!quant && !kRenames.count(name) && !aten_ops().count(name))
      return fail(op, "unsupported op '" + op.kind + "': Ember has no kernel for it");

    if (name == "aten.gelu") {
      const bool tanh = op.has("approximate") && op.s("approximate") == "tanh";
      op.kind = "gelu";
      op.attrs = {{"approximate", int64_t{tanh ? 1 : 0}}};
      return emit(std::move(op));
    }
    if (name == "aten.leaky_relu") {
      op.kind = "leaky_relu";
      op.attrs = {{"slope", op.has("negative_slope") ? op.f("negative_slope") : 0.01}};
      return emit(std::move(op));
    }
    if (name == "aten.elu") {
      op.kind = "elu";
      op.attrs = {{"alpha", op.has("alpha") ? op.f("alpha") : 1.0}, {"scale", op.has("scale") ? op.f("scale") : 1.0},
                  {"input_scale", op.has("input_scale") ? op.f("input_scale") : 1.0}};
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
    if (is(name, How::View)) return reshape(op);
    if (is(name, How::Alias)) return;  // rewired in run()
    if (name == "aten.conv_transpose1d" || name == "aten.conv_transpose2d" ||
        (name == "aten.convolution" && op.has("transposed") && op.i("transposed")))
      return conv_transpose(op);
    if (name == "aten.conv1d" || name == "aten.conv2d" || name == "aten.convolution") return conv(op);
    if (name == "aten.slice") {
      const int64_t len = in(op, 0).shape[norm_dim(op.has("dim") ? op.i("dim") : 0, in(op, 0).shape.size())];
      const int64_t start = op.has("start") ? op.i("start") : 0;
      return slice(op, op.has("dim") ? op.i("dim") : 0, start < 0 ? std::max<int64_t>(0, start + len) : start,
                   op.has("step") ? op.i("step") : 1, op.outputs[0]);
    }
    if (name == "aten.narrow") return slice(op, op.i("dim"), op.i("start"), 1, op.outputs[0]);
    if (name == "aten.select") return select(op, op.i("dim"), op.i("index"), op.outputs[0]);
    if (name == "aten.split" || name == "aten.split_with_sizes" || name == "aten.unbind") return split(op);
    if (name == "aten.stack") return stack(op);
    if (name == "aten.bmm" || name == "aten.mm" || name == "aten.matmul") return matmul(op);
    if (name == "aten.layer_norm") return layer_norm(op);
    if (name == "aten.flip") return flip(op);
    if (name == "aten.triu" || name == "aten.tril") return triangle(op, name == "aten.triu");
    if (name == "aten.logical_not" || name == "aten.masked_fill") return boolean_mask(op);
    if (name == "aten.expand") {
      if (in(op, 0).num_elements() != g_.tensors[op.outputs[0]].num_elements())
        return fail(op, "expand that repeats values is not supported");
      return reshape(op);
    }
    if (name == "aten.zeros" || name == "aten.ones" || name == "aten.full" || name == "aten.scalar_tensor")
      return fill(op, name == "aten.zeros" ? 0.0 : name == "aten.ones" ? 1.0 : op.f(name == "aten.full" ? "fill_value" : "s"));
    if (name == "aten.upsample_nearest1d" || name == "aten.upsample_nearest2d" || name == "aten.upsample_bilinear2d")
      return resize(op, name == "aten.upsample_bilinear2d");
    if (name == "aten.max_pool1d" || name == "aten.avg_pool1d") return pool1d(op, name == "aten.max_pool1d");
    if (name == "aten.adaptive_avg_pool1d" || name == "aten.adaptive_max_pool1d")
      return adaptive_pool(op, 1, name == "aten.adaptive_max_pool1d");
    if (name == "aten.relu") return clamp(op, 0.0, INFINITY);
    if (name == "aten.relu6") return clamp(op, 0.0, 6.0);
    if (name == "aten.hardtanh")
      return clamp(op, op.has("min_val") ? op.f("min_val") : -1.0, op.has("max_val") ? op.f("max_val") : 1.0);
    if (name == "aten.clamp")
      return clamp(op, op.has("min") ? op.f("min") : -INFINITY, op.has("max") ? op.f("max") : INFINITY);
    if (name == "aten.avg_pool2d") return avg_pool2d(op);
    if (name == "aten.max_pool2d") return max_pool2d(op);
    if (name == "aten.avg_pool3d") return avg_pool3d(op);
    if (name == "aten.adaptive_avg_pool2d" || name == "aten._adaptive_avg_pool2d" || name == "aten.adaptive_max_pool2d")
      return adaptive_pool(op, 2, name == "aten.adaptive_max_pool2d");
    if (name == "aten.mean" || name == "aten.sum" || name == "aten.amax" || name == "aten.amin")
      return reduce(op, name.substr(5));
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
    emit_conv(op, stride, dilation, before, after);
  }

  // The Ember conv: geometry per spatial axis of a 1-D or 2-D convolution, groups from op.
  void emit_conv(Op& op, Ints stride, Ints dilation, Ints before, Ints after) {
    const size_t rank = in(op, 0).shape.size();
    const int64_t groups = op.has("groups") ? op.i("groups") : 1;
    if (rank == 3) {  // a 1-D conv is a 2-D conv over [L, 1]
      stride.push_back(1), dilation.push_back(1), before.push_back(0), after.push_back(0);
    }
    op.kind = "conv";
    op.attrs = {{"stride", stride}, {"dilation", dilation},
                {"padding", Ints{before[0], before[1], after[0], after[1]}},
                {"groups", groups}, {"rank", static_cast<int64_t>(rank)}};
    op.inputs.resize(3, -1);
    emit(std::move(op));
  }

  // A transposed convolution is a convolution of the input with zeros inserted between its
  // samples (stride - 1 per gap: spread ops, which fill with the zero point in int8), padded
  // by dilation * (kernel - 1) - padding (plus output_padding after), with the filter's
  // in/out channels swapped and its taps reversed. The convolution runs on the optimized conv
  // kernels; it multiplies the inserted zeros too (stride^2 times the MACs of the transposed
  // form at stride 2 in 2-D).
  void conv_transpose(Op& op) {
    const Tensor& x = in(op, 0);
    const size_t rank = x.shape.size();
    if (rank != 3 && rank != 4) return fail(op, "only 1-D and 2-D transposed convolution is supported");
    const size_t n = rank - 2;
    const Ints stride = int_list(op, "stride", n, 1), dilation = int_list(op, "dilation", n, 1),
               padding = int_list(op, "padding", n, 0), extra = int_list(op, "output_padding", n, 0);
    const Ints kernel(in(op, 1).shape.begin() + 2, in(op, 1).shape.end());
    Ints before(n), after(n);
    for (size_t d = 0; d < n; ++d) {
      before[d] = dilation[d] * (kernel[d] - 1) - padding[d];
      after[d] = before[d] + extra[d];
      if (before[d] < 0) return fail(op, "transposed convolution with padding above dilation * (kernel - 1) is not supported");
    }
    const int w = direct_filter(op, op.inputs[1], op.has("groups") ? op.i("groups") : 1);
    if (w < 0) return;
    op.inputs[1] = w;
    for (size_t d = 0; d < n; ++d) {
      if (stride[d] == 1) continue;
      Ints shape = in(op, 0).shape;
      shape[2 + d] = (shape[2 + d] - 1) * stride[d] + 1;
      const int spread = g_.add_tensor_like(op.inputs[0], "_spread" + std::to_string(d), shape);
      emit(Op{"spread", {op.inputs[0]}, {spread}, {{"dim", static_cast<int64_t>(2 + d)}, {"step", stride[d]}},
              op.source});
      op.inputs[0] = spread;
    }
    emit_conv(op, Ints(n, 1), dilation, before, after);
  }

  // The filter [Co, Ci / groups, k...] of the convolution equal to a transposed one with filter
  // w [Ci, Co / groups, k...]: channels swapped within each group, taps reversed. w is a float
  // constant or a dequantized int8 constant, per tensor or per output channel (axis 1); -1
  // after a failure.
  int direct_filter(const Op& op, int w, int64_t groups) {
    const int p = g_.producer(w);
    const bool dequantized = p >= 0 && g_.ops[p].kind == "dequantize";
    const int src = dequantized ? g_.ops[p].inputs[0] : w;
    const Tensor& t = g_.tensors[src];
    if (!t.is_constant) return fail(op, "a transposed convolution's filter must be a constant"), -1;
    const int64_t ci = t.shape[0], co_g = t.shape[1], ci_g = ci / groups;
    const int64_t taps = t.num_elements() / (ci * co_g);
    const size_t elem = dtype_size(t.dtype);
    Ints shape = t.shape;
    shape[0] = co_g * groups, shape[1] = ci_g;
    std::vector<uint8_t> data(t.data.size());
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t o = 0; o < co_g; ++o)
        for (int64_t i = 0; i < ci_g; ++i)
          for (int64_t k = 0; k < taps; ++k)
            std::memcpy(&data[static_cast<size_t>((((g * co_g + o) * ci_g + i) * taps + k)) * elem],
                        &t.data[static_cast<size_t>((((g * ci_g + i) * co_g + o) * taps + taps - 1 - k)) * elem], elem);
    std::optional<Quant> quant = t.quant;
    if (quant && !quant->per_tensor()) {
      if (quant->axis != 1) return fail(op, "a transposed convolution's filter quantized per input channel is not supported"), -1;
      Quant q{{}, {}, 0};
      for (int64_t g = 0; g < groups; ++g) {
        q.scale.insert(q.scale.end(), quant->scale.begin(), quant->scale.end());
        q.zero_point.insert(q.zero_point.end(), quant->zero_point.begin(), quant->zero_point.end());
      }
      quant = q;
    }
    Tensor direct = t;
    direct.name += "_direct";
    direct.shape = shape;
    direct.data = std::move(data);
    direct.quant = quant;
    const int id = g_.add_tensor(std::move(direct));
    if (!dequantized) return id;
    const int out = g_.add_tensor_like(w, "_direct", shape);
    emit(Op{"dequantize", {id}, {out}, {}, op.source});
    return out;
  }

  // nearest: a whole-number ratio between each axis's sizes (PyTorch's source index
  // floor(dst / factor) is then the kernel's dst * in / out); bilinear: scale factors that
  // give the output size exactly (PyTorch's coordinates then use in / out, as the kernel).
  void resize(Op& op, bool bilinear) {
    const Ints& x = in(op, 0).shape;
    const Ints& y = g_.tensors[op.outputs[0]].shape;
    std::vector<double> scales;
    if (op.has("scale_factors") && std::holds_alternative<std::vector<double>>(op.attrs.at("scale_factors")))
      scales = op.floats_attr("scale_factors");
    for (const char* key : {"scales_h", "scales_w", "scales"})
      if (op.has(key) && !std::holds_alternative<std::string>(op.attrs.at(key))) scales.push_back(op.f(key));
    for (size_t d = 2; d < x.size(); ++d) {
      const bool whole = y[d] % x[d] == 0 || x[d] % y[d] == 0;
      if (!bilinear && !whole) return fail(op, "nearest resizing by a fractional factor is not supported");
      if (scales.size() == x.size() - 2 && static_cast<double>(x[d]) * scales[d - 2] != static_cast<double>(y[d]))
        return fail(op, "a scale factor that does not give a whole output size is not supported");
    }
    const int64_t align = op.has("align_corners") && std::holds_alternative<int64_t>(op.attrs.at("align_corners"))
                              ? op.i("align_corners") : 0;
    op.kind = "resize";
    op.attrs = {{"mode", int64_t{bilinear ? 1 : 0}}, {"align_corners", align}};
    if (bilinear) op.attrs["axes"] = Ints{2, 3};  // nearest maps every axis by its sizes
    op.inputs.resize(1);
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

  // A pool over the last `n` axes of [N, C, ...] whose window covers them whole (a global pool).
  Op whole_pool(const Op& op, int x_id, int out, size_t n) {
    const Ints& shape = g_.tensors[x_id].shape;
    Op pool{"avg_pool2d", {x_id}, {out}, {}, op.source};
    const Ints kernel{shape[2], n == 2 ? shape[3] : 1};
    pool_common(pool, kernel, Ints{1, 1}, Ints{0, 0});
    pool.attrs["count_include_pad"] = int64_t{1};
    return pool;
  }

  // adaptive_{avg,max}_pool1d/2d: a pool with windows input / output when the output divides
  // the input (PyTorch's windows are then equal and disjoint), else adaptive_pool.
  void adaptive_pool(Op& op, size_t n, bool max) {
    if (op.outputs.size() > 1) {  // adaptive_max_pool's indices
      if (!g_.users(op.outputs[1]).empty() || g_.is_graph_output(op.outputs[1]))
        return fail(op, "the indices of a max pool are not supported");
      op.outputs.resize(1);
    }
    const Tensor& x = in(op, 0);
    const Tensor& y = g_.tensors[op.outputs[0]];
    if (x.shape.size() != 2 + n) return fail(op, "expects a " + std::to_string(2 + n) + "-D input");
    Ints kernel(2, 1), flags(2 + n, 0);
    bool divides = true;
    for (size_t d = 0; d < n; ++d) {
      divides &= x.shape[2 + d] % y.shape[2 + d] == 0;
      kernel[d] = x.shape[2 + d] / std::max<int64_t>(1, y.shape[2 + d]);
      flags[2 + d] = 1;
    }
    op.inputs.resize(1);
    if (!divides) {
      op.kind = "adaptive_pool";
      op.attrs = {{"function", int64_t{max ? 1 : 0}}, {"axes", flags}};
      return emit(std::move(op));
    }
    op.kind = max ? "max_pool2d" : "avg_pool2d";
    op.attrs.clear();
    pool_common(op, kernel, kernel, Ints{0, 0});
    if (max) op.attrs["dilation"] = Ints{1, 1};
    else op.attrs["count_include_pad"] = int64_t{1};
    emit(std::move(op));
  }

  // max_pool1d/avg_pool1d as 2-D pools over [L, 1] (the layout pass stores [N, C, L] as
  // [N, L, 1, C]).
  void pool1d(Op& op, bool max) {
    if (op.has("divisor_override")) return fail(op, "divisor_override is not supported");
    const int64_t k = int_list(op, "kernel_size", 1, 1)[0];
    const Ints stride = op.has("stride") ? op.ints_attr("stride") : Ints{};
    const int64_t s = stride.empty() || stride[0] == 0 ? k : stride[0];
    const int64_t p = int_list(op, "padding", 1, 0)[0];
    const int64_t dilation = int_list(op, "dilation", 1, 1)[0];
    const int64_t include = op.has("count_include_pad") ? op.i("count_include_pad") : 1;
    op.attrs.clear();
    pool_common(op, Ints{k, 1}, Ints{s, 1}, Ints{p, 0});
    if (max) op.attrs["dilation"] = Ints{dilation, 1};
    else op.attrs["count_include_pad"] = include;
    op.kind = max ? "max_pool2d" : "avg_pool2d";
    emit(std::move(op));
  }

  // The reduced axes of a mean/sum/amax/amin (all when `dim` is absent or empty).
  std::vector<bool> reduced_axes(const Op& op, size_t rank) {
    Ints dims = op.has("dim") ? int_list(op, "dim", 1, 0) : Ints{};
    if (op.has("dim") && std::holds_alternative<std::vector<int64_t>>(op.attrs.at("dim"))) dims = op.ints_attr("dim");
    std::vector<bool> axes(rank, dims.empty());
    for (int64_t d : dims) axes[norm_dim(d, rank)] = true;
    return axes;
  }

  // mean/sum/amax/amin. A mean over the spatial axes of [N, C, H, W] or [N, C, L] is a global
  // average pool (channels-last, optimized); every other reduction is a reduce op whose result
  // keeps the input's rank, with a view to the model's shape after it.
  void reduce(Op& op, const std::string& fn) {
    const Tensor& x = in(op, 0);
    const size_t rank = x.shape.size();
    const std::vector<bool> axes = reduced_axes(op, rank);
    const int out = op.outputs[0];
    Ints kept = x.shape;
    for (size_t d = 0; d < rank; ++d)
      if (axes[d]) kept[d] = 1;
    const bool spatial = fn == "mean" && (rank == 3 || rank == 4) && !axes[0] && !axes[1] &&
                         std::all_of(axes.begin() + 2, axes.end(), [](bool a) { return a; });
    int result = out;
    if (g_.tensors[out].shape != kept) result = g_.add_tensor_like(out, "_keepdim", kept);
    if (spatial) {
      emit(whole_pool(op, op.inputs[0], result, rank - 2));
    } else {
      Ints flags(rank);
      for (size_t d = 0; d < rank; ++d) flags[d] = axes[d];
      emit(Op{fn, {op.inputs[0]}, {result}, {{"axes", flags}}, op.source});
    }
    if (result != out) emit(Op{"reshape", {result}, {out}, {}, op.source});
  }

  // One result of a split along `dim`: positions start, start + step, ... (the output's size).
  void slice(const Op& op, int64_t dim, int64_t start, int64_t step, int out) {
    const size_t rank = in(op, 0).shape.size();
    if (step < 1) return fail(op, "a slice step below 1 is not supported (aten.slice takes none)");
    emit(Op{"slice", {op.inputs[0]}, {out}, {{"dim", norm_dim(dim, rank)}, {"start", start}, {"step", step}},
            op.source});
  }

  // matmul/bmm/mm as a batched product of rank-3 operands: each viewed as [B, M, K] and
  // [B, K, N] (same leading dims, no broadcasting), the second transposed to [B, N, K] (the
  // kernels' form; cleanup cancels it against attention's kᵀ), the result viewed back.
  void matmul(Op& op) {
    const Tensor& a = in(op, 0);
    const Tensor& b = in(op, 1);
    const Ints& y = g_.tensors[op.outputs[0]].shape;
    if (a.shape.size() < 2 || b.shape.size() < 2 || a.shape.size() != b.shape.size() ||
        !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin()))
      return fail(op, "matrix products of operands with different leading dimensions (broadcasting) are not supported");
    const int64_t batch = num_elements(Ints(a.shape.begin(), a.shape.end() - 2));
    const int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), n = b.shape.back();
    auto view = [&](int t, Ints shape, const std::string& suffix) {
      if (g_.tensors[t].shape == shape) return t;
      const int id = g_.add_tensor_like(t, suffix, std::move(shape));
      emit(Op{"reshape", {t}, {id}, {}, op.source});
      return id;
    };
    const int a3 = view(op.inputs[0], {batch, m, k}, "_3d"), b3 = view(op.inputs[1], {batch, k, n}, "_3d");
    const int bt = g_.add_tensor_like(b3, "_t", {batch, n, k});
    emit(Op{"transpose", {b3}, {bt}, {{"perm", Ints{0, 2, 1}}}, op.source});
    const int out = op.outputs[0];
    const int out3 = y == Ints{batch, m, n} ? out : g_.add_tensor_like(out, "_3d", {batch, m, n});
    emit(Op{"matmul", {a3, bt}, {out3}, {}, op.source});
    if (out3 != out) emit(Op{"reshape", {out3}, {out}, {}, op.source});
  }

  void layer_norm(Op& op) {
    if (op.ints_attr("normalized_shape").size() != 1)
      return fail(op, "layer norm over more than the last dimension is not supported");
    op.kind = "layer_norm";
    op.attrs = {{"eps", op.has("eps") ? op.f("eps") : 1e-5}};
    op.inputs.resize(3, -1);
    const int64_t d = in(op, 0).shape.back();
    const std::string name = g_.tensors[op.outputs[0]].name;
    for (int i : {1, 2})  // the kernel takes both: weight 1 and bias 0 where the layer has none
      if (op.inputs[i] < 0)
        op.inputs[i] = add_constant_f32(g_, name + (i == 1 ? "_ones" : "_zeros"), {d},
                                        std::vector<float>(static_cast<size_t>(d), i == 1 ? 1.0f : 0.0f));
    emit(std::move(op));
  }

  // triu/tril of a constant (attention's causal mask) as a constant: entries outside the
  // triangle (column - row < diagonal for triu, > diagonal for tril) become 0.
  void triangle(const Op& op, bool upper) {
    const Tensor& x = in(op, 0);
    if (!x.is_constant || x.dtype != DType::Float32 || x.shape.size() < 2)
      return fail(op, "triu/tril of a computed tensor is not supported");
    const int64_t diagonal = op.has("diagonal") ? op.i("diagonal") : 0;
    const int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
    std::vector<float> values(x.as<float>(), x.as<float>() + x.num_elements());
    for (size_t i = 0; i < values.size(); ++i) {
      const int64_t c = static_cast<int64_t>(i) % cols, r = static_cast<int64_t>(i) / cols % rows;
      if (upper ? c - r < diagonal : c - r > diagonal) values[i] = 0.0f;
    }
    Tensor& y = g_.tensors[op.outputs[0]];
    y.is_constant = true;
    y.data.resize(values.size() * sizeof(float));
    std::memcpy(y.data.data(), values.data(), y.data.size());
  }

  // logical_not(mask) and masked_fill(x, mask, value) of constants, evaluated here: a boolean
  // attention mask becomes the additive one at compile time (frontend._attention).
  void boolean_mask(const Op& op) {
    const bool fill = op.kind.find("masked_fill") != std::string::npos;
    const Tensor& x = in(op, 0);
    const Tensor& mask = in(op, fill ? 1 : 0);
    if (!x.is_constant || !mask.is_constant || mask.dtype != DType::Bool || (fill && x.dtype != DType::Float32) ||
        (fill && mask.num_elements() != x.num_elements()))
      return fail(op, "of a constant boolean mask (as attention masks are) only; this one is computed or broadcast");
    Tensor& y = g_.tensors[op.outputs[0]];
    y.is_constant = true;
    y.data = x.data;
    if (!fill) {
      for (uint8_t& b : y.data) b = b ? 0 : 1;
      return;
    }
    const float value = static_cast<float>(op.f("value"));
    for (size_t i = 0; i < mask.data.size(); ++i)
      if (mask.data[i]) std::memcpy(&y.data[i * sizeof(float)], &value, sizeof(float));
  }

  // flip: a backwards slice per flipped axis.
  void flip(Op& op) {
    const Ints dims = op.ints_attr("dims");
    if (dims.empty()) return reshape(op);  // a copy of the same shape
    int src = op.inputs[0];
    for (size_t k = 0; k < dims.size(); ++k) {
      const int64_t d = norm_dim(dims[k], in(op, 0).shape.size());
      const int out = k + 1 == dims.size() ? op.outputs[0] : g_.add_tensor_like(op.outputs[0], "_flip" + std::to_string(k));
      emit(Op{"slice", {src}, {out}, {{"dim", d}, {"start", g_.tensors[src].shape[d] - 1}, {"step", int64_t{-1}}},
              op.source});
      src = out;
    }
  }

  // select: a slice of length 1, then a view without the axis.
  void select(const Op& op, int64_t dim, int64_t index, int out) {
    const Tensor& x = in(op, 0);
    const size_t d = norm_dim(dim, x.shape.size());
    Ints one = x.shape;
    one[d] = 1;
    const int id = g_.add_tensor_like(out, "_slice", std::move(one));
    slice(op, static_cast<int64_t>(d), index < 0 ? index + x.shape[d] : index, 1, id);
    emit(Op{"reshape", {id}, {out}, {}, op.source});
  }

  // split, split_with_sizes and unbind: a slice per result, each at the sum of the sizes
  // before it (an unused result costs nothing: cleanup drops dead ops).
  void split(const Op& op) {
    const size_t rank = in(op, 0).shape.size();
    const int64_t d = norm_dim(op.has("dim") ? op.i("dim") : 0, rank);
    int64_t start = 0;
    for (int out : op.outputs) {
      if (op.kind.find("unbind") != std::string::npos) {
        select(op, d, start++, out);
      } else {
        slice(op, d, start, 1, out);
        start += g_.tensors[out].shape[d];
      }
    }
  }

  // stack: each input viewed with the new axis, then cat along it.
  void stack(Op& op) {
    const Tensor& y = g_.tensors[op.outputs[0]];
    const int64_t d = norm_dim(op.has("dim") ? op.i("dim") : 0, y.shape.size());
    for (int& t : op.inputs) {
      Ints viewed = g_.tensors[t].shape;
      viewed.insert(viewed.begin() + d, 1);
      const int id = g_.add_tensor_like(t, "_stacked", std::move(viewed));
      emit(Op{"reshape", {t}, {id}, {}, op.source});
      t = id;
    }
    op.kind = "cat";
    op.attrs = {{"dim", d}};
    emit(std::move(op));
  }

  // zeros/ones/full: the result becomes a constant; cleanup folds what reads it.
  void fill(const Op& op, double value) {
    Tensor& t = g_.tensors[op.outputs[0]];
    if (t.dtype != DType::Float32) return fail(op, "a constant of dtype other than float32 is not supported");
    const std::vector<float> values(static_cast<size_t>(t.num_elements()), static_cast<float>(value));
    t.is_constant = true;
    t.data.resize(values.size() * sizeof(float));
    std::memcpy(t.data.data(), values.data(), t.data.size());
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
