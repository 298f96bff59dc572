//===- view_chain.cc - A chain of reshapes and transposes as one transpose ===//

#include "ember/compiler/passes/view_chain.h"

#include <algorithm>

#include "ember/runtime/op_context.h"

namespace ember::compiler {
namespace {

using Ints = std::vector<int64_t>;

// The atoms so far: their sizes, the source's order, and the current tensor's order.
struct Atoms {
  Ints size;
  std::vector<int> source, current;

  // Splits atom a into a (outer, size `outer`) and a new atom after it, in every order.
  int split(int a, int64_t outer) {
    const int inner = static_cast<int>(size.size());
    size.push_back(size[a] / outer);
    size[a] = outer;
    for (std::vector<int>* order : {&source, &current})
      order->insert(std::find(order->begin(), order->end(), a) + 1, inner);
    return inner;
  }

  // Regroups the current order into `shape`, splitting atoms at dim boundaries; false when a
  // boundary does not divide an atom.
  bool reshape(const Ints& shape) {
    size_t at = 0;
    for (int64_t dim : shape) {
      int64_t product = 1;
      while (product < dim && at < current.size()) {
        const int a = current[at];
        if (product * size[a] > dim) {
          if (dim % product != 0 || size[a] % (dim / product) != 0) return false;
          split(a, dim / product);
        }
        product *= size[current[at++]];
      }
      if (product != dim) return false;
    }
    return at == current.size() || std::all_of(current.begin() + static_cast<long>(at), current.end(),
                                               [&](int a) { return size[a] == 1; });
  }
};

// The atoms of each dim of a tensor whose atom order is `order`, for `shape`.
std::vector<std::vector<int>> dims_of(const Atoms& atoms, const Ints& shape) {
  std::vector<std::vector<int>> dims;
  size_t at = 0;
  for (int64_t dim : shape) {
    dims.emplace_back();
    for (int64_t product = 1; product < dim;) product *= atoms.size[dims.back().emplace_back(atoms.current[at++])];
  }
  for (; at < atoms.current.size(); ++at) dims.back().push_back(atoms.current[at]);  // size-1 atoms
  return dims;
}

}  // namespace

std::vector<Op> collapse_view_chain(Graph& g, const Op& op) {
  std::vector<const Op*> chain{&op};
  for (int p = g.producer(op.inputs[0]); p >= 0 && (g.ops[p].kind == "reshape" || g.ops[p].kind == "transpose");
       p = g.producer(g.ops[p].inputs[0]))
    chain.push_back(&g.ops[p]);
  std::reverse(chain.begin(), chain.end());
  const int src = chain.front()->inputs[0];
  const Ints& src_shape = g.tensors[src].shape;
  if (std::count_if(chain.begin(), chain.end(), [](const Op* o) { return o->kind == "transpose"; }) < 2 ||
      std::count(src_shape.begin(), src_shape.end(), 0) > 0)
    return {};
  Atoms atoms;
  for (int64_t d : src_shape) {
    atoms.source.push_back(static_cast<int>(atoms.size.size()));
    atoms.size.push_back(d);
  }
  atoms.current = atoms.source;
  for (const Op* o : chain) {
    const Ints& in = g.tensors[o->inputs[0]].shape;
    if (!atoms.reshape(in)) return {};
    if (o->kind == "transpose") {
      const std::vector<std::vector<int>> dims = dims_of(atoms, in);
      atoms.current.clear();
      for (int64_t d : o->ints_attr("perm")) atoms.current.insert(atoms.current.end(), dims[d].begin(), dims[d].end());
    }
  }
  // Runs of atoms (size-1 atoms dropped) consecutive in both orders are one dim.
  auto real = [&](const std::vector<int>& order) {
    std::vector<int> r;
    for (int a : order)
      if (atoms.size[a] != 1) r.push_back(a);
    return r;
  };
  const std::vector<int> from = real(atoms.source), to = real(atoms.current);
  auto position = [&](int a) { return std::find(from.begin(), from.end(), a) - from.begin(); };
  std::vector<std::vector<int>> runs;  // in `to` order
  for (size_t i = 0; i < to.size(); ++i) {
    if (i > 0 && position(to[i]) == position(to[i - 1]) + 1) runs.back().push_back(to[i]);
    else runs.push_back({to[i]});
  }
  std::vector<size_t> by_source(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) by_source[i] = i;
  std::sort(by_source.begin(), by_source.end(),
            [&](size_t a, size_t b) { return position(runs[a][0]) < position(runs[b][0]); });
  auto extent = [&](const std::vector<int>& run) {
    int64_t n = 1;
    for (int a : run) n *= atoms.size[a];
    return n;
  };
  const int out = op.outputs[0];
  bool moves = false;
  Ints viewed, perm(runs.size()), permuted;
  for (size_t i = 0; i < runs.size(); ++i) {
    viewed.push_back(extent(runs[by_source[i]]));
    permuted.push_back(extent(runs[i]));
    // Output dim i is run i, at input position j with by_source[j] == i.
    perm[i] = static_cast<int64_t>(std::find(by_source.begin(), by_source.end(), i) - by_source.begin());
    moves |= perm[i] != static_cast<int64_t>(i);
  }
  if (!moves) return {Op{"reshape", {src}, {out}, {}, op.source}};
  if (runs.size() > rt::kMaxRank) return {};
  std::vector<Op> ops;
  int in = src;
  if (viewed != src_shape) {
    in = g.add_tensor_like(src, "_viewed", viewed);
    ops.push_back(Op{"reshape", {src}, {in}, {}, op.source});
  }
  const int t = permuted == g.tensors[out].shape ? out : g.add_tensor_like(out, "_permuted", permuted);
  ops.push_back(Op{"transpose", {in}, {t}, {{"perm", perm}}, op.source});
  if (t != out) ops.push_back(Op{"reshape", {t}, {out}, {}, op.source});
  return ops;
}

}  // namespace ember::compiler
