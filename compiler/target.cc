//===- target.cc - The target table, read from targets/targets.def --------===//

#include "compiler/target.h"

#include <stdexcept>

namespace ember::compiler {
namespace {

struct TargetRow { const char* name; Tier tier; const char* mcpu; const char* board; };
struct RegionRow { const char* target; const char* region; uint64_t capacity; };

#define EMBER_TARGET(name, tier, mcpu, board) {name, Tier::tier, mcpu, board},
#define EMBER_REGION(target, region, capacity)
#define EMBER_FIRMWARE(target, board_dir, cpu_flags)
constexpr TargetRow kTargets[] = {
#include "targets/targets.def"
};
#undef EMBER_TARGET
#undef EMBER_REGION
#undef EMBER_FIRMWARE

#define EMBER_TARGET(name, tier, mcpu, board)
#define EMBER_REGION(target, region, capacity) {target, region, capacity},
#define EMBER_FIRMWARE(target, board_dir, cpu_flags)
constexpr RegionRow kRegions[] = {
#include "targets/targets.def"
};
#undef EMBER_TARGET
#undef EMBER_REGION
#undef EMBER_FIRMWARE

}  // namespace

const char* tier_name(Tier tier) {
  switch (tier) {
    case Tier::Portable: return "portable";
    case Tier::Scalar: return "scalar";
    case Tier::Dsp: return "dsp";
    case Tier::Mve: return "mve";
  }
  return "?";
}

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  for (const auto& row : kTargets) names.push_back(row.name);
  return names;
}

Target find_target(const std::string& name) {
  for (const auto& row : kTargets) {
    if (name != row.name) continue;
    Target target{row.name, row.tier, row.mcpu, row.board, {}};
    for (const auto& region : kRegions)
      if (name == region.target) target.regions.push_back({region.region, region.capacity});
    return target;
  }
  std::string known;
  for (const auto& n : target_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown target '" + name + "' (known: " + known + ")");
}

}  // namespace ember::compiler
