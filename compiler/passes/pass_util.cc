//===- pass_util.cc - Small helpers the passes share ----------------------===//

#include "ember/compiler/passes/pass_util.h"

#include <cstring>

namespace ember::compiler {

std::vector<double> constant_values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (t.dtype) {
      case DType::Float32: v[i] = t.as<float>()[i]; break;
      case DType::Int32: v[i] = t.as<int32_t>()[i]; break;
      case DType::Int64: v[i] = static_cast<double>(t.as<int64_t>()[i]); break;
      case DType::Int8: v[i] = t.as<int8_t>()[i]; break;
      case DType::Bool: v[i] = t.as<uint8_t>()[i]; break;
    }
  }
  return v;
}

namespace {
template <typename T>
int add_constant(Graph& g, const std::string& name, std::vector<int64_t> shape, DType dtype,
                 const std::vector<T>& values) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.is_constant = true;
  t.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return g.add_tensor(std::move(t));
}
}  // namespace

int add_constant_f32(Graph& g, const std::string& name, std::vector<int64_t> shape,
                     const std::vector<float>& values) {
  return add_constant(g, name, std::move(shape), DType::Float32, values);
}
int add_constant_i32(Graph& g, const std::string& name, std::vector<int64_t> shape,
                     const std::vector<int32_t>& values) {
  return add_constant(g, name, std::move(shape), DType::Int32, values);
}
int add_constant_i8(Graph& g, const std::string& name, std::vector<int64_t> shape,
                    const std::vector<int8_t>& values) {
  return add_constant(g, name, std::move(shape), DType::Int8, values);
}

std::vector<int64_t> permute_shape(const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& perm) {
  std::vector<int64_t> out(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) out[d] = shape[perm[d]];
  return out;
}

std::vector<uint8_t> permute_bytes(const std::vector<uint8_t>& data,
                                   const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& perm, size_t elem_size) {
  const size_t rank = shape.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * shape[d];
  const std::vector<int64_t> out_shape = permute_shape(shape, perm);
  std::vector<uint8_t> out(data.size());
  std::vector<int64_t> index(rank, 0);
  const int64_t n = num_elements(shape);
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += index[d] * in_strides[perm[d]];
    std::memcpy(&out[k * elem_size], &data[src * elem_size], elem_size);
    for (size_t d = rank; d-- > 0;) {  // odometer over the output index
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace ember::compiler
