//===- cleanup.cc - Constant folding and identity removal -----------------===//
//
// Folds ops whose inputs are all constants (dequantized weights feeding float ops, reshapes and
// transposes of constants), removes dequantize -> quantize pairs with one parameter set (an
// exact identity on int8), collapses chains of reshapes and transposes into at most one
// transpose (compiler/passes/view_chain.h) and chains of lookup tables (x * 0.5 + 1 is one table), and deletes ops nobody reads.

#include <cmath>
#include <cstring>

#include "ember/compiler/passes/pass_util.h"
#include "ember/compiler/passes/passes.h"
#include "ember/compiler/passes/view_chain.h"

namespace ember::compiler {
namespace {

bool all_constant(const Graph& g, const Op& op) {
  for (int t : op.inputs)
    if (t >= 0 && !g.tensors[t].is_constant) return false;
  return !op.inputs.empty();
}

// Computes op's output as a constant; false if this kind is not folded.
bool fold_constant(Graph& g, const Op& op) {
  const Tensor& in = g.tensors[op.inputs[0]];
  Tensor& out = g.tensors[op.outputs[0]];
  if (op.kind == "reshape") {
    out.data = in.data;
  } else if (op.kind == "transpose") {
    out.data = permute_bytes(in.data, in.shape, op.ints_attr("perm"), dtype_size(in.dtype));
  } else if (op.kind == "dequantize" && out.dtype == DType::Float32) {
    const std::vector<double> q = constant_values(in);
    const Quant& quant = *in.quant;
    int64_t inner = 1;  // elements per step along the quantized axis
    if (!quant.per_tensor())
      for (size_t d = quant.axis + 1; d < in.shape.size(); ++d) inner *= in.shape[d];
    std::vector<float> values(q.size());
    for (size_t i = 0; i < q.size(); ++i) {
      const size_t c = quant.per_tensor() ? 0 : (i / inner) % in.shape[quant.axis];
      values[i] = static_cast<float>((q[i] - quant.zero_point[c]) * static_cast<float>(quant.scale[c]));
    }
    out.data.resize(values.size() * 4);
    std::memcpy(out.data.data(), values.data(), out.data.size());
  } else if (op.kind == "quantize" && in.dtype == DType::Float32 && out.quant && out.quant->per_tensor()) {
    // As the quantize_s8 kernel: round half to even (the default rounding mode), then clamp.
    const float inv_scale = static_cast<float>(1.0 / out.quant->scale[0]);
    out.data.clear();
    for (double v : constant_values(in)) {
      const float q = std::nearbyint(static_cast<float>(v) * inv_scale) + static_cast<float>(out.quant->zero_point[0]);
      out.data.push_back(static_cast<uint8_t>(static_cast<int8_t>(std::fmin(127.0f, std::fmax(-128.0f, q)))));
    }
  } else {
    return false;
  }
  out.is_constant = true;
  return true;
}

bool is_identity_perm(const std::vector<int64_t>& perm) {
  for (size_t d = 0; d < perm.size(); ++d)
    if (perm[d] != static_cast<int64_t>(d)) return false;
  return true;
}

}  // namespace

Status cleanup(Graph& g, const Target&, Diagnostics&) {
  std::vector<Op> kept;
  for (Op& op : g.ops) {
    if (all_constant(g, op) && op.outputs.size() == 1 && !g.is_graph_output(op.outputs[0]) &&
        fold_constant(g, op))
      continue;
    kept.push_back(std::move(op));
  }
  g.ops = std::move(kept);

  for (size_t k = 0; k < g.ops.size(); ++k) {
    Op& op = g.ops[k];
    if (op.kind == "quantize") {  // dequantize(x) -> quantize with x's parameters is x
      const int p = g.producer(op.inputs[0]);
      if (p < 0 || g.ops[p].kind != "dequantize") continue;
      const int src = g.ops[p].inputs[0], out = op.outputs[0];
      if (!(g.tensors[src].quant == g.tensors[out].quant)) continue;
      if (!g.is_graph_output(out)) {
        g.replace_uses(out, src);
      } else if (const int q = g.producer(src); q >= 0 && !g.is_graph_output(src)) {
        // A model output keeps its tensor: src's producer writes it, and the pair reads nothing.
        for (int& t : g.ops[q].outputs)
          if (t == src) t = out;
        g.replace_uses(src, out);
        op.outputs[0] = src;
      }
    } else if (op.kind == "lut") {  // lut(lut(x)) is one table: t2[t1[x]]
      const int p = g.producer(op.inputs[0]);
      if (p < 0 || g.ops[p].kind != "lut") continue;
      const Tensor& t1 = g.tensors[g.ops[p].inputs[1]];
      const Tensor& t2 = g.tensors[op.inputs[1]];
      std::vector<int8_t> table(256);
      for (size_t i = 0; i < 256; ++i)
        table[i] = t2.as<int8_t>()[static_cast<size_t>(t1.as<int8_t>()[i] + 128)];
      op.inputs = {g.ops[p].inputs[0],
                   add_constant_i8(g, g.tensors[op.outputs[0]].name + "_composed_table", {256}, table)};
    } else if (op.kind == "transpose" && is_identity_perm(op.ints_attr("perm"))) {
      op.kind = "reshape";
      op.attrs.clear();
    }
  }
  // A chain of reshapes and transposes ending in a transpose: at most one transpose.
  std::vector<Op> ops;
  for (const Op& op : g.ops) {
    std::vector<Op> collapsed = op.kind == "transpose" ? collapse_view_chain(g, op) : std::vector<Op>{};
    if (collapsed.empty()) collapsed.push_back(op);
    for (Op& o : collapsed) ops.push_back(std::move(o));
  }
  g.ops = std::move(ops);
  g.remove_dead_ops();
  return Status::Success;
}

}  // namespace ember::compiler
