//===- fuse_activation.cc - Clamp bounds into the producing op ------------===//
//
// conv -> relu becomes one conv whose output is clamped to [0, inf). After quantization the
// bounds become int8 limits, so the activation costs nothing at run time. PT2E annotates an op
// with its following activation, so no quantize node sits between them.

#include <algorithm>
#include <cmath>
#include <set>

#include "ember/compiler/passes/passes.h"

namespace ember::compiler {

Status fuse_activation(Graph& g, const Target&, Diagnostics&) {
  static const std::set<std::string> kFusable = {"conv", "linear", "add", "mul", "sub",
                                                 "avg_pool2d", "max_pool2d"};
  std::vector<bool> erased(g.ops.size(), false);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    Op& op = g.ops[k];
    if (erased[k] || !kFusable.count(op.kind) || op.outputs.size() != 1) continue;
    const int out = op.outputs[0];
    const std::vector<int> users = g.users(out);
    if (users.size() != 1 || g.is_graph_output(out)) continue;
    Op& act = g.ops[users[0]];
    if (act.kind != "clamp") continue;
    const double lo = op.has("act_min") ? op.f("act_min") : -INFINITY;
    const double hi = op.has("act_max") ? op.f("act_max") : INFINITY;
    op.attrs["act_min"] = std::max(lo, act.f("min"));
    op.attrs["act_max"] = std::min(hi, act.f("max"));
    op.outputs[0] = act.outputs[0];
    erased[users[0]] = true;
  }
  g.erase_ops(erased);
  return Status::Success;
}

}  // namespace ember::compiler
