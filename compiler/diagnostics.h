//===- diagnostics.h - Compile errors tied to the user's source -----------===//
//
// A pass that cannot handle an op records a Diagnostic naming the op and where it came from in
// the user's model (the aten op and file:line the front end recorded), then fails. The pipeline
// stops after the first failing pass and reports every cause once, with all its places.

#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "ember/compiler/ir.h"

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
  /// count and every place it occurs: "error [pass]: <message> (3 times) at <a>; <b>".
  std::string str() const {
    struct Cause {
      const Diagnostic* first;
      size_t count;
      std::vector<std::string> places;
    };
    std::vector<Cause> causes;
    for (const auto& d : list_) {
      auto it = std::find_if(causes.begin(), causes.end(), [&](const Cause& c) {
        return c.first->pass == d.pass && c.first->message == d.message;
      });
      if (it == causes.end()) it = causes.insert(causes.end(), Cause{&d, 0, {}});
      ++it->count;
      if (!d.source.empty() && std::find(it->places.begin(), it->places.end(), d.source) == it->places.end())
        it->places.push_back(d.source);
    }
    std::string out;
    for (const Cause& c : causes) {
      out += "error [" + c.first->pass + "]: " + c.first->message;
      if (c.count > 1) out += " (" + std::to_string(c.count) + " times)";
      for (size_t i = 0; i < c.places.size(); ++i) out += (i ? "; " : " at ") + c.places[i];
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
