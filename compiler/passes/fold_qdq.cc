//===- fold_qdq.cc - dequantize -> op -> quantize becomes one int8 op -----===//
//
// PT2E expresses an int8 op as float math between dequantize and quantize nodes. Where every
// data operand of an op comes from a dequantize and every reader of its result is a quantize
// with one parameter set, the op is rewritten to read and write the int8 tensors directly; the
// q/dq nodes die. Ops that do not match stay float and keep explicit quantize/dequantize at
// their edges. Unless the graph asks for float I/O, a model input that is only quantized and an
// output that is only dequantized become int8 tensors with their quantization, as on a device.

#include <algorithm>

#include "ember/compiler/op_info.h"
#include "ember/compiler/passes/passes.h"

namespace ember::compiler {
namespace {

// Which ops have an int8 form is compiler/ops.def's Int8 trait; arithmetic with a number
// (x * 0.5, 1 - x, x ** 2, ScalarTable) is int8 when the number is a float scalar constant, and
// the requantize pass makes it a table (of these, only add and mul have int8 kernels for two
// tensors).
bool is_scalar_constant(const Graph& g, int t) {
  const Tensor& c = g.tensors[t];
  return c.is_constant && c.dtype == DType::Float32 && c.num_elements() == 1;
}

bool is_weight_slot(const Op& op, size_t i) {
  return (op.kind == "conv" || op.kind == "linear") && i >= 1;
}

// The int8 operands of `op` if all its data operands are dequantized; empty otherwise.
std::vector<int> int8_sources(const Graph& g, const Op& op) {
  std::vector<int> sources;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const int t = op.inputs[i];
    if (t < 0) { sources.push_back(-1); continue; }
    if (has_trait(op.kind, ScalarTable) && op.inputs.size() == 2 && is_scalar_constant(g, t)) {
      sources.push_back(t);  // the number; the other operand must be int8
      continue;
    }
    const int p = g.producer(t);
    if (p >= 0 && g.ops[p].kind == "dequantize") {
      const int src = g.ops[p].inputs[0];
      const Tensor& s = g.tensors[src];
      const bool ok = s.dtype == DType::Int8 ? (s.quant->per_tensor() || is_weight_slot(op, i))
                                             : (s.dtype == DType::Int32 && i == 2 && s.is_constant);
      if (!ok) return {};
      sources.push_back(src);
    } else if (i == 2 && is_weight_slot(op, i) && g.tensors[t].is_constant) {
      sources.push_back(t);  // a float bias; requantize quantizes it
    } else {
      return {};
    }
  }
  return sources;
}

// op -> view -> quantize becomes op -> quantize -> view, and dequantize -> view -> op becomes
// view -> dequantize -> op, for a reshape, transpose or spread (quantizing is elementwise, so
// it commutes with moving elements, and spread's zeros are the zero point's value): legalize
// puts views after a reduction without keepdim, around a matrix product (and transposes its
// second operand) and before a transposed convolution, and the op then has the quantize and
// dequantize it folds with.
void move_views_inside(Graph& g) {
  auto is_view = [](const std::string& kind) {
    return kind == "reshape" || kind == "transpose" || kind == "spread";
  };
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const std::string& kind = g.ops[k].kind;
    const int t = g.ops[k].inputs[0];
    const int p = g.producer(t);
    if ((!is_view(kind) && kind != "quantize") || p < 0 || g.users(t).size() != 1 || g.is_graph_output(t)) continue;
    const bool dq_view = is_view(kind) && g.ops[p].kind == "dequantize";
    if (!dq_view && !(kind == "quantize" && is_view(g.ops[p].kind))) continue;
    const int x = g.ops[p].inputs[0], y = g.ops[k].outputs[0];
    if (dq_view && (g.tensors[x].is_constant || !g.tensors[x].quant->per_tensor())) continue;  // weights stay
    // The int8 tensor between the flipped pair: the int8 side's tensor in the other side's shape.
    const int m = g.add_tensor_like(dq_view ? x : y, dq_view ? "_viewed" : "_unviewed", g.tensors[dq_view ? y : x].shape);
    Op first = g.ops[k], second = g.ops[p];
    first.inputs = {x};
    first.outputs = {m};
    second.inputs = {m};
    second.outputs = {y};
    g.ops[p] = std::move(first);
    g.ops[k] = std::move(second);
  }
}

}  // namespace

Status fold_qdq(Graph& g, const Target&, Diagnostics&) {
  move_views_inside(g);
  std::vector<bool> erased(g.ops.size(), false);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    Op& op = g.ops[k];
    if (op.outputs.size() != 1) continue;
    const bool scalar_kind = has_trait(op.kind, ScalarTable) != 0;
    if (!has_trait(op.kind, Int8) && !scalar_kind) continue;
    const std::vector<int> sources = int8_sources(g, op);
    if (sources.empty()) continue;
    const bool has_scalar = scalar_kind && std::any_of(sources.begin(), sources.end(),
                                                       [&](int t) { return is_scalar_constant(g, t); });
    if (has_scalar ? std::all_of(sources.begin(), sources.end(), [&](int t) { return is_scalar_constant(g, t); })
                   : !has_trait(op.kind, Int8))
      continue;
    const int out = op.outputs[0];
    const std::vector<int> readers = g.users(out);
    if (readers.empty() || g.is_graph_output(out)) continue;
    bool all_quantize = true;
    for (int r : readers) {
      const Op& q = g.ops[r];
      all_quantize &= q.kind == "quantize" &&
                      *g.tensors[q.outputs[0]].quant == *g.tensors[g.ops[readers[0]].outputs[0]].quant;
    }
    if (!all_quantize) continue;
    const int int8_out = g.ops[readers[0]].outputs[0];
    for (int r : readers) {
      if (g.ops[r].outputs[0] != int8_out) g.replace_uses(g.ops[r].outputs[0], int8_out);
      erased[r] = true;
    }
    op.inputs = sources;
    op.outputs = {int8_out};
  }
  g.erase_ops(erased);

  if (!g.float_io) {
    for (int& in : g.inputs) {
      const std::vector<int> readers = g.users(in);
      if (readers.empty() || g.is_graph_output(in)) continue;
      bool all_quantize = true;
      for (int r : readers)
        all_quantize &= g.ops[r].kind == "quantize" &&
                        *g.tensors[g.ops[r].outputs[0]].quant == *g.tensors[g.ops[readers[0]].outputs[0]].quant;
      if (!all_quantize) continue;
      const int int8_in = g.ops[readers[0]].outputs[0];
      for (int r : readers) g.replace_uses(g.ops[r].outputs[0], int8_in);
      for (size_t k = readers.size(); k-- > 0;) g.ops.erase(g.ops.begin() + readers[k]);
      g.tensors[int8_in].name = g.tensors[in].name;
      in = int8_in;
    }
    for (int& out : g.outputs) {
      const int p = g.producer(out);
      if (p < 0 || g.ops[p].kind != "dequantize") continue;
      const int src = g.ops[p].inputs[0];
      if (g.tensors[src].is_constant || !g.tensors[src].quant->per_tensor()) continue;
      if (std::count(g.inputs.begin(), g.inputs.end(), src)) continue;
      g.tensors[src].name = g.tensors[out].name;
      out = src;
    }
  }
  g.remove_dead_ops();
  return Status::Success;
}

}  // namespace ember::compiler
