//===- delegate_npu.cc - NPU partitions as ethos_u ops --------------------===//
//
// On a target with an Ethos-U (`cortex-m55+ethos-u55-128`), python/ember/npu.py partitions the
// graph as it is after `cleanup`, and Vela compiles each partition (graph.npu_partitions). This
// pass replaces each partition's ops with one ethos_u op (kernels/kernels.def): constants for
// the command stream, the weights and the TOSA graph; a scratch tensor of Vela's size, and a
// fast scratch when Vela planned one; the partition's outputs as windows of the scratch at
// Vela's offsets, so the ops after it read them in place. plan_memory puts the scratch in the
// region the NPU reaches and, where it can, the partition's inputs in the scratch too, so the
// ops before it write straight into the NPU's input. The ops are then put back in an order
// where every tensor is written before it is read (the graph's own order where it already is).

#include <algorithm>
#include <set>

#include "ember/compiler/passes/pass_util.h"
#include "ember/compiler/passes/passes.h"
#include "ember/kernels/portable/ethos_u.h"

namespace ember::compiler {
namespace {

// ints[0] of the ethos_u kernel for a Vela accelerator name such as "ethos-u55-128".
int32_t npu_code(const std::string& accelerator) {
  const int product = accelerator.rfind("ethos-u55", 0) == 0 ? 0 : accelerator.rfind("ethos-u65", 0) == 0 ? 1 : 2;
  const int64_t macs = std::stoll(accelerator.substr(accelerator.rfind('-') + 1));
  int log2 = 0;
  while ((int64_t{1} << (log2 + 1)) <= macs) ++log2;
  return kernels::npu_code(product, log2);
}

int bytes_constant(Graph& g, const std::string& name, const std::vector<uint8_t>& bytes) {
  return add_constant_i8(g, name, {static_cast<int64_t>(bytes.size())}, std::vector<int8_t>(bytes.begin(), bytes.end()));
}

// What is wrong with partition p against the graph, or "".
std::string invalid(const Graph& g, const NpuPartition& p, const std::set<int>& taken) {
  const int num_ops = static_cast<int>(g.ops.size()), num_tensors = static_cast<int>(g.tensors.size());
  if (p.ops.empty() || p.inputs.empty() || p.outputs.empty()) return "no ops, inputs or outputs";
  for (int k : p.ops)
    if (k < 0 || k >= num_ops || taken.count(k)) return "op " + std::to_string(k) + " out of range or taken twice";
  if (p.input_offsets.size() != p.inputs.size() || p.output_offsets.size() != p.outputs.size())
    return "an offset per input and output";
  if (p.scratch_bytes <= 0 || p.fast_scratch_bytes < 0 || p.command_stream.empty()) return "no scratch or command stream";
  auto fits = [&](int t, int64_t offset) {
    return t >= 0 && t < num_tensors && !g.tensors[t].is_constant && g.tensors[t].dtype == DType::Int8 && offset >= 0 &&
           offset + static_cast<int64_t>(g.tensors[t].num_bytes()) <= p.scratch_bytes;
  };
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (!fits(p.inputs[i], p.input_offsets[i])) return "input " + std::to_string(i) + " is no int8 activation inside the scratch";
  for (size_t i = 0; i < p.outputs.size(); ++i)
    if (!fits(p.outputs[i], p.output_offsets[i])) return "output " + std::to_string(i) + " is no int8 activation inside the scratch";
  return "";
}

// The ops in an order where every op follows the writers of its inputs: the graph's own order
// where possible (the earliest ready op first).
void restore_order(Graph& g) {
  std::vector<int> producer(g.tensors.size(), -1);
  for (size_t k = 0; k < g.ops.size(); ++k)
    for (int t : g.ops[k].outputs) producer[t] = static_cast<int>(k);
  std::vector<bool> done(g.ops.size(), false);
  std::vector<Op> ordered;
  while (ordered.size() < g.ops.size()) {
    size_t k = 0;
    auto ready = [&](size_t j) {
      return std::all_of(g.ops[j].inputs.begin(), g.ops[j].inputs.end(),
                         [&](int t) { return t < 0 || producer[t] < 0 || done[producer[t]]; });
    };
    while (k < g.ops.size() && (done[k] || !ready(k))) ++k;
    if (k == g.ops.size()) return;  // a cycle: verify_graph names it
    done[k] = true;
    ordered.push_back(g.ops[k]);
  }
  g.ops = std::move(ordered);
}

}  // namespace

Status delegate_npu(Graph& g, const Target& target, Diagnostics& diag) {
  for (const auto& [k, why] : g.cpu_reasons)
    if (k >= 0 && k < static_cast<int>(g.ops.size())) g.ops[k].attrs["npu_why"] = why;
  if (g.npu_partitions.empty()) return Status::Success;
  if (target.npu.accelerator.empty()) {
    diag.error("NPU partitions given for " + target.name + ", which has no NPU");
    return Status::Failure;
  }
  std::set<int> taken;
  std::vector<bool> erased(g.ops.size(), false);
  std::vector<Op> delegates;
  for (size_t n = 0; n < g.npu_partitions.size(); ++n) {
    const NpuPartition& p = g.npu_partitions[n];
    const std::string why = invalid(g, p, taken);
    if (!why.empty()) {
      diag.error("internal: NPU partition " + std::to_string(n) + ": " + why);
      return Status::Failure;
    }
    const std::string name = "npu" + std::to_string(n);
    Op op;
    op.kind = "ethos_u";
    op.source = target.npu.accelerator + " partition " + std::to_string(n) + ": " + std::to_string(p.ops.size()) +
                " ops, " + g.ops[p.ops.front()].source + " to " + g.ops[p.ops.back()].source;
    op.kernel_reason = p.note;
    op.inputs = {bytes_constant(g, name + "_command_stream", p.command_stream), bytes_constant(g, name + "_weights", p.weights),
                 p.tosa.empty() ? -1 : bytes_constant(g, name + "_tosa", p.tosa)};
    op.inputs.insert(op.inputs.end(), p.inputs.begin(), p.inputs.end());
    const int s = g.add_bytes(name + "_scratch", p.scratch_bytes);
    op.outputs = {s};
    if (p.fast_scratch_bytes > 0) op.outputs.push_back(g.add_bytes(name + "_fast_scratch", p.fast_scratch_bytes));
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      op.outputs.push_back(p.outputs[i]);
      g.windows[p.outputs[i]] = {s, static_cast<uint64_t>(p.output_offsets[i])};
    }
    op.attrs["npu"] = static_cast<int64_t>(npu_code(target.npu.accelerator));
    op.attrs["input_offsets"] = p.input_offsets;
    op.attrs["output_offsets"] = p.output_offsets;
    for (int k : p.ops) taken.insert(k), erased[k] = true;
    delegates.push_back(std::move(op));
  }
  g.erase_ops(erased);
  for (Op& op : delegates) g.ops.push_back(std::move(op));
  restore_order(g);
  return Status::Success;
}

}  // namespace ember::compiler
