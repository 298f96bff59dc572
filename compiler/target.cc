//===- target.cc - The target table, read from targets/targets.def --------===//

#include "ember/compiler/target.h"

#include <cctype>
#include <stdexcept>

namespace ember::compiler {
namespace {

// One pass over the table: every row, tagged with its macro.
enum class Kind { Target, Region, Flash, Firmware, Npu };
struct Row {
  Kind kind;
  const char* target;
  const char* a;  // mcpu, region, board_dir or the NPUs
  const char* b;  // qemu board, cpu_flags or the NPU's region
  uint64_t capacity;
  Tier tier;
};

#define EMBER_TARGET(name, tier, mcpu, board) {Kind::Target, name, mcpu, board, 0, Tier::tier},
#define EMBER_REGION(target, region, capacity) {Kind::Region, target, region, "", capacity, Tier::Portable},
#define EMBER_FLASH(target, region, capacity) {Kind::Flash, target, region, "", capacity, Tier::Portable},
#define EMBER_FIRMWARE(target, board_dir, flags) {Kind::Firmware, target, board_dir, flags, 0, Tier::Portable},
#define EMBER_NPU(target, accelerators, region) {Kind::Npu, target, accelerators, region, 0, Tier::Portable},
constexpr Row kRows[] = {
#include "ember/targets/targets.def"
};
#undef EMBER_TARGET
#undef EMBER_REGION
#undef EMBER_FLASH
#undef EMBER_FIRMWARE
#undef EMBER_NPU

// The words of a space-separated list.
std::vector<std::string> words(const std::string& list) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < list.size();) {
    const size_t end = std::min(list.find(' ', pos), list.size());
    if (end > pos) out.push_back(list.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  for (const Row& row : kRows)
    if (row.kind == Kind::Target) names.push_back(row.target);
  for (const Row& row : kRows)
    if (row.kind == Kind::Npu)
      for (const std::string& npu : words(row.a)) names.push_back(std::string(row.target) + "+" + npu);
  return names;
}

Target find_target(const std::string& name) {
  const size_t plus = name.find('+');
  const std::string cpu = name.substr(0, plus), npu = plus == std::string::npos ? "" : name.substr(plus + 1);
  Target target;
  for (const Row& row : kRows) {
    if (cpu != row.target) continue;
    switch (row.kind) {
      case Kind::Target: target.name = row.target, target.tier = row.tier, target.mcpu = row.a, target.qemu_board = row.b; break;
      case Kind::Region: target.regions.push_back({row.a, row.capacity}); break;
      case Kind::Flash: target.flash = {row.a, row.capacity}; break;
      case Kind::Firmware: target.board_dir = row.a, target.cpu_flags = row.b; break;
      case Kind::Npu:
        for (const std::string& a : words(row.a)) {
          target.npus.push_back({a, row.b});
          if (a == npu) target.npu = target.npus.back();
        }
        break;
    }
  }
  if (!target.name.empty() && npu.empty()) return target;
  if (!target.name.empty() && !target.npu.accelerator.empty()) {
    target.name = name;
    return target;
  }
  std::string known;
  for (const auto& n : target_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown target '" + name + "' (known: " + known + ")");
}

void override_capacities(Target& target, const std::string& spec) {
  std::string known;
  for (const auto& r : target.regions) known += (known.empty() ? "" : ", ") + r.name;
  known += ", " + target.flash.name;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument("memory spec '" + item + "': expected REGION=BYTES, e.g. DTCM=64K");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    size_t digits = 0;
    while (digits < value.size() && std::isdigit(static_cast<unsigned char>(value[digits]))) ++digits;
    std::string unit = value.substr(digits);
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    uint64_t scale = 0;
    if (unit.empty() || unit == "B") scale = 1;
    else if (unit == "K" || unit == "KB" || unit == "KIB") scale = 1024;
    else if (unit == "M" || unit == "MB" || unit == "MIB") scale = 1024 * 1024;
    if (digits == 0 || digits > 12 || scale == 0)
      throw std::invalid_argument("memory spec '" + item + "': bytes must be a number with an optional K or M");
    MemoryRegion* region = name == target.flash.name ? &target.flash : nullptr;
    for (auto& r : target.regions)
      if (r.name == name) region = &r;
    if (!region)
      throw std::invalid_argument("memory spec '" + item + "': " + target.name + " has no region " + name +
                                  " (its regions: " + known + ")");
    region->capacity = std::stoull(value.substr(0, digits)) * scale;
  }
}

PlanMode parse_plan_mode(const std::string& name) {
  if (name == "simple") return PlanMode::Simple;
  if (name == "default") return PlanMode::Default;
  if (name == "smallest") return PlanMode::Smallest;
  throw std::invalid_argument("unknown plan '" + name + "' (known: simple, default, smallest)");
}

const char* plan_mode_name(PlanMode mode) {
  switch (mode) {
    case PlanMode::Simple: return "simple";
    case PlanMode::Default: return "default";
    case PlanMode::Smallest: return "smallest";
  }
  return "?";
}

}  // namespace ember::compiler
