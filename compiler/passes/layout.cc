//===- layout.cc - Channels-last activations, OHWI weights ----------------===//
//
// PyTorch is channels-first (NCHW, NCL); Cortex-M kernels want channels-last so that a pixel's
// channels are contiguous for the dot products. Steps:
//  1. Anchors: the activations of conv and 2-D pooling are channels-last (CL).
//  2. Propagation: an elementwise op (binary, unary, clamp, q/dq, cat, slice, spread, pad) puts all its
//     same-rank operands and results in one layout, so CL spreads through residual adds; a
//     softmax over the channels of a CL tensor has a CL result.
//  3. Rewrite: CL tensors get their stored shape (rank 4 NHWC; rank 3 NCL is stored as
//     [N, L, 1, C] so 1-D convs run as 2-D ones), constants next to CL ops are permuted,
//     dimension attributes are remapped, conv weights become OHWI and depthwise 1HWC. An op
//     that needs the model's own order (reshape, transpose, linear, ...) reading a CL tensor gets
//     a transpose in front, or a free reshape when the order of bytes is the same (C == 1 or
//     H*W == 1, e.g. flatten after global pooling); likewise after it when it writes one.

#include <map>
#include <set>

#include "ember/compiler/op_info.h"
#include "ember/compiler/passes/pass_util.h"
#include "ember/compiler/passes/passes.h"

namespace ember::compiler {
namespace {

using Ints = std::vector<int64_t>;

const Ints kToCl = {0, 2, 3, 1};  // NCHW -> NHWC
const Ints kToCf = {0, 3, 1, 2};  // NHWC -> NCHW

// Logical channels-first dim -> stored dim, for rank 3 (NCL as N L 1 C) and rank 4.
int64_t cl_dim(int64_t d, size_t rank) {
  static const int64_t k3[] = {0, 3, 1}, k4[] = {0, 3, 1, 2};
  return rank == 3 ? k3[d] : k4[d];
}

// The logical shape padded to 4-D channels-first ([N, C, L] -> [N, C, L, 1]).
Ints as_4d(const Ints& shape, size_t rank) {
  Ints s(rank - shape.size(), 1);
  s.insert(s.end(), shape.begin(), shape.end());
  if (rank == 3) s.push_back(1);
  return s;
}

class LayoutPass {
 public:
  LayoutPass(Graph& g, Diagnostics& d) : g_(g), diag_(d), cl_(g.tensors.size(), false), rank_(g.tensors.size(), 0) {}

  Status run() {
    for (size_t t = 0; t < g_.tensors.size(); ++t) rank_[t] = g_.tensors[t].shape.size();
    mark_anchors();
    propagate();
    std::vector<Op> ops = std::move(g_.ops);
    g_.ops.clear();
    for (Op& op : ops) rewrite(op);
    for (size_t t = 0; t < cl_.size(); ++t)
      if (cl_[t]) to_stored_shape(static_cast<int>(t));
    return diag_.empty() ? Status::Success : Status::Failure;
  }

 private:
  bool activation(int t) const { return t >= 0 && !g_.tensors[t].is_constant; }

  void mark_anchors() {
    for (const Op& op : g_.ops) {
      const bool conv = op.kind == "conv";
      const bool pool = op.kind == "avg_pool2d" || op.kind == "max_pool2d";
      if (!conv && !pool) continue;
      cl_[op.inputs[0]] = cl_[op.outputs[0]] = true;
    }
  }

  // A softmax over the channels of a CL tensor runs channels-last (over the stored last dim),
  // so its result is CL too.
  bool channel_softmax(const Op& op) const {
    const size_t rank = rank_[op.inputs[0]];
    return op.kind == "softmax" && cl_[op.inputs[0]] && (rank == 3 || rank == 4) &&
           cl_dim(op.i("dim"), rank) == 3;  // dim is non-negative (legalize)
  }

  void propagate() {
    for (bool changed = true; changed;) {
      changed = false;
      for (const Op& op : g_.ops) {
        if (channel_softmax(op) && !cl_[op.outputs[0]]) cl_[op.outputs[0]] = changed = true;
        if (!has_trait(op.kind, AnyLayout)) continue;
        const size_t rank = rank_[op.outputs[0]];
        if (rank != 3 && rank != 4) continue;
        std::vector<int> members(op.outputs.begin(), op.outputs.end());
        for (int t : op.inputs)
          if (activation(t) && rank_[t] == rank) members.push_back(t);
        bool any = false;
        for (int t : members) any |= cl_[t];
        if (!any) continue;
        for (int t : members)
          if (!cl_[t]) cl_[t] = changed = true;
      }
    }
  }

  // Stored (channels-last) shape; idempotent per tensor.
  void to_stored_shape(int t) {
    Tensor& tensor = g_.tensors[t];
    if (tensor.layout != Layout::AsModel) return;
    tensor.shape = permute_shape(as_4d(tensor.shape, rank_[t]), kToCl);
    tensor.layout = rank_[t] == 3 ? Layout::Ncl : Layout::Nchw;
  }

  // A constant operand of a CL op of logical rank `rank`, as a new CL constant.
  int convert_constant(int t, size_t rank) {
    const Tensor& c = g_.tensors[t];
    Tensor out = c;
    const Ints shape4 = as_4d(c.shape, rank);
    out.data = permute_bytes(c.data, shape4, kToCl, dtype_size(c.dtype));
    out.shape = permute_shape(shape4, kToCl);
    out.name += "_nhwc";
    const int id = g_.add_tensor(std::move(out));
    cl_.push_back(false);  // already stored channels-last; not to be converted again
    rank_.push_back(4);
    return id;
  }

  bool bytes_match(int t) const {  // NCHW and NHWC orders coincide
    const Ints s = as_4d(g_.tensors[t].shape, rank_[t]);
    return s[1] == 1 || s[2] * s[3] == 1;
  }

  // A channels-first copy of CL tensor t (a view when the bytes already match).
  int to_channels_first(int t, const std::string& source) {
    if (auto it = cf_copy_.find(t); it != cf_copy_.end()) return it->second;
    Tensor cf = g_.tensors[t];
    cf.name += "_nchw";
    cf.layout = Layout::AsModel;
    const int id = g_.add_tensor(std::move(cf));
    cl_.push_back(false);
    rank_.push_back(rank_[t]);
    Op op;
    op.source = source;
    op.inputs = {t};
    op.outputs = {id};
    if (bytes_match(t) || rank_[t] == 3) {
      op.kind = "reshape";  // rank 3 [N, L, 1, C] -> [N, C, L]: a view only if bytes match
      if (!bytes_match(t)) {
        const int mid = add_transposed_cl(t, source);
        op.inputs = {mid};
      }
    } else {
      op.kind = "transpose";
      op.attrs["perm"] = kToCf;
    }
    g_.ops.push_back(std::move(op));
    cf_copy_[t] = id;
    return id;
  }

  // [N, L, 1, C] -> [N, C, L, 1] as a new tensor (rank-3 CL to channels-first bytes).
  int add_transposed_cl(int t, const std::string& source) {
    Tensor mid = g_.tensors[t];
    mid.name += "_nc";
    mid.layout = Layout::AsModel;
    mid.shape = as_4d(mid.shape, 3);
    const int id = g_.add_tensor(std::move(mid));
    cl_.push_back(false);
    rank_.push_back(4);
    g_.ops.push_back(Op{"transpose", {t}, {id}, {{"perm", kToCf}}, source});
    return id;
  }

  void rewrite(Op& op) {
    if (op.kind == "conv") return conv(op);
    if (op.kind == "avg_pool2d" || op.kind == "max_pool2d") return emit(op);
    const bool cl_op = !op.outputs.empty() && cl_[op.outputs[0]] && has_trait(op.kind, AnyLayout);
    if (cl_op) return elementwise(op);
    if (channel_softmax(op)) {
      op.attrs["dim"] = int64_t{3};
      return emit(op);
    }
    plain(op);
  }

  void emit(Op& op) { g_.ops.push_back(std::move(op)); }

  void conv(Op& op) {
    const int w = op.inputs[1];
    if (!g_.tensors[w].is_constant) return diag_.error(op, "conv: the weight must be a constant");
    const Tensor& x = g_.tensors[op.inputs[0]];
    const int64_t cin = x.shape[1];
    const int64_t groups = op.i("groups");
    Tensor weight = g_.tensors[w];
    const Ints shape4 = weight.shape.size() == 3 ? Ints{weight.shape[0], weight.shape[1], weight.shape[2], 1}
                                                  : weight.shape;
    const bool depthwise = groups > 1 && groups == cin && shape4[1] == 1;
    const Ints perm = depthwise ? Ints{1, 2, 3, 0} : kToCl;  // 1HWC : OHWI
    weight.data = permute_bytes(weight.data, shape4, perm, dtype_size(weight.dtype));
    weight.shape = permute_shape(shape4, perm);
    if (weight.quant && !weight.quant->per_tensor()) weight.quant->axis = depthwise ? 3 : 0;
    weight.name += depthwise ? "_1hwc" : "_ohwi";
    op.inputs[1] = g_.add_tensor(std::move(weight));
    cl_.push_back(false);
    rank_.push_back(4);
    op.attrs["depthwise"] = int64_t{depthwise ? 1 : 0};
    emit(op);
  }

  void elementwise(Op& op) {
    const size_t rank = rank_[op.outputs[0]];
    for (int& t : op.inputs) {
      if (t < 0) continue;
      if (g_.tensors[t].is_constant) {
        if (g_.tensors[t].num_elements() > 1 || rank_[t] == rank) t = convert_constant(t, rank);
      } else if (!cl_[t]) {
        return diag_.error(op, op.kind + ": cannot mix a channels-first operand of rank " +
                                   std::to_string(rank_[t]) + " into a channels-last op");
      }
    }
    if (op.kind == "cat" || op.kind == "slice" || op.kind == "spread") op.attrs["dim"] = cl_dim(op.i("dim"), rank);
    // Attributes with a value per dimension move with their dims (4 in the stored form).
    auto per_dim = [&](const char* key) {
      Ints stored(4, 0);
      for (size_t d = 0; d < rank; ++d) stored[cl_dim(d, rank)] = op.ints_attr(key)[d];
      op.attrs[key] = stored;
    };
    if (op.kind == "adaptive_pool") per_dim("axes");
    if (op.kind == "pad") per_dim("before"), per_dim("after");
    if (op.kind == "resize" && op.has("axes"))  // bilinear's H and W, rank 4
      op.attrs["axes"] = Ints{cl_dim(op.ints_attr("axes")[0], rank), cl_dim(op.ints_attr("axes")[1], rank)};
    emit(op);
  }

  void plain(Op& op) {
    for (int& t : op.inputs)
      if (t >= 0 && cl_[t]) t = to_channels_first(t, op.source);
    std::vector<std::pair<int, int>> fixups;  // (channels-first result, CL tensor)
    for (int& t : op.outputs) {
      if (!cl_[t]) continue;
      Tensor cf = g_.tensors[t];
      cf.name += "_nchw";
      const int id = g_.add_tensor(std::move(cf));
      cl_.push_back(false);
      rank_.push_back(rank_[t]);
      fixups.push_back({id, t});
      t = id;
    }
    const std::string source = op.source;
    emit(op);
    for (auto [cf, target] : fixups) {
      if (bytes_match(target)) {
        g_.ops.push_back(Op{"reshape", {cf}, {target}, {}, source});
      } else {
        const int m = g_.add_tensor_like(cf, "_4d", as_4d(g_.tensors[cf].shape, rank_[cf]));
        cl_.push_back(false);
        rank_.push_back(4);
        g_.ops.push_back(Op{"reshape", {cf}, {m}, {}, source});
        g_.ops.push_back(Op{"transpose", {m}, {target}, {{"perm", kToCl}}, source});
      }
    }
  }

  Graph& g_;
  Diagnostics& diag_;
  std::vector<bool> cl_;
  std::vector<size_t> rank_;  // logical (model) rank
  std::map<int, int> cf_copy_;
};

}  // namespace

Status layout(Graph& graph, const Target&, Diagnostics& diag) { return LayoutPass(graph, diag).run(); }

}  // namespace ember::compiler
