//===- host_runtime.h - The device runtime, hosted for Python -------------===//
//
// Owns a 16-byte aligned copy of a program file and one arena per region, loads the program
// with every portable kernel, and runs it. This is exactly the code that runs on a device; only
// the memory comes from the host's heap, and the conv and linear checks also recompute every
// folded bias from the weights, which devices do not (docs/runtime.md).

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/executor.h"
#include "runtime/program.h"

namespace ember::host {

/// The runtime's most recent log message on this thread (which check failed, and where).
std::string last_runtime_message();

class HostRuntime {
 public:
  /// Loads `file`; on failure status() says why and nothing else may be called.
  explicit HostRuntime(const std::string& file);

  rt::Status status() const { return status_; }
  const rt::Program& program() const { return program_; }

  /// Runs one inference. `inputs[i]` holds input i's bytes; returns each output's bytes.
  rt::Status run(const std::vector<std::string>& inputs, std::vector<std::string>* outputs);

  /// Binds the program to regions of the given sizes instead of the stated ones (tests of
  /// ArenaTooSmall).
  rt::Status rebind(const std::vector<size_t>& region_bytes);

  /// The executor itself, for tests of its index checks (run_op, set_input out of range).
  rt::Executor& executor() { return executor_; }

 private:
  std::vector<uint64_t> file_;                // uint64_t storage keeps the copy aligned
  std::vector<std::vector<uint64_t>> arenas_;
  rt::Program program_;
  rt::Executor executor_;
  rt::Status status_ = rt::Status::Ok;
};

}  // namespace ember::host
