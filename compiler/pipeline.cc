//===- pipeline.cc - The pass order, in one place -------------------------===//

#include "ember/compiler/pipeline.h"

#include <algorithm>
#include <set>

#include "ember/compiler/passes/passes.h"
#include "ember/compiler/serialize.h"

namespace ember::compiler {
namespace {

struct PassEntry {
  const char* name;
  Status (*run)(Graph&, const Target&, Diagnostics&);
};

#define EMBER_PASS(name, summary) {#name, &name},
constexpr PassEntry kPasses[] = {
#include "ember/compiler/passes/passes.def"
};
#undef EMBER_PASS

}  // namespace

bool verify_graph(const Graph& g, Diagnostics& diag) {
  const int n = static_cast<int>(g.tensors.size());
  std::set<int> defined(g.inputs.begin(), g.inputs.end());
  for (int t = 0; t < n; ++t)
    if (g.tensors[t].is_constant) defined.insert(t);
  bool ok = true;
  for (const Op& op : g.ops) {
    for (int t : op.inputs) {
      if (t < -1 || t >= n) { diag.error(op, "internal: operand index out of range"); ok = false; }
      else if (t >= 0 && !defined.count(t)) {
        diag.error(op, "internal: reads tensor '" + g.tensors[t].name + "' before it is written");
        ok = false;
      }
    }
    for (int t : op.outputs) {
      if (t < 0 || t >= n || defined.count(t)) {
        diag.error(op, "internal: result tensor missing or written twice");
        ok = false;
      } else {
        defined.insert(t);
      }
    }
  }
  for (int t : g.outputs)
    if (t < 0 || t >= n || !defined.count(t)) { diag.error("internal: a model output is never written"); ok = false; }
  return ok;
}

std::string print_ir(const Graph& g) {
  auto tensor = [&](int t) {
    if (t < 0) return std::string("none");
    const Tensor& x = g.tensors[t];
    std::string s = "%" + std::to_string(t) + ":" + dtype_name(x.dtype) + shape_str(x.shape);
    if (x.is_constant) s += "c";
    return s;
  };
  std::string out = "graph(";
  for (size_t i = 0; i < g.inputs.size(); ++i) out += (i ? ", " : "") + tensor(g.inputs[i]);
  out += ")\n";
  for (const Op& op : g.ops) {
    out += "  ";
    for (size_t i = 0; i < op.outputs.size(); ++i) out += (i ? ", " : "") + tensor(op.outputs[i]);
    out += " = " + op.kind + "(";
    for (size_t i = 0; i < op.inputs.size(); ++i) out += (i ? ", " : "") + tensor(op.inputs[i]);
    out += ")";
    for (const auto& [key, value] : op.attrs) {
      out += " " + key + "=";
      if (auto* v = std::get_if<int64_t>(&value)) out += std::to_string(*v);
      else if (auto* d = std::get_if<double>(&value)) out += std::to_string(*d);
      else if (auto* s = std::get_if<std::string>(&value)) out += *s;
      else if (auto* l = std::get_if<std::vector<int64_t>>(&value)) out += shape_str(*l);
      else out += "[...]";
    }
    out += "\n";
  }
  out += "  return ";
  for (size_t i = 0; i < g.outputs.size(); ++i) out += (i ? ", " : "") + tensor(g.outputs[i]);
  return out + "\n";
}

// A program file larger than the target's flash region: one error naming flash, the bytes, the
// capacity and the largest constant with the op that reads it (where a smaller layer helps most).
static void check_flash(const Graph& g, const Target& target, size_t bytes, Diagnostics& diag) {
  const Op* reader = nullptr;
  size_t largest = 0;
  std::string name;
  for (const Op& op : g.ops)
    for (int t : op.inputs)
      if (t >= 0 && g.tensors[t].is_constant && g.tensors[t].data.size() > largest)
        reader = &op, largest = g.tensors[t].data.size(), name = g.tensors[t].name;
  diag.error("flash: the program file is " + std::to_string(bytes) + " bytes but " + target.name +
             "'s flash region " + target.flash.name + " holds " + std::to_string(target.flash.capacity) +
             " bytes" + (reader ? "; the largest constant is " + name + " (" + std::to_string(largest) +
                                      " bytes) of " + reader->source : "") +
             " (targets/targets.def; --memory " + target.flash.name + "=<bytes> for a larger part)");
}

CompileResult compile(Graph graph, const Target& target, const CompileOptions& options) {
  CompileResult result;
  Diagnostics diag;
  const auto& wanted = options.print_ir_after;
  const bool all = std::find(wanted.begin(), wanted.end(), "all") != wanted.end();
  for (const PassEntry& pass : kPasses) {
    diag.set_pass(pass.name);
    Status status;
    try {
      status = pass.run(graph, target, diag);
    } catch (const std::exception& e) {  // a malformed front-end graph (missing attribute, ...)
      diag.error(std::string("internal: ") + e.what());
      status = Status::Failure;
    }
    if (status == Status::Failure || !verify_graph(graph, diag)) {
      result.diagnostics = diag.str();
      return result;
    }
    if (all || std::find(wanted.begin(), wanted.end(), pass.name) != wanted.end())
      result.ir_dumps += "// after " + std::string(pass.name) + "\n" + print_ir(graph);
    if (options.stop_after == pass.name) {
      result.ok = true;
      result.graph = std::move(graph);
      return result;
    }
  }
  // The program's outputs are the model's: "output", or "output_0", "output_1", ... (the
  // tensors behind them carry PyTorch's node names, dequantize_per_tensor_14).
  for (size_t i = 0; i < graph.outputs.size(); ++i)
    graph.tensors[graph.outputs[i]].name = graph.outputs.size() == 1 ? "output" : "output_" + std::to_string(i);
  diag.set_pass("serialize");
  result.program = serialize(graph, target.name, diag);
  if (diag.empty() && result.program.size() > target.flash.capacity)
    check_flash(graph, target, result.program.size(), diag);
  result.ok = diag.empty();
  result.diagnostics = diag.str();
  return result;
}

}  // namespace ember::compiler
