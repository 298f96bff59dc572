//===- pipeline.h - From front-end graph to program file ------------------===//

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/compiler/diagnostics.h"
#include "ember/compiler/ir.h"
#include "ember/compiler/target.h"

namespace ember::compiler {

struct CompileOptions {
  std::vector<std::string> print_ir_after;  // pass names, or "all"
  std::string stop_after;                   // a pass name: return the graph after it, no program
};

struct CompileResult {
  bool ok = false;
  std::vector<uint8_t> program;
  std::string diagnostics;  // every error, with the user's source lines
  std::string ir_dumps;     // the IR after the passes named in print_ir_after
  Graph graph;              // with stop_after: the graph after that pass
};

/// Runs every pass in order on `graph` (consumed), verifying the graph after each one.
CompileResult compile(Graph graph, const Target& target, const CompileOptions& options);

/// A readable listing of the graph, one op per line, for --print-ir-after.
std::string print_ir(const Graph& graph);

/// Structural checks every pass must preserve: indices in range, each tensor written once,
/// every read after the write. Records diagnostics and returns false when broken.
bool verify_graph(const Graph& graph, Diagnostics& diag);

}  // namespace ember::compiler
