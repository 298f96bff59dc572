//===- passes.h - The compiler passes -------------------------------------===//
//
// Each pass rewrites the graph in place and returns Failure with diagnostics when it cannot.
// No pass keeps state between runs. Their order is fixed in compiler/pipeline.cc.

#pragma once

#include "ember/compiler/diagnostics.h"
#include "ember/compiler/ir.h"
#include "ember/compiler/target.h"

namespace ember::compiler {

#define EMBER_PASS(name, summary) Status name(Graph& graph, const Target& target, Diagnostics& diag);
#include "ember/compiler/passes/passes.def"
#undef EMBER_PASS

}  // namespace ember::compiler
