//===- host_runtime.h - The device runtime, hosted for Python -------------===//
//
// Owns a 16-byte aligned copy of a program file and one arena per region, loads the program
// with the checks a device of the program's tier runs, and runs it. This is exactly the code
// that runs on a device; only the memory comes from the host's heap, and the conv and linear
// checks can also recompute every folded bias from the weights, which devices do not
// (docs/runtime.md).

#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "ember/kernels/arm/tier.h"
#include "ember/runtime/executor.h"
#include "ember/runtime/program.h"

namespace ember::host {

/// The runtime's most recent log message on this thread (which check failed, and where).
std::string last_runtime_message();

/// The target a program file names ("" when it names none or its structure is unsound).
std::string program_target(const std::string& file);

class HostRuntime {
 public:
  /// Loads `file` with the kernel checks of a device of `tier` (Portable: the portable kernels,
  /// as a host application links them; Scalar, Dsp, Mve: the optimized kernels' checks with
  /// that tier's rules), and, with `fold_checks`, the host tools' recomputation of each folded
  /// bias. On failure status() says why and nothing else may be called. Allocates no arena:
  /// the regions are allocated at the first run, so a verdict never costs the program's RAM.
  HostRuntime(const std::string& file, kernels::Tier tier, bool fold_checks);
  HostRuntime(const HostRuntime&) = delete;  // the Program points into file_
  HostRuntime& operator=(const HostRuntime&) = delete;

  rt::Status status() const { return status_; }
  const rt::Program& program() const { return program_; }

  /// Runs one inference. `inputs[i]` holds input i's bytes; returns each output's bytes.
  rt::Status run(const std::vector<std::string>& inputs, std::vector<std::string>* outputs);

  /// Binds the program to zeroed regions of the given sizes (the program's own sizes at the
  /// first run; other sizes for tests of ArenaTooSmall).
  rt::Status rebind(const std::vector<size_t>& region_bytes);
  /// Binds the program's own region sizes, once (run does it first).
  rt::Status bind();

  /// The executor itself, for tests of its index checks (run_op, set_input out of range).
  rt::Executor& executor() { return executor_; }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::vector<uint64_t> file_;  // uint64_t storage keeps the copy aligned
  std::vector<std::unique_ptr<uint8_t, Free>> arenas_;
  rt::KernelTable kernels_{};
  rt::Program program_;
  rt::Executor executor_;
  rt::Status status_ = rt::Status::Ok;
  bool bound_ = false;
};

}  // namespace ember::host
