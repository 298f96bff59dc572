//===- plan_memory.cc - Static offsets for every activation ---------------===//
//
// Every non-constant tensor gets a region and an offset at compile time. A reshape is a view:
// it shares its input's buffer (an alias group, live from the first write of any member to the
// last read of any). Lifetimes come from the op order; the placement algorithm is in
// memory_planner.h. Fails when the plan exceeds the region, naming the region, the bytes
// needed, its capacity and the op at the peak.

#include <map>

#include "compiler/memory_planner.h"
#include "compiler/passes/passes.h"

namespace ember::compiler {

Status plan_memory(Graph& g, const Target& target, Diagnostics& diag) {
  const int num_ops = static_cast<int>(g.ops.size());
  std::vector<int> root(g.tensors.size());
  for (size_t t = 0; t < root.size(); ++t) root[t] = static_cast<int>(t);
  for (const Op& op : g.ops)
    if (op.kind == "reshape") root[op.outputs[0]] = root[op.inputs[0]];  // ops are in order

  // A view of a model input that is itself a model output would make one buffer both; the
  // ABI keeps inputs and outputs distinct, so such graphs are rejected.
  for (int out : g.outputs)
    for (int in : g.inputs)
      if (root[out] == root[in]) {
        diag.error("model output '" + g.tensors[out].name + "' is a view of input '" + g.tensors[in].name +
                   "'; Ember needs at least one op between them");
        return Status::Failure;
      }

  std::map<int, Buffer> buffers;  // by alias root
  auto touch = [&](int t, int op) {
    if (t < 0 || g.tensors[t].is_constant) return;
    auto [it, fresh] = buffers.try_emplace(root[t], Buffer{g.tensors[root[t]].num_bytes(), op, op});
    if (!fresh) {
      it->second.first_op = std::min(it->second.first_op, op);
      it->second.last_op = std::max(it->second.last_op, op);
    }
  };
  for (int t : g.inputs) touch(t, 0);
  for (int k = 0; k < num_ops; ++k) {
    for (int t : g.ops[k].inputs) touch(t, k);
    for (int t : g.ops[k].outputs) touch(t, k);
  }
  for (int t : g.outputs) touch(t, std::max(0, num_ops - 1));

  std::vector<int> roots;
  std::vector<Buffer> list;
  for (const auto& [r, b] : buffers) roots.push_back(r), list.push_back(b);
  uint64_t arena = 0;
  const std::vector<uint64_t> offsets = GreedyBest().place(list, &arena);

  const MemoryRegion& region = target.regions.at(0);
  g.regions = {{region.name, region.capacity, arena}};
  g.lower_bound = lifetime_lower_bound(list, num_ops, &g.peak_op);
  g.tensor_region.assign(g.tensors.size(), -1);
  g.tensor_offset.assign(g.tensors.size(), 0);
  std::map<int, uint64_t> root_offset;
  for (size_t i = 0; i < roots.size(); ++i) root_offset[roots[i]] = offsets[i];
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    auto it = root_offset.find(root[t]);
    if (it == root_offset.end()) continue;
    g.tensor_region[t] = 0;
    g.tensor_offset[t] = it->second;
  }
  if (arena > region.capacity) {
    const std::string peak = g.peak_op >= 0 ? g.ops[g.peak_op].source : "";
    diag.error("the activations need " + std::to_string(arena) + " bytes in region " + region.name +
               " but it holds " + std::to_string(region.capacity) + " bytes (peak at " + peak + ")");
    return Status::Failure;
  }
  return Status::Success;
}

}  // namespace ember::compiler
