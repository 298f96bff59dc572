//===- serialize.h - Write a compiled graph as a program file -------------===//

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/compiler/diagnostics.h"
#include "ember/compiler/ir.h"

namespace ember::compiler {

/// The program file for a graph that has been through every pass (kernels selected, memory
/// planned). Only tensors that kernels or the model's I/O touch are written; each constant is
/// 16-byte aligned in the file. Returns an empty vector with diagnostics on failure.
std::vector<uint8_t> serialize(const Graph& graph, const std::string& target, Diagnostics& diag);

}  // namespace ember::compiler
