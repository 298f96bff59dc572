//===- pass_util.h - Small helpers the passes share -----------------------===//

#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "ember/compiler/ir.h"

namespace ember::compiler {

/// A constant tensor's elements as doubles (float32, int32, int64, int8, bool).
std::vector<double> constant_values(const Tensor& tensor);

/// A new float32 / int32 / int8 constant tensor.
int add_constant_f32(Graph& graph, const std::string& name, std::vector<int64_t> shape,
                     const std::vector<float>& values);
int add_constant_i32(Graph& graph, const std::string& name, std::vector<int64_t> shape,
                     const std::vector<int32_t>& values);
int add_constant_i8(Graph& graph, const std::string& name, std::vector<int64_t> shape,
                    const std::vector<int8_t>& values);

/// Normalises a possibly negative dimension index against `rank`.
inline int64_t norm_dim(int64_t dim, size_t rank) {
  return dim < 0 ? dim + static_cast<int64_t>(rank) : dim;
}

/// Row-major permutation of a constant's bytes: output dim d is input dim perm[d].
std::vector<uint8_t> permute_bytes(const std::vector<uint8_t>& data,
                                   const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& perm, size_t elem_size);
std::vector<int64_t> permute_shape(const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& perm);

}  // namespace ember::compiler
