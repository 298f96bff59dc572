//===- ir.cc - Ember IR helpers -------------------------------------------===//

#include "ember/compiler/ir.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ember::compiler {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Int8: return "int8";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float32: return "float32";
    case DType::Bool: return "bool";
  }
  return "?";
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::Int8: return 1;
    case DType::Bool: return 1;
    case DType::Int32: return 4;
    case DType::Float32: return 4;
    case DType::Int64: return 8;
  }
  return 0;
}

bool Quant::operator==(const Quant& other) const {
  return scale == other.scale && zero_point == other.zero_point && axis == other.axis;
}

int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t Tensor::num_elements() const { return compiler::num_elements(shape); }

namespace {
template <typename T>
const T& get_attr(const Op& op, const std::string& key) {
  auto it = op.attrs.find(key);
  if (it == op.attrs.end()) throw std::runtime_error(op.kind + ": missing attribute " + key);
  const T* value = std::get_if<T>(&it->second);
  if (!value) throw std::runtime_error(op.kind + ": attribute " + key + " has the wrong type");
  return *value;
}
}  // namespace

int64_t Op::i(const std::string& key) const { return get_attr<int64_t>(*this, key); }
const std::string& Op::s(const std::string& key) const { return get_attr<std::string>(*this, key); }
const std::vector<int64_t>& Op::ints_attr(const std::string& key) const {
  return get_attr<std::vector<int64_t>>(*this, key);
}
const std::vector<double>& Op::floats_attr(const std::string& key) const {
  return get_attr<std::vector<double>>(*this, key);
}
double Op::f(const std::string& key) const {
  auto it = attrs.find(key);
  if (it != attrs.end()) {
    if (const int64_t* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  }
  return get_attr<double>(*this, key);
}

int Graph::add_tensor(Tensor tensor) {
  tensors.push_back(std::move(tensor));
  return static_cast<int>(tensors.size()) - 1;
}

int Graph::add_tensor_like(int like, const std::string& suffix) {
  return add_tensor_like(like, suffix, tensors[like].shape);
}

int Graph::add_tensor_like(int like, const std::string& suffix, std::vector<int64_t> shape) {
  Tensor t;
  t.name = tensors[like].name + suffix;
  t.shape = std::move(shape);
  t.dtype = tensors[like].dtype;
  t.quant = tensors[like].quant;
  t.layout = tensors[like].layout;
  return add_tensor(std::move(t));
}

int Graph::add_bytes(const std::string& name, int64_t bytes) {
  Tensor t;
  t.name = name;
  t.shape = {bytes};
  t.dtype = DType::Int8;
  return add_tensor(std::move(t));
}

std::vector<int> Graph::users(int t) const {
  std::vector<int> result;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& in = ops[i].inputs;
    if (std::find(in.begin(), in.end(), t) != in.end()) result.push_back(static_cast<int>(i));
  }
  return result;
}

int Graph::producer(int t) const {
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& out = ops[i].outputs;
    if (std::find(out.begin(), out.end(), t) != out.end()) return static_cast<int>(i);
  }
  return -1;
}

bool Graph::is_graph_output(int t) const {
  return std::find(outputs.begin(), outputs.end(), t) != outputs.end();
}

void Graph::replace_uses(int from, int to) {
  for (auto& op : ops)
    for (int& t : op.inputs)
      if (t == from) t = to;
  for (int& t : outputs)
    if (t == from) t = to;
}

void Graph::remove_dead_ops() {
  // Walk backwards once: an op is live if a graph output or a live op reads one of its outputs.
  std::set<int> read(outputs.begin(), outputs.end());
  std::vector<bool> live(ops.size(), false);
  for (size_t k = ops.size(); k-- > 0;) {
    for (int t : ops[k].outputs)
      if (read.count(t)) live[k] = true;
    if (live[k])
      for (int t : ops[k].inputs) read.insert(t);
  }
  std::vector<Op> kept;
  for (size_t k = 0; k < ops.size(); ++k)
    if (live[k]) kept.push_back(std::move(ops[k]));
  ops = std::move(kept);
}

void Graph::erase_ops(const std::vector<bool>& erased) {
  std::vector<Op> kept;
  for (size_t k = 0; k < ops.size(); ++k)
    if (!erased[k]) kept.push_back(std::move(ops[k]));
  ops = std::move(kept);
}

}  // namespace ember::compiler
