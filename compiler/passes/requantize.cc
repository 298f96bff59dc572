//===- requantize.cc - Integer parameters for every int8 op ---------------===//
//
// Turns the scales of each int8 op into what the integer kernels take: Q31 multipliers and
// shifts (per output channel for conv and linear), zero points, activation bounds in the
// quantized domain, int32 biases at scale s_in * s_w, and 256-entry tables for softmax and
// elementwise functions (computed here from the exact float function, as PyTorch evaluates it).
// Where an op needs its input and output to share quantization (pooling, views, pad, cat) and
// they do not, a requantize op is inserted.

#include <algorithm>
#include <cmath>

#include "ember/compiler/passes/pass_util.h"
#include "ember/compiler/passes/passes.h"
#include "ember/compiler/passes/unary_functions.h"
#include "ember/kernels/portable/quantize_multiplier.h"

namespace ember::compiler {
namespace {

bool is_int8(const Graph& g, int t) { return t >= 0 && g.tensors[t].dtype == DType::Int8; }

class Requantizer {
 public:
  Requantizer(Graph& g, Diagnostics& d) : g_(g), diag_(d) {}

  Status run() {
    std::vector<Op> ops = std::move(g_.ops);
    g_.ops.clear();
    for (Op& op : ops) {
      if (op.outputs.empty() || !is_int8(g_, op.outputs[0]) || op.kind == "quantize") {
        g_.ops.push_back(std::move(op));
        continue;
      }
      lower(op);
    }
    return diag_.empty() ? Status::Success : Status::Failure;
  }

 private:
  const Quant& q(int t) const { return *g_.tensors[t].quant; }
  double scale(int t) const { return q(t).scale[0]; }
  int64_t zp(int t) const { return q(t).zero_point[0]; }

  bool multiplier(const Op& op, double real, int32_t* m, int* shift) {
    if (kernels::quantize_multiplier(real, m, shift)) return true;
    diag_.error(op, op.kind + ": rescale factor " + std::to_string(real) + " is out of range");
    return false;
  }

  // Activation bounds of `op` (real, from fuse_activation) in the output's int8 domain.
  void set_bounds(Op& op, int out) {
    const double lo = op.has("act_min") ? op.f("act_min") : -INFINITY;
    const double hi = op.has("act_max") ? op.f("act_max") : INFINITY;
    auto to_q = [&](double v, int64_t fallback) {
      if (!std::isfinite(v)) return fallback;
      return std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(v / scale(out))) + zp(out), -128, 127);
    };
    op.attrs["q_min"] = to_q(lo, -128);
    op.attrs["q_max"] = to_q(hi, 127);
  }

  // Makes `op` write a tensor with `like`'s quantization and requantizes it into its output.
  void requantize_output(Op& op, int like) {
    const int out = op.outputs[0];
    const int tmp = g_.add_tensor_like(out, "_prequant");
    g_.tensors[tmp].quant = g_.tensors[like].quant;
    op.outputs[0] = tmp;
    set_bounds(op, tmp);
    Op rq{"requantize", {tmp}, {out}, {}, op.source};
    for (const char* key : {"act_min", "act_max"})
      if (op.has(key)) rq.attrs[key] = op.attrs[key];
    g_.ops.push_back(std::move(op));
    lower_requantize(rq);
  }

  // Inserts a requantize of input `i` into the output's quantization.
  void requantize_input(Op& op, size_t i) {
    const int src = op.inputs[i];
    const int tmp = g_.add_tensor_like(src, "_requant");
    g_.tensors[tmp].quant = g_.tensors[op.outputs[0]].quant;
    Op rq{"requantize", {src}, {tmp}, {}, op.source};
    lower_requantize(rq);
    op.inputs[i] = tmp;
  }

  void lower(Op& op) {
    const std::string& k = op.kind;
    if (k == "conv" || k == "linear") return conv_like(op);
    for (size_t i = 0; i < op.inputs.size() && has_trait(k, Binary); ++i)
      if (g_.tensors[op.inputs[i]].dtype == DType::Float32) return scalar_function(op, i);
    if (k == "add") return add(op);
    if (k == "sub") return subtract(op);
    if (k == "mul" || k == "matmul") return mul(op);  // one rescale of the products
    if (k == "softmax") return softmax(op);
    if (k == "sum") return lower_requantize(op);  // sum(q - zp_in) rescaled as a requantize
    if (has_trait(k, SameQuant)) {
      if (!(q(op.inputs[0]) == q(op.outputs[0]))) return requantize_output(op, op.inputs[0]);
      set_bounds(op, op.outputs[0]);
      return g_.ops.push_back(std::move(op));
    }
    if (k == "cat") {
      for (size_t i = 0; i < op.inputs.size(); ++i)
        if (!(q(op.inputs[i]) == q(op.outputs[0]))) requantize_input(op, i);
      return g_.ops.push_back(std::move(op));
    }
    if (has_trait(k, Unary)) return lut(op);
    if (k == "requantize") return lower_requantize(op);
    diag_.error(op, k + ": no int8 lowering");
  }

  void lower_requantize(Op& op) {
    int32_t m;
    int shift;
    if (!multiplier(op, scale(op.inputs[0]) / scale(op.outputs[0]), &m, &shift)) return;
    op.attrs["input_zp"] = zp(op.inputs[0]);
    op.attrs["output_zp"] = zp(op.outputs[0]);
    op.attrs["multiplier"] = int64_t{m};
    op.attrs["shift"] = int64_t{shift};
    set_bounds(op, op.outputs[0]);
    g_.ops.push_back(std::move(op));
  }

  void conv_like(Op& op) {
    const int x = op.inputs[0], w = op.inputs[1], out = op.outputs[0];
    const Tensor& weight = g_.tensors[w];
    const size_t channels = static_cast<size_t>(op.kind == "linear" ? weight.shape[0]
                                                : op.i("depthwise") ? weight.shape[3] : weight.shape[0]);
    const Quant& wq = *weight.quant;
    if (std::any_of(wq.zero_point.begin(), wq.zero_point.end(), [](int32_t z) { return z != 0; }))
      return diag_.error(op, op.kind + ": weights must be symmetric (zero point 0)");
    std::vector<int32_t> mult(channels), shifts(channels), bias(channels, 0);
    std::vector<double> bias_real;
    if (op.inputs[2] >= 0) {
      const Tensor& b = g_.tensors[op.inputs[2]];
      bias_real = constant_values(b);
      if (b.quant)  // int32 bias from PT2E: real = q * its scale
        for (size_t c = 0; c < channels; ++c)
          bias_real[c] *= b.quant->scale[b.quant->per_tensor() ? 0 : c];
    }
    for (size_t c = 0; c < channels; ++c) {
      const double s_w = wq.scale[wq.per_tensor() ? 0 : c];
      const double acc_scale = scale(x) * s_w;
      int shift;
      if (!multiplier(op, acc_scale / scale(out), &mult[c], &shift)) return;
      shifts[c] = shift;
      if (!bias_real.empty()) {
        const double v = std::nearbyint(bias_real[c] / acc_scale);
        bias[c] = static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0));
      }
    }
    const std::string& name = g_.tensors[out].name;
    const int64_t n = static_cast<int64_t>(channels);
    op.inputs = {x, w,
                 bias_real.empty() ? -1 : add_constant_i32(g_, name + "_bias", {n}, bias),
                 add_constant_i32(g_, name + "_multiplier", {n}, mult),
                 add_constant_i32(g_, name + "_shift", {n}, shifts)};
    op.attrs["input_zp"] = zp(x);
    op.attrs["output_zp"] = zp(out);
    set_bounds(op, out);
    g_.ops.push_back(std::move(op));
  }

  void add(Op& op) {
    // TFLite's formulation: both inputs rescaled to twice the larger input scale with 20 bits of
    // headroom, summed, then rescaled to the output.
    const int a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
    const int left_shift = 20;
    const double twice_max = 2.0 * std::max(scale(a), scale(b));
    int32_t ma, mb, mo;
    int sa, sb, so;
    if (!multiplier(op, scale(a) / twice_max, &ma, &sa) || !multiplier(op, scale(b) / twice_max, &mb, &sb) ||
        !multiplier(op, twice_max / ((1 << left_shift) * scale(out)), &mo, &so))
      return;
    op.attrs = {{"left_shift", int64_t{left_shift}}, {"a_zp", zp(a)}, {"a_multiplier", int64_t{ma}},
                {"a_shift", int64_t{sa}}, {"b_zp", zp(b)}, {"b_multiplier", int64_t{mb}},
                {"b_shift", int64_t{sb}}, {"output_zp", zp(out)}, {"output_multiplier", int64_t{mo}},
                {"output_shift", int64_t{so}},
                {"act_min", op.has("act_min") ? op.attrs["act_min"] : Attr{-INFINITY}},
                {"act_max", op.has("act_max") ? op.attrs["act_max"] : Attr{INFINITY}}};
    set_bounds(op, out);
    g_.ops.push_back(std::move(op));
  }

  // a - b = a + (-b), and -b is exact in int8: the bitwise not of b's code (255 - index into
  // a table, never out of range) read with zero point -zp_b - 1, since ~q - (-zp_b - 1) = -(q - zp_b).
  void subtract(Op& op) {
    const int b = op.inputs[1];
    std::vector<int8_t> table(256);
    for (int i = 0; i < 256; ++i) table[i] = static_cast<int8_t>(~(i - 128));
    const int negated = g_.add_tensor_like(b, "_negated");
    g_.tensors[negated].quant = Quant{{scale(b)}, {static_cast<int32_t>(-zp(b) - 1)}, -1};
    const std::string& name = g_.tensors[negated].name;
    Op lut{"lut", {b, add_constant_i8(g_, name + "_not_table", {256}, table)}, {negated}, {{"function", std::string("not")}},
           op.source};
    g_.ops.push_back(std::move(lut));
    op.inputs[1] = negated;
    op.kind = "add";
    add(op);
  }

  void mul(Op& op) {
    const int a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
    int32_t m;
    int shift;
    if (!multiplier(op, scale(a) * scale(b) / scale(out), &m, &shift)) return;
    op.attrs["a_zp"] = zp(a);
    op.attrs["b_zp"] = zp(b);
    op.attrs["output_zp"] = zp(out);
    op.attrs["output_multiplier"] = int64_t{m};
    op.attrs["output_shift"] = int64_t{shift};  // matmul reads the same attributes
    set_bounds(op, out);
    g_.ops.push_back(std::move(op));
  }

  void softmax(Op& op) {
    const int x = op.inputs[0], out = op.outputs[0];
    std::vector<int32_t> table(256);
    for (int d = 0; d < 256; ++d)
      table[d] = static_cast<int32_t>(std::lround(std::exp(-scale(x) * d) * (1 << 23)));
    op.inputs.push_back(add_constant_i32(g_, g_.tensors[out].name + "_exp_table", {256}, table));
    const Quant fixed{{1.0 / 256.0}, {-128}, -1};
    if (!(q(out) == fixed)) {
      const int tmp = g_.add_tensor_like(out, "_softmax");
      g_.tensors[tmp].quant = fixed;
      op.outputs[0] = tmp;
      Op rq{"requantize", {tmp}, {out}, {}, op.source};
      g_.ops.push_back(std::move(op));
      return lower_requantize(rq);
    }
    g_.ops.push_back(std::move(op));
  }

  // x op c or c op x with a number c (fold_qdq lets only a float scalar constant through): a
  // function of the one int8 operand, so a table.
  void scalar_function(Op& op, size_t i) {
    op.attrs["scalar"] = constant_values(g_.tensors[op.inputs[i]]).at(0);
    op.attrs["scalar_first"] = int64_t{i == 0};
    op.inputs = {op.inputs[1 - i]};
    lut(op);
  }

  // Any int8 -> int8 function of one value is a 256-entry table, evaluated in float32 as
  // PyTorch's reference graph does: dequantize, apply, quantize (round half to even).
  void lut(Op& op) {
    const int x = op.inputs[0], out = op.outputs[0];
    const float s_in = static_cast<float>(scale(x));
    const float inv_out = static_cast<float>(1.0 / scale(out));
    std::vector<int8_t> table(256);
    for (int i = 0; i < 256; ++i) {
      const float v = static_cast<float>((i - 128) - zp(x)) * s_in;
      const float y = apply_unary(op, v);
      const float qv = std::nearbyint(y * inv_out) + static_cast<float>(zp(out));
      table[i] = static_cast<int8_t>(std::clamp(qv, -128.0f, 127.0f));
    }
    op.inputs = {x, add_constant_i8(g_, g_.tensors[out].name + "_" + op.kind + "_table", {256}, table)};
    op.attrs["function"] = op.kind;
    op.kind = "lut";
    g_.ops.push_back(std::move(op));
  }

  Graph& g_;
  Diagnostics& diag_;
};

}  // namespace

Status requantize(Graph& graph, const Target&, Diagnostics& diag) {
  return Requantizer(graph, diag).run();
}

}  // namespace ember::compiler
