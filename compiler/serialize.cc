//===- serialize.cc - Write a compiled graph as a program file ------------===//

#include "ember/compiler/serialize.h"

#include <algorithm>
#include <map>
#include <set>

#include "ember/runtime/program.h"
#include "ember/schema/program_generated.h"

namespace ember::compiler {
namespace fb = ember::schema;
using rt::kSchemaVersion;  // the runtime's: one constant for writer and reader

namespace {

bool to_schema_dtype(DType dtype, fb::DType* out) {
  switch (dtype) {
    case DType::Int8: *out = fb::DType::Int8; return true;
    case DType::Int32: *out = fb::DType::Int32; return true;
    case DType::Float32: *out = fb::DType::Float32; return true;
    default: return false;
  }
}

}  // namespace

std::vector<uint8_t> serialize(const Graph& g, const std::string& target, Diagnostics& diag) {
  // Tensors in first-use order (inputs, then op operands, then outputs), arena tensors first.
  std::map<int, int> index;
  std::vector<int> order;
  auto use = [&](int t) {
    if (t >= 0 && !index.count(t)) index[t] = static_cast<int>(order.size()), order.push_back(t);
  };
  for (int t : g.inputs) use(t);
  for (const Op& op : g.ops) {
    if (op.kernel < 0) continue;
    for (int t : op.inputs) use(t);
    for (int t : op.outputs) use(t);
  }
  for (int t : g.outputs) use(t);
  // Reshapes have no kernel: their results are views of the tensor they reshape. An NPU
  // partition's outputs are views of its scratch (windows, at their own offsets), which its op
  // writes; the windows its inputs are in are tensors of their own, written by the ops before.
  std::map<int, int> view_root;
  for (const Op& op : g.ops)
    if (op.kind == "ethos_u")
      for (int t : op.outputs)
        if (g.windows.count(t)) view_root[t] = g.windows.at(t).source;
  for (const Op& op : g.ops)
    if (op.kind == "reshape") {
      const int src = op.inputs[0];
      view_root[op.outputs[0]] = view_root.count(src) ? view_root[src] : src;
    }
  for (const auto& [view, root] : view_root)
    if (index.count(view)) use(root);
  // Arena tensors before constants: the runtime's plan check works on 64 tensor indices at a
  // time and skips the indices past the last arena tensor (docs/runtime.md), so most models'
  // arena tensors take one such pass.
  std::stable_partition(order.begin(), order.end(), [&](int t) { return !g.tensors[t].is_constant; });
  for (size_t i = 0; i < order.size(); ++i) index[order[i]] = static_cast<int>(i);

  flatbuffers::FlatBufferBuilder fbb(1 << 16);
  std::vector<uint8_t> constants;
  std::vector<fb::Tensor> tensors;
  std::string names;  // NUL-ended, in tensor order
  for (int t : order) {
    const Tensor& tensor = g.tensors[t];
    fb::DType dtype;
    if (!to_schema_dtype(tensor.dtype, &dtype)) {
      diag.error("tensor '" + tensor.name + "' has dtype " + dtype_name(tensor.dtype) + ", which programs cannot hold");
      return {};
    }
    if (tensor.shape.size() > rt::kMaxRank) {
      diag.error("tensor '" + tensor.name + "' has rank " + std::to_string(tensor.shape.size()) +
                 "; programs hold at most " + std::to_string(rt::kMaxRank) + " dims");
      return {};
    }
    uint32_t offset = 0, region = 0;
    fb::Storage storage = fb::Storage::Arena;
    if (tensor.is_constant) {
      storage = fb::Storage::Constant;
      constants.resize((constants.size() + 15) / 16 * 16);
      offset = static_cast<uint32_t>(constants.size());
      constants.insert(constants.end(), tensor.data.begin(), tensor.data.end());
    } else {
      region = static_cast<uint32_t>(g.tensor_region[t]);
      offset = static_cast<uint32_t>(g.tensor_offset[t]);
    }
    // Only values in the arena keep their scale and zero point (per tensor, for the caller and
    // for debugging). A constant's quantization is already folded into the multipliers, shifts
    // and biases its op reads; per-channel weight scales would be dead bytes that every load
    // still has to verify.
    float scale = 0;
    int32_t zero_point = 0;
    if (tensor.quant && !tensor.is_constant) {
      if (tensor.quant->scale.size() != 1 || tensor.quant->zero_point.size() > 1) {
        diag.error("tensor '" + tensor.name + "' is quantized per channel; programs hold a "
                   "per-channel scale only folded into its op's multipliers");
        return {};
      }
      scale = static_cast<float>(tensor.quant->scale[0]);
      zero_point = tensor.quant->zero_point.empty() ? 0 : tensor.quant->zero_point[0];
    }
    int32_t dims[rt::kMaxRank] = {};
    for (size_t d = 0; d < tensor.shape.size(); ++d) dims[d] = static_cast<int32_t>(tensor.shape[d]);
    const auto root = view_root.find(t);
    const int view_of = root == view_root.end() ? -1 : index[root->second];
    tensors.emplace_back(flatbuffers::span<const int32_t, rt::kMaxRank>(dims), offset, view_of, scale,
                         zero_point, static_cast<uint8_t>(region), static_cast<uint8_t>(tensor.shape.size()),
                         dtype, storage, static_cast<fb::Layout>(tensor.layout));
    names += tensor.name;
    names += '\0';
  }

  std::vector<flatbuffers::Offset<fb::Op>> ops;
  std::set<uint16_t> kernels;
  int peak = -1, kernel_ops = 0;
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const Op& op = g.ops[k];
    if (static_cast<int>(k) == g.peak_op) peak = kernel_ops;
    if (op.kernel < 0) continue;
    std::vector<int32_t> inputs, outputs;
    for (int t : op.inputs) inputs.push_back(t < 0 ? -1 : index[t]);
    for (int t : op.outputs)
      if (!view_root.count(t)) outputs.push_back(index[t]);
    kernels.insert(static_cast<uint16_t>(op.kernel));
    ops.push_back(fb::CreateOpDirect(fbb, static_cast<uint16_t>(op.kernel), &inputs, &outputs, &op.ints,
                                     &op.floats, op.source.c_str(),
                                     op.kernel_reason.c_str(), op.rows_bottom_up));
    ++kernel_ops;
  }

  std::vector<flatbuffers::Offset<fb::Region>> regions;
  for (const RegionPlan& r : g.regions)
    regions.push_back(fb::CreateRegionDirect(fbb, r.name.c_str(), static_cast<uint32_t>(r.size)));
  std::vector<int32_t> inputs, outputs;
  for (int t : g.inputs) inputs.push_back(index[t]);
  for (int t : g.outputs) outputs.push_back(index[t]);
  std::vector<uint16_t> kernel_list(kernels.begin(), kernels.end());

  constants.resize((constants.size() + 15) / 16 * 16);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> constant_data;
  if (!constants.empty()) {  // an empty vector has no data to align
    fbb.ForceVectorAlignment(constants.size(), sizeof(uint8_t), 16);
    constant_data = fbb.CreateVector(constants);
  }
  const auto target_name = fbb.CreateString(target);
  auto root = fb::CreateProgram(fbb, kSchemaVersion, fbb.CreateVectorOfStructs(tensors), fbb.CreateString(names),
                                fbb.CreateVector(ops),
                                fbb.CreateVector(inputs), fbb.CreateVector(outputs), fbb.CreateVector(regions),
                                fbb.CreateVector(kernel_list), constant_data,
                                static_cast<uint32_t>(g.lower_bound), peak, target_name);
  fb::FinishProgramBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace ember::compiler
