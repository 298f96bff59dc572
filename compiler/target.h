//===- target.h - The CPU a program is compiled for -----------------------===//
//
// A Target fixes the kernel tier (no run-time dispatch) and the memory regions the planner may
// fill, from targets/targets.def.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember::compiler {

enum class Tier { Portable, Scalar, Dsp, Mve };

const char* tier_name(Tier tier);

struct MemoryRegion {
  std::string name;
  uint64_t capacity = 0;
};

struct Target {
  std::string name;
  Tier tier = Tier::Portable;
  std::string mcpu;
  std::string qemu_board;
  std::vector<MemoryRegion> regions;  // fastest first
};

/// The target called `name`; throws std::invalid_argument listing the known names otherwise.
Target find_target(const std::string& name);
std::vector<std::string> target_names();

}  // namespace ember::compiler
