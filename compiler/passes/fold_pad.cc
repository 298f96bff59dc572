//===- fold_pad.cc - Zero padding into the convolution that reads it ------===//
//
// TensorFlow-style 'same' padding exports as an explicit pad before a stride-2 conv. A conv
// already treats positions outside its input as real zero, so a pad of real zero over H and W
// whose only reader is a conv or a pool that counts padding the same way is folded into that
// op's padding: one copy of the activation less, in time and in RAM.

#include "ember/compiler/passes/passes.h"

namespace ember::compiler {
namespace {

bool pads_only_hw(const Op& pad) {
  const auto& before = pad.ints_attr("before");
  const auto& after = pad.ints_attr("after");
  if (before.size() != 4) return false;
  for (size_t d : {size_t{0}, size_t{3}})
    if (before[d] != 0 || after[d] != 0) return false;
  return true;
}

}  // namespace

Status fold_pad(Graph& g, const Target&, Diagnostics&) {
  std::vector<bool> erased(g.ops.size(), false);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const Op& pad = g.ops[k];
    if (pad.kind != "pad" || pad.f("value") != 0.0 || !pads_only_hw(pad)) continue;
    if (g.tensors[pad.outputs[0]].layout == Layout::AsModel) continue;
    const std::vector<int> users = g.users(pad.outputs[0]);
    if (users.size() != 1 || g.is_graph_output(pad.outputs[0])) continue;
    Op& conv = g.ops[users[0]];
    if (conv.kind != "conv" || conv.inputs[0] != pad.outputs[0]) continue;
    std::vector<int64_t> padding = conv.ints_attr("padding");  // top, left, bottom, right
    const auto& before = pad.ints_attr("before");
    const auto& after = pad.ints_attr("after");
    padding[0] += before[1], padding[1] += before[2], padding[2] += after[1], padding[3] += after[2];
    conv.attrs["padding"] = padding;
    conv.inputs[0] = pad.inputs[0];
    erased[k] = true;
  }
  g.erase_ops(erased);
  return Status::Success;
}

}  // namespace ember::compiler
