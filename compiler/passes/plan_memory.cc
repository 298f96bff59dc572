//===- plan_memory.cc - Static regions and offsets for every activation ---===//
//
// Every non-constant tensor gets a region and an offset at compile time. Steps:
//  1. Op order (PlanMode::Default and up): the front end's order and two greedy topological
//     orders (run the ready op that leaves the fewest bytes live; the one whose result is
//     smallest) are each planned in full, and the smallest plan wins. This matters in
//     branching graphs: a residual block's shortcut can run before or after its main path.
//  2. Buffers: a reshape is a view and shares its input's buffer (an alias group, live from the
//     first write of any member to the last read of any). An op may write its result over an
//     input that dies there, by the rules of compiler/in_place.h; such a pair becomes planner
//     partners (memory_planner.h).
//  3. Regions, fastest first (the target table's order, capacities overridable with
//     --memory): all buffers start in the first region with room; while a region's plan
//     exceeds its capacity, the largest buffer alive at its op-by-op peak spills to the next
//     region. When the last region overflows, compilation fails naming the region, the bytes
//     needed, its capacity and the op at the peak.
//  4. A RAM budget (MemoryPolicy::ram_budget) above the plan's total escalates to
//     PlanMode::Smallest, and fails if even that does not fit.

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "ember/compiler/in_place.h"
#include "ember/compiler/memory_planner.h"
#include "ember/compiler/passes/passes.h"

namespace ember::compiler {
namespace {

struct Plan {
  std::vector<int> order;                 // op indices, execution order
  std::vector<RegionPlan> regions;
  std::vector<int> tensor_region;         // region index into `regions`, or -1
  std::vector<uint64_t> tensor_offset;
  uint64_t lower_bound = 0;
  int peak_op = -1;                       // index into `order`
  uint64_t total = 0;
  std::vector<bool> bottom_up;            // per step: the op writes its rows last-first
  std::string error;                      // non-empty: does not fit
};

// Live bytes of a schedule (views free, inputs and outputs whole): for the greedy orders.
std::vector<int> greedy_order(const Graph& g, bool prefer_freeing) {
  const int n = static_cast<int>(g.ops.size());
  std::vector<int> producer(g.tensors.size(), -1), remaining_users(g.tensors.size(), 0);
  for (int k = 0; k < n; ++k)
    for (int t : g.ops[k].outputs) producer[t] = k;
  for (const Op& op : g.ops)
    for (int t : op.inputs)
      if (t >= 0) ++remaining_users[t];
  std::vector<bool> done(n, false);
  std::vector<int> order;
  auto ready = [&](int k) {
    for (int t : g.ops[k].inputs)
      if (t >= 0 && producer[t] >= 0 && !done[producer[t]]) return false;
    return true;
  };
  auto bytes = [&](int t) -> int64_t {
    return g.tensors[t].is_constant ? 0 : static_cast<int64_t>(g.tensors[t].num_bytes());
  };
  for (int step = 0; step < n; ++step) {
    int best = -1;
    int64_t best_score = 0;
    for (int k = 0; k < n; ++k) {
      if (done[k] || !ready(k)) continue;
      const Op& op = g.ops[k];
      int64_t made = 0, freed = 0;
      if (op.kind != "reshape") {
        for (int t : op.outputs) made += bytes(t);
        std::set<int> seen;
        for (int t : op.inputs)
          if (t >= 0 && seen.insert(t).second && remaining_users[t] == std::count(op.inputs.begin(), op.inputs.end(), t) &&
              !g.is_graph_output(t))
            freed += bytes(t);
      }
      const int64_t score = prefer_freeing ? made - freed : made;
      if (best < 0 || score < best_score) best = k, best_score = score;
    }
    if (best < 0) return {};  // not a DAG in order; keep the original
    done[best] = true;
    order.push_back(best);
    for (int t : g.ops[best].inputs)
      if (t >= 0) --remaining_users[t];
  }
  return order;
}

Plan plan_order(const Graph& g, const Target& target, PlanMode mode, const std::vector<int>& order) {
  Plan plan;
  plan.order = order;
  const int num_ops = static_cast<int>(order.size());
  std::vector<int> root(g.tensors.size());
  std::iota(root.begin(), root.end(), 0);
  std::vector<uint64_t> within(g.tensors.size(), 0);  // byte offset inside the root's buffer
  for (const auto& [t, w] : g.windows) root[t] = w.source, within[t] = w.offset;
  for (int k : order) {
    const Op& op = g.ops[k];
    if (op.kind == "reshape") root[op.outputs[0]] = root[op.inputs[0]], within[op.outputs[0]] = within[op.inputs[0]];
  }
  // An NPU's scratch (with the windows in it) goes in the region the NPU reaches.
  std::set<int> npu_buffers;
  for (const Op& op : g.ops)
    if (op.kind == "ethos_u")
      for (int t : op.outputs)
        if (!g.windows.count(t)) npu_buffers.insert(t);

  // Alias groups and their lifetimes, by root.
  std::map<int, Buffer> groups;
  auto touch = [&](int t, int step) {
    if (t < 0 || g.tensors[t].is_constant) return;
    auto [it, fresh] = groups.try_emplace(root[t], Buffer{g.tensors[root[t]].num_bytes(), step, step});
    if (!fresh) {
      it->second.first_op = std::min(it->second.first_op, step);
      it->second.last_op = std::max(it->second.last_op, step);
    }
  };
  std::set<int> pinned;  // groups holding a graph input or output: never overwritten by an op
  for (int t : g.inputs) touch(t, 0);
  for (int s = 0; s < num_ops; ++s) {
    for (int t : g.ops[order[s]].inputs) touch(t, s);
    for (int t : g.ops[order[s]].outputs) touch(t, s);
  }
  const int last = std::max(0, num_ops - 1);
  for (int t : g.outputs) touch(t, last), pinned.insert(root[t]);
  if (mode != PlanMode::Smallest)
    for (int t : g.inputs) pinned.insert(root[t]);

  std::vector<int> roots;
  std::map<int, int> index;  // root -> buffer index
  std::vector<Buffer> list;
  for (const auto& [r, b] : groups) index[r] = static_cast<int>(list.size()), roots.push_back(r), list.push_back(b);

  // Partners: an op's output over an input that dies at the op.
  std::vector<std::pair<int, int>> partners(num_ops, {-1, -1});  // per step: output, input buffer
  for (int s = 0; s < num_ops; ++s) {
    const Op& op = g.ops[order[s]];
    // The result only (a scratch output stays apart), and not a window: its bytes are its scratch's.
    if (op.kind == "reshape" || op.outputs.empty() || root[op.outputs[0]] != op.outputs[0]) continue;
    const int out = root[op.outputs[0]];
    if (!groups.count(out) || groups[out].first_op != s) continue;
    auto dies = [&](int t) {
      const int r = root[t];
      return groups.count(r) && groups[r].last_op == s && !pinned.count(r) && r != out;
    };
    if (auto rule = in_place_rule(g, op, mode, dies)) {
      Buffer& b = list[index[out]];
      b.overlaps = index[root[op.inputs[rule->input]]];
      b.overlap_delta = rule->delta;
      b.may_rise = rule->may_rise;
      b.overlap_rise = rule->rise;
      b.overlap_grain = rule->grain;
      partners[s] = {index[out], b.overlaps};
    }
  }

  // Regions: fill the fastest, spill the largest buffer at its peak to the next.
  const auto& regions = target.regions;
  std::vector<int> region_of(list.size(), -1);
  size_t first = 0;
  while (first + 1 < regions.size() && regions[first].capacity == 0) ++first;
  std::fill(region_of.begin(), region_of.end(), static_cast<int>(first));
  std::vector<bool> fixed(list.size(), false);  // in the NPU's region, never spilled
  for (size_t r = 0; r < regions.size(); ++r)
    if (regions[r].name == target.npu.region)
      for (int t : npu_buffers) region_of[index[root[t]]] = static_cast<int>(r), fixed[index[root[t]]] = true;
  std::vector<uint64_t> offset(list.size(), 0), arena(regions.size(), 0);
  for (size_t r = first; r < regions.size(); ++r) {
    while (true) {
      std::vector<int> members;
      for (size_t i = 0; i < list.size(); ++i)
        if (region_of[i] == static_cast<int>(r)) members.push_back(static_cast<int>(i));
      std::vector<Buffer> sub;
      std::map<int, int> local;
      for (int i : members) local[i] = static_cast<int>(sub.size()), sub.push_back(list[i]);
      for (Buffer& b : sub) b.overlaps = local.count(b.overlaps) ? local[b.overlaps] : -1;
      const std::vector<uint64_t> offs = GreedyBest().place(sub, &arena[r]);
      for (size_t j = 0; j < members.size(); ++j) offset[members[j]] = offs[j];
      if (arena[r] <= regions[r].capacity || r + 1 == regions.size()) break;
      int peak = -1;
      lifetime_lower_bound(sub, num_ops, &peak);
      int victim = -1;
      for (size_t j = 0; j < sub.size(); ++j)
        if (!fixed[members[j]] && sub[j].first_op <= peak && peak <= sub[j].last_op &&
            (victim < 0 || sub[j].size > sub[victim].size))
          victim = static_cast<int>(j);
      if (victim < 0) break;
      region_of[members[victim]] = static_cast<int>(r + 1);
    }
  }

  // The program lists only the regions it uses (at least one), in priority order.
  std::vector<int> program_region(regions.size(), -1);
  for (size_t r = 0; r < regions.size(); ++r) {
    const bool used = std::count(region_of.begin(), region_of.end(), static_cast<int>(r)) > 0 && arena[r] > 0;
    if (used || (r + 1 == regions.size() && plan.regions.empty())) {
      program_region[r] = static_cast<int>(plan.regions.size());
      plan.regions.push_back({regions[r].name, regions[r].capacity, arena[r]});
      plan.total += arena[r];
    }
  }
  // An output placed over the upper end of its input needs the op's rows last-first (the
  // planner allowed it only where the rule may rise); below it, or apart, the usual order.
  plan.bottom_up.assign(num_ops, false);
  for (int s = 0; s < num_ops; ++s) {
    const auto [o, i] = partners[s];
    if (o < 0 || region_of[o] != region_of[i] || offset[o] <= offset[i]) continue;
    plan.bottom_up[s] = offset[o] < offset[i] + list[i].size && offset[i] < offset[o] + list[o].size;
  }
  plan.lower_bound = lifetime_lower_bound(list, num_ops, &plan.peak_op);
  plan.tensor_region.assign(g.tensors.size(), -1);
  plan.tensor_offset.assign(g.tensors.size(), 0);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    auto it = index.find(root[t]);
    if (it == index.end()) continue;
    plan.tensor_region[t] = std::max(0, program_region[region_of[it->second]]);
    plan.tensor_offset[t] = offset[it->second] + within[t];
  }
  for (size_t r = 0; r < regions.size(); ++r) {
    if (arena[r] <= regions[r].capacity) continue;
    const std::string peak = plan.peak_op >= 0 ? g.ops[order[plan.peak_op]].source : "";
    std::string filled;
    for (size_t q = 0; q < r; ++q) filled += " after filling " + regions[q].name + " (" + std::to_string(regions[q].capacity) + " bytes)";
    plan.error = "the activations need " + std::to_string(arena[r]) + " bytes in region " + regions[r].name +
                 " but it holds " + std::to_string(regions[r].capacity) + " bytes" + filled + " (peak at " + peak + ")";
  }
  return plan;
}

// An NPU partition's input that only the partition reads, written by an op of the program (not
// the caller), becomes a window of the partition's scratch at Vela's offset: its writer puts it
// where the NPU reads it. Any other input stays apart and the ethos_u kernel moves it in.
void place_npu_inputs(Graph& g) {
  for (const Op& op : g.ops) {
    if (op.kind != "ethos_u") continue;
    const auto& offsets = op.ints_attr("input_offsets");
    for (size_t i = 0; i < offsets.size(); ++i) {
      const int x = op.inputs[3 + i];
      const std::vector<int> users = g.users(x);
      if (users.size() == 1 && std::count(op.inputs.begin(), op.inputs.end(), x) == 1 && g.producer(x) >= 0 &&
          g.ops[g.producer(x)].kind != "reshape" && !g.is_graph_output(x) && !g.windows.count(x))
        g.windows[x] = {op.outputs[0], static_cast<uint64_t>(offsets[i])};
    }
  }
}

Plan best_plan(const Graph& g, const Target& target, PlanMode mode) {
  std::vector<int> original(g.ops.size());
  std::iota(original.begin(), original.end(), 0);
  std::vector<std::vector<int>> orders = {original};
  if (mode != PlanMode::Simple)
    for (bool freeing : {true, false}) {
      std::vector<int> o = greedy_order(g, freeing);
      if (o.size() == g.ops.size() && o != original) orders.push_back(o);
    }
  Plan best;
  bool have = false;
  for (const auto& order : orders) {
    Plan p = plan_order(g, target, mode, order);
    const bool better = !have || (p.error.empty() && !best.error.empty()) ||
                        (p.error.empty() == best.error.empty() && p.total < best.total);
    if (better) best = std::move(p), have = true;
  }
  return best;
}

}  // namespace

Status plan_memory(Graph& g, const Target& target, Diagnostics& diag) {
  std::vector<int> root(g.tensors.size());
  std::iota(root.begin(), root.end(), 0);
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
  if (target.regions.empty()) {
    diag.error("target " + target.name + " has no memory regions");
    return Status::Failure;
  }

  place_npu_inputs(g);
  const MemoryPolicy& policy = target.memory;
  Plan plan = best_plan(g, target, policy.mode);
  if (policy.ram_budget > 0 && policy.mode != PlanMode::Smallest && (!plan.error.empty() || plan.total > policy.ram_budget))
    plan = best_plan(g, target, PlanMode::Smallest);
  if (!plan.error.empty()) {
    diag.error(plan.error);
    return Status::Failure;
  }
  if (policy.ram_budget > 0 && plan.total > policy.ram_budget) {
    const std::string peak = plan.peak_op >= 0 ? g.ops[plan.order[plan.peak_op]].source : "";
    diag.error("the smallest plan needs " + std::to_string(plan.total) + " bytes of activations, over the RAM budget of " +
               std::to_string(policy.ram_budget) + " bytes (peak at " + peak + ")");
    return Status::Failure;
  }
  std::vector<Op> ops;
  for (size_t s = 0; s < plan.order.size(); ++s) {
    ops.push_back(std::move(g.ops[plan.order[s]]));
    ops.back().rows_bottom_up = plan.bottom_up[s];
  }
  g.ops = std::move(ops);
  g.regions = plan.regions;
  g.tensor_region = plan.tensor_region;
  g.tensor_offset = plan.tensor_offset;
  g.lower_bound = plan.lower_bound;
  g.peak_op = plan.peak_op;
  return Status::Success;
}

}  // namespace ember::compiler
