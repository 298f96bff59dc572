//===- diagnostics.h - Compile errors tied to the user's source -----------===//
//
// A pass that cannot handle an op records a Diagnostic naming the op and where it came from in
// the user's model (the aten op and file:line the front end recorded), then fails. The pipeline
// stops after the first failing pass and reports every cause once, with all its places.

#pragma once

#include <algorithm>
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

  /// One line per distinct cause (pass and message), in order of first occurrence, with its
  /// count and every place it occurs: "error [pass]: <message> (3 places) at <a>; <b>; <c>".
  std::string str() const {
    std::vector<std::pair<const Diagnostic*, std::vector<std::string>>> causes;
    for (const auto& d : list_) {
      auto it = std::find_if(causes.begin(), causes.end(), [&](const auto& c) {
        return c.first->pass == d.pass && c.first->message == d.message;
      });
      if (it == causes.end()) it = causes.insert(causes.end(), {&d, {}});
      if (!d.source.empty() && std::find(it->second.begin(), it->second.end(), d.source) == it->second.end())
        it->second.push_back(d.source);
    }
    std::string out;
    for (const auto& [d, places] : causes) {
      out += "error [" + d->pass + "]: " + d->message;
      if (places.size() > 1) out += " (" + std::to_string(places.size()) + " places)";
      for (size_t i = 0; i < places.size(); ++i) out += (i ? "; " : " at ") + places[i];
      out += "\n";
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
