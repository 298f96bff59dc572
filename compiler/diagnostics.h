//===- diagnostics.h - Compile errors tied to the user's source -----------===//
//
// A pass that cannot handle an op records a Diagnostic naming the op and where it came from in
// the user's model (the aten op and file:line the front end recorded), then fails. The pipeline
// stops after the first failing pass and reports every diagnostic, not just the first.

#pragma once

#include <string>
#include <vector>

#include "compiler/ir.h"

namespace ember::compiler {

struct Diagnostic {
  std::string pass;
  std::string message;
  std::string source;
};

class Diagnostics {
 public:
  void set_pass(std::string pass) { pass_ = std::move(pass); }
  void error(const Op& op, const std::string& message) { list_.push_back({pass_, message, op.source}); }
  void error(const std::string& message) { list_.push_back({pass_, message, ""}); }
  bool empty() const { return list_.empty(); }
  const std::vector<Diagnostic>& list() const { return list_; }

  /// All diagnostics, one per line: "error: <message>\n  at <source>".
  std::string str() const {
    std::string out;
    for (const auto& d : list_) {
      out += "error [" + d.pass + "]: " + d.message + "\n";
      if (!d.source.empty()) out += "  at " + d.source + "\n";
    }
    return out;
  }

 private:
  std::string pass_;
  std::vector<Diagnostic> list_;
};

/// What a pass returns; on Failure its Diagnostics say why.
enum class Status { Success, Failure };

}  // namespace ember::compiler
