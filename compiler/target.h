//===- target.h - The CPU a program is compiled for -----------------------===//
//
// A Target fixes the kernel tier (no run-time dispatch), the memory regions the planner may
// fill and the flash region that holds the program file, from targets/targets.def.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/kernels/arm/tier.h"

namespace ember::compiler {

using kernels::Tier;

struct MemoryRegion {
  std::string name;
  uint64_t capacity = 0;
};

/// How hard the memory planner works, and what it may assume (docs/memory.md).
enum class PlanMode {
  Simple,    // every op's inputs and outputs in distinct bytes; ops in the front end's order
  Default,   // + elementwise ops in place, op order chosen for the smallest peak; no extra work
  Smallest,  // + row-streaming ops (conv, depthwise, pools) overlap a dying input, inputs consumed
};

struct MemoryPolicy {
  PlanMode mode = PlanMode::Default;
  /// Total arena bytes over all regions the user can spare; 0 = no budget. A plan above it
  /// escalates to PlanMode::Smallest, and fails to compile if that is still above it.
  uint64_t ram_budget = 0;
};

/// An Ethos-U NPU beside the CPU: Vela's name for its configuration and the data region it
/// reaches (targets/targets.def, EMBER_NPU).
struct Npu {
  std::string accelerator;  // "" = no NPU
  std::string region;
};

struct Target {
  std::string name;  // the CPU's, or "<cpu>+<accelerator>" with an NPU
  Tier tier = Tier::Portable;
  std::string mcpu;
  std::string qemu_board;
  std::vector<MemoryRegion> regions;  // fastest first: the planner fills them in this order
  MemoryRegion flash;                 // where the program file goes, and what it may take
  MemoryPolicy memory;
  std::string board_dir;  // firmware: targets/boards/<board_dir>; "" = no firmware (the host)
  std::string cpu_flags;  // firmware: the GCC flags that select the CPU, FPU and float ABI
  Npu npu;                       // the NPU compiled for, when the name has one
  std::vector<Npu> npus;         // every NPU the table pairs with this CPU
};

/// The target called `name` ("cortex-m55", or with an NPU "cortex-m55+ethos-u55-128"); throws
/// std::invalid_argument listing the known names otherwise.
Target find_target(const std::string& name);
/// Every CPU target, then every CPU+NPU pair.
std::vector<std::string> target_names();

/// Overrides region capacities (the flash region's too) from a spec such as "DTCM=64K,SRAM=256K" (suffixes K and M are
/// KiB and MiB; a plain number is bytes; 0 leaves a region unused). Only the target's own
/// regions can be named, since the firmware's linker script places each one; regions the spec
/// does not name keep the table's capacity. Throws std::invalid_argument on a bad spec.
void override_capacities(Target& target, const std::string& spec);

/// "simple", "default" or "smallest"; throws std::invalid_argument otherwise.
PlanMode parse_plan_mode(const std::string& name);
const char* plan_mode_name(PlanMode mode);

}  // namespace ember::compiler
