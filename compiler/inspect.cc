//===- inspect.cc - A program file as JSON, for `ember inspect` -----------===//
//
// Built with nlohmann::json (ordered: keys in the order written here).

#include "ember/compiler/inspect.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "ember/compiler/kernel_table.h"
#include "ember/schema/program_generated.h"

namespace ember::compiler {
namespace fb = ember::schema;
namespace {

using Json = nlohmann::ordered_json;

// Names come from the file: a byte outside printable ASCII reads as the text \xNN (as in the
// runtime's messages), so the JSON is valid UTF-8 and printing a name sends no control codes.
std::string printable(const std::string& s) {
  std::string out;
  for (char c : s) {
    const unsigned char b = static_cast<unsigned char>(c);
    if (b < 0x20 || b >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", b);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// A flatbuffers vector as a JSON array of item(element).
template <typename V, typename F>
Json list(const V* v, F item) {
  Json out = Json::array();
  if (v)
    for (size_t i = 0; i < v->size(); ++i) out.push_back(item(v->Get(static_cast<flatbuffers::uoffset_t>(i))));
  return out;
}

const char* dtype_str(fb::DType d) {
  switch (d) {
    case fb::DType::Int8: return "int8";
    case fb::DType::Int32: return "int32";
    case fb::DType::Float32: return "float32";
  }
  return "unknown";
}

std::string str(const flatbuffers::String* s) { return s ? s->str() : ""; }

// A tensor's shape; a rank past the stored dims (a file the runtime rejects) shows those only.
std::vector<int32_t> shape_of(const fb::Tensor& t) {
  std::vector<int32_t> shape;
  for (uint32_t d = 0; d < t.rank() && d < t.dims()->size(); ++d) shape.push_back(t.dims()->Get(d));
  return shape;
}

// The NUL-ended entries of tensor_names, split once so a lookup is constant time (a lookup that
// walked the string made inspect quadratic in the file).
using Names = std::vector<std::string>;
Names split_names(const fb::Program& p) {
  Names names;
  const std::string all = str(p.tensor_names());
  for (size_t at = 0; at < all.size();) {
    const size_t nul = std::min(all.find('\0', at), all.size());
    names.push_back(all.substr(at, nul - at));
    at = nul + 1;
  }
  return names;
}

// Tensor t's name ("" when there is none).
const std::string& name_of(const Names& names, int32_t t) {
  static const std::string kNone;
  return t < 0 || static_cast<size_t>(t) >= names.size() ? kNone : names[static_cast<size_t>(t)];
}

// The model's own shape of a stored tensor: NHWC back to NCHW, [N, L, 1, C] back to NCL.
std::vector<int32_t> model_shape(const fb::Tensor& t) {
  std::vector<int32_t> s = shape_of(t);
  if (s.size() != 4 || t.layout() == fb::Layout::AsModel) return s;
  if (t.layout() == fb::Layout::Ncl) return {s[0], s[3], s[1]};
  return {s[0], s[3], s[1], s[2]};
}

Json io(const fb::Program& p, const Names& names, int32_t index) {
  if (index < 0 || static_cast<flatbuffers::uoffset_t>(index) >= p.tensors()->size()) return nullptr;
  const fb::Tensor* t = p.tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const bool quantized = t->scale() != 0;
  return Json{{"name", printable(name_of(names, index))},
              {"model_shape", model_shape(*t)},
              {"shape", shape_of(*t)},
              {"dtype", dtype_str(t->dtype())},
              {"layout", t->layout() == fb::Layout::Nchw  ? "nchw_as_nhwc"
                         : t->layout() == fb::Layout::Ncl ? "ncl_as_nl1c"
                                                          : "as_model"},
              {"scale", quantized ? Json(t->scale()) : Json(nullptr)},
              {"zero_point", quantized ? Json(t->zero_point()) : Json(nullptr)}};
}

// Multiply-accumulates of one op: convolutions and fully connected layers only (the counting
// rule of ember.models.stats). conv filters are OHWI, depthwise 1HWC, linear [O, K].
uint64_t op_macs(const fb::Program& p, const fb::Op& op, const std::string& kernel) {
  auto shape = [&](int32_t t) {
    if (t < 0 || static_cast<flatbuffers::uoffset_t>(t) >= p.tensors()->size()) return std::vector<int32_t>();
    return shape_of(*p.tensors()->Get(static_cast<flatbuffers::uoffset_t>(t)));
  };
  if (!op.inputs() || op.inputs()->size() < 2 || !op.outputs() || op.outputs()->size() < 1) return 0;
  const std::vector<int32_t> filter = shape(op.inputs()->Get(1));
  const std::vector<int32_t> out = shape(op.outputs()->Get(0));
  if (filter.empty() || out.empty()) return 0;
  uint64_t out_elems = 1, filter_elems = 1;
  for (int32_t d : out) out_elems *= static_cast<uint64_t>(d);
  for (int32_t d : filter) filter_elems *= static_cast<uint64_t>(d);
  const uint64_t first = static_cast<uint64_t>(filter.front());
  const uint64_t last = static_cast<uint64_t>(filter.back());
  if (kernel.rfind("depthwise_conv2d", 0) == 0) return last ? out_elems * (filter_elems / last) : 0;
  if (kernel.rfind("conv2d", 0) == 0 || kernel.rfind("fully_connected", 0) == 0)
    return first ? out_elems * (filter_elems / first) : 0;
  return 0;
}

}  // namespace

std::string inspect_json(const uint8_t* data, size_t size, std::string* error) {
  flatbuffers::Verifier verifier(data, size);
  if (!fb::ProgramBufferHasIdentifier(data) || !fb::VerifyProgramBuffer(verifier)) {
    *error = "not a valid Ember program file";
    return "";
  }
  const fb::Program& p = *fb::GetProgram(data);
  if (!p.tensors() || !p.ops() || !p.inputs() || !p.outputs() || !p.regions()) {
    *error = "program file lacks required fields";
    return "";
  }
  const Names names = split_names(p);
  const int32_t num_tensors = static_cast<int32_t>(p.tensors()->size());
  const int32_t num_ops = static_cast<int32_t>(p.ops()->size());
  auto tensor = [&](int32_t t) { return t >= 0 && t < num_tensors ? p.tensors()->Get(static_cast<flatbuffers::uoffset_t>(t)) : nullptr; };
  auto tensor_name = [&](int32_t t) { return tensor(t) ? Json(printable(name_of(names, t))) : Json(nullptr); };
  auto tensor_shape = [&](int32_t t) { return tensor(t) ? Json(shape_of(*tensor(t))) : Json(nullptr); };
  auto id = [](int32_t t) { return Json(t); };
  auto bytes_of = [&](int32_t t) {
    uint64_t bytes = tensor(t)->dtype() == fb::DType::Int8 ? 1 : 4;
    for (int32_t d : shape_of(*tensor(t))) bytes *= static_cast<uint64_t>(d < 0 ? 0 : d);
    return bytes;
  };
  // Bytes of an op's constant operands (weights, tables), and of its result (output 0; output 1
  // is an optimized kernel's scratch).
  auto weight_bytes = [&](const fb::Op& op) {
    uint64_t sum = 0;
    if (op.inputs())
      for (int32_t t : *op.inputs())
        if (tensor(t) && tensor(t)->storage() == fb::Storage::Constant) sum += bytes_of(t);
    return sum;
  };
  auto output_bytes = [&](const fb::Op& op) {
    return op.outputs() && op.outputs()->size() > 0 && tensor(op.outputs()->Get(0)) ? bytes_of(op.outputs()->Get(0)) : 0;
  };
  Json ops = list(p.ops(), [&](const fb::Op* op) {
    const std::string source = str(op->source());
    const KernelInfo* info = kernel_info(op->kernel());
    const std::string kernel = info ? info->name : "unknown";
    return Json{{"op", printable(source.substr(0, source.find(' ')))},
                {"kernel", kernel},
                {"kernel_note", printable(str(op->kernel_note()))},
                {"macs", op_macs(p, *op, kernel)},
                {"weight_bytes", weight_bytes(*op)},
                {"output_bytes", output_bytes(*op)},
                {"inputs", list(op->inputs(), tensor_name)},
                {"outputs", list(op->outputs(), tensor_name)},
                {"input_ids", list(op->inputs(), id)},
                {"output_ids", list(op->outputs(), id)},
                {"input_shapes", list(op->inputs(), tensor_shape)},
                {"ints", list(op->ints(), id)},
                {"rows_bottom_up", op->rows_bottom_up()},
                {"source", printable(source)}};
  });
  // Every arena tensor with its place and lifetime (ops that touch it; inputs from op 0,
  // outputs through the last op). A view shares its source's bytes: view_of names it.
  std::vector<int32_t> first(num_tensors, -1), last(num_tensors, -1);
  auto touch = [&](int32_t t, int32_t k) {
    if (t < 0 || t >= num_tensors) return;
    first[t] = first[t] < 0 ? k : std::min(first[t], k);
    last[t] = std::max(last[t], k);
  };
  for (int32_t t : *p.inputs()) touch(t, 0);
  for (int32_t k = 0; k < num_ops; ++k) {
    const fb::Op* op = p.ops()->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (op->inputs())
      for (int32_t t : *op->inputs()) touch(t, k);
    if (op->outputs())
      for (int32_t t : *op->outputs()) touch(t, k);
  }
  for (int32_t t : *p.outputs()) touch(t, std::max(0, num_ops - 1));
  Json buffers = Json::array();
  for (int32_t t = 0; t < num_tensors; ++t) {
    const fb::Tensor* x = tensor(t);
    if (x->storage() != fb::Storage::Arena) continue;
    const uint64_t bytes = bytes_of(t);
    const std::string region = x->region() < p.regions()->size() ? str(p.regions()->Get(x->region())->name()) : "?";
    buffers.push_back(Json{{"tensor", t}, {"name", printable(name_of(names, t))}, {"shape", shape_of(*x)},
                           {"dtype", dtype_str(x->dtype())}, {"region", printable(region)},
                           {"offset", x->offset()}, {"bytes", bytes}, {"first_op", first[t]},
                           {"last_op", last[t]}, {"view_of", x->view_of()}});
  }
  uint64_t arena = 0;
  Json regions = list(p.regions(), [&](const fb::Region* r) {
    arena += r->size();
    return Json{{"name", printable(str(r->name()))}, {"bytes", r->size()}};
  });
  const int peak = p.peak_op();
  const Json peak_op = peak >= 0 && peak < num_ops
                           ? Json(printable(str(p.ops()->Get(static_cast<flatbuffers::uoffset_t>(peak))->source())))
                           : Json(nullptr);
  Json kernels = list(p.kernels(), [](uint16_t k) {
    const KernelInfo* info = kernel_info(k);
    return Json(info ? info->name : "unknown");
  });
  const Json memory{{"regions", regions},       {"arena_bytes", arena},   {"lower_bound_bytes", p.lower_bound()},
                    {"peak_op", peak_op},       {"peak_op_index", peak},  {"buffers", buffers}};
  const Json program{{"version", p.version()},
                     {"target", printable(str(p.target()))},
                     {"file_bytes", size},
                     {"constant_bytes", p.constant_data() ? p.constant_data()->size() : 0},
                     {"num_tensors", num_tensors},
                     {"inputs", list(p.inputs(), [&](int32_t t) { return io(p, names, t); })},
                     {"outputs", list(p.outputs(), [&](int32_t t) { return io(p, names, t); })},
                     {"memory", memory},
                     {"kernels", kernels},
                     {"ops", ops}};
  return program.dump();
}

}  // namespace ember::compiler
