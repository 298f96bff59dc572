//===- share_constants.cc - One copy of each constant ---------------------===//
//
// Ops that read equal constants read one tensor: an unrolled GRU or LSTM runs the same
// weights, biases and requantization vectors at every time step, and many tables are the same
// function at the same scales. Equal means the same dtype, shape, layout, quantization and
// bytes. The serializer writes only the tensors ops still read.

#include <map>
#include <string>

#include "ember/compiler/passes/passes.h"

namespace ember::compiler {

Status share_constants(Graph& g, const Target&, Diagnostics&) {
  std::map<std::string, std::vector<int>> by_bytes;  // candidates per (dtype, shape, bytes)
  auto key = [&](const Tensor& t) {
    std::string k(reinterpret_cast<const char*>(t.data.data()), t.data.size());
    for (int64_t d : t.shape) k += "," + std::to_string(d);
    return k + ":" + std::to_string(static_cast<int>(t.dtype));
  };
  auto same = [&](const Tensor& a, const Tensor& b) { return a.layout == b.layout && a.quant == b.quant; };
  for (Op& op : g.ops)
    for (int& t : op.inputs) {
      if (t < 0 || !g.tensors[t].is_constant) continue;
      std::vector<int>& candidates = by_bytes[key(g.tensors[t])];
      bool found = false;
      for (int c : candidates)
        if (!found && same(g.tensors[c], g.tensors[t])) t = c, found = true;
      if (!found) candidates.push_back(t);
    }
  return Status::Success;
}

}  // namespace ember::compiler
