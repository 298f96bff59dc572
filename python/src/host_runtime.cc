//===- host_runtime.cc - The device runtime, hosted for Python ------------===//

#include "host_runtime.h"

#include <array>
#include <cstdio>
#include <cstring>

#include "ember/kernels/arm/depthwise_conv2d_s8.h"
#include "ember/kernels/arm/kernels.h"
#include "ember/kernels/kernel_table.h"
#include "ember/runtime/op_signatures.h"
#include "ember/runtime/program_structure.h"
#include "ember/schema/program_generated.h"

namespace {
thread_local char g_last_message[512];

using ember::kernels::Tier;
using ember::rt::KernelEntry;
using ember::rt::KernelId;

// The checks a device of `tier` runs, with the portable kernels' run functions (the numerics'
// definition; every optimized check admits only what its kernel's portable fallback runs
// safely). The optimized checks are the host build's (kernels/arm at the scalar tier), which
// are every tier's but for the depthwise filter, which the Helium kernel takes only without
// -128. With `fold`, the conv and linear checks also recompute each folded bias (input zero
// point times the weight sums) and reject a mismatch with BadQuantization: devices trust it
// (it only decides the numbers; docs/runtime.md), so the host tools are where a wrong one is
// caught.
std::vector<KernelEntry> check_table(Tier tier, bool fold) {
  namespace k = ember::kernels;
  std::vector<KernelEntry> e(k::kKernelTable, k::kKernelTable + k::kNumKernels);
  if (tier == Tier::Portable) return e;
  const ember::rt::KernelTable arm = k::arm::arm_kernel_table();
  for (size_t i = 0; i < e.size(); ++i) e[i].check = arm.entries[i].check;
  auto set = [&](KernelId id, ember::rt::KernelFn check) { e.at(static_cast<size_t>(id)).check = check; };
  if (tier == Tier::Mve)
    set(KernelId::depthwise_conv2d_s8, fold ? &k::arm::check_depthwise_conv2d_s8_with_fold_as<Tier::Mve>
                                            : &k::arm::check_depthwise_conv2d_s8_as<Tier::Mve>);
  else if (fold)
    set(KernelId::depthwise_conv2d_s8, &k::arm::check_depthwise_conv2d_s8_with_fold);
  if (fold) {
    set(KernelId::conv2d_s8, &k::arm::check_conv2d_s8_with_fold);
    set(KernelId::fully_connected_s8, &k::arm::check_fully_connected_s8_with_fold);
  }
  return e;
}

// One table per (tier, fold), built once; the Program keeps a pointer into it.
const ember::rt::KernelTable& kernel_table(Tier tier, bool fold) {
  static const auto tables = [] {
    std::array<std::vector<KernelEntry>, 8> t;
    for (int i = 0; i < 8; ++i) t[i] = check_table(static_cast<Tier>(i / 2), i % 2 != 0);
    return t;
  }();
  static const auto views = [] {
    std::array<ember::rt::KernelTable, 8> v;
    for (int i = 0; i < 8; ++i) v[i] = {tables[i].data(), tables[i].size()};
    return v;
  }();
  return views[static_cast<int>(tier) * 2 + (fold ? 1 : 0)];
}

// 16-byte aligned storage of `bytes` bytes (at least one word, so the pointer is never null).
uint8_t* aligned_start(std::vector<uint64_t>& storage, size_t bytes) {
  storage.resize(bytes / 8 + 3);
  uint8_t* base = reinterpret_cast<uint8_t*>(storage.data());
  const size_t skew = reinterpret_cast<uintptr_t>(base) % 16;
  return base + (skew ? 16 - skew : 0);
}
}  // namespace

// The runtime's log hook, kept so Python errors can say which check failed.
extern "C" void ember_platform_log(const char* fmt, va_list args) {
  std::vsnprintf(g_last_message, sizeof g_last_message, fmt, args);
}

namespace ember::host {

// The message may quote names from the file, whose bytes are untrusted: a byte outside
// printable ASCII (and the backslash) is shown as \xNN, so Python always gets valid UTF-8 and
// a terminal never gets control codes.
std::string last_runtime_message() {
  std::string out;
  for (const char* p = g_last_message; *p != '\0'; ++p) {
    const unsigned char b = static_cast<unsigned char>(*p);
    if (b >= 0x20 && b < 0x7f && b != '\\') {
      out += static_cast<char>(b);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", b);
      out += hex;
    }
  }
  return out;
}

// Read after the runtime's own structure check, so every offset on the way is inside the file.
std::string program_target(const std::string& file) {
  std::vector<uint64_t> storage;
  uint8_t* start = aligned_start(storage, file.size());
  std::memcpy(start, file.data(), file.size());
  const rt::Span<const uint8_t> span(start, file.size());
  if (file.size() < 12 || !rt::internal::has_program_identifier(start) || !rt::internal::check_structure(span))
    return "";
  const flatbuffers::String* target = schema::GetProgram(start)->target();
  return target == nullptr ? "" : target->str();
}

HostRuntime::HostRuntime(const std::string& file, kernels::Tier tier, bool fold_checks)
    : kernels_(kernel_table(tier, fold_checks)) {
  uint8_t* start = aligned_start(file_, file.size());
  std::memcpy(start, file.data(), file.size());
  status_ = rt::Program::load({start, file.size()}, kernels_, &program_);
}

rt::Status HostRuntime::rebind(const std::vector<size_t>& region_bytes) {
  bound_ = false;
  arenas_.clear();
  rt::Span<uint8_t> spans[rt::kMaxRegions];
  if (region_bytes.size() > rt::kMaxRegions) return rt::Status::ShapeMismatch;
  for (size_t r = 0; r < region_bytes.size(); ++r) {
    // calloc maps large blocks lazily: only the pages a run touches cost memory.
    arenas_.emplace_back(static_cast<uint8_t*>(std::calloc(region_bytes[r] + 16, 1)));
    uint8_t* base = arenas_.back().get();
    if (base == nullptr) {
      std::snprintf(g_last_message, sizeof g_last_message, "host: cannot allocate %zu bytes for region %zu",
                    region_bytes[r], r);
      return rt::Status::ArenaTooSmall;
    }
    const size_t skew = reinterpret_cast<uintptr_t>(base) % 16;
    spans[r] = {base + (skew ? 16 - skew : 0), region_bytes[r]};
  }
  const rt::Status status = executor_.init(program_, {spans, region_bytes.size()});
  bound_ = status == rt::Status::Ok;
  return status;
}

rt::Status HostRuntime::bind() {
  if (bound_) return rt::Status::Ok;
  std::vector<size_t> sizes;
  for (size_t r = 0; r < program_.num_regions(); ++r) sizes.push_back(program_.region_size(r));
  return rebind(sizes);
}

rt::Status HostRuntime::run(const std::vector<std::string>& inputs, std::vector<std::string>* outputs) {
  EMBER_RETURN_IF_ERROR(bind());
  if (inputs.size() != program_.num_inputs()) return rt::Status::RuntimeIndex;
  for (size_t i = 0; i < inputs.size(); ++i)
    EMBER_RETURN_IF_ERROR(executor_.set_input(i, inputs[i].data(), inputs[i].size()));
  EMBER_RETURN_IF_ERROR(executor_.run());
  outputs->clear();
  for (size_t i = 0; i < program_.num_outputs(); ++i) {
    rt::TensorView view;
    EMBER_RETURN_IF_ERROR(executor_.output(i, &view));
    rt::TensorInfo info;
    EMBER_RETURN_IF_ERROR(program_.output_info(i, &info));
    outputs->emplace_back(static_cast<const char*>(view.data), info.bytes);
  }
  return rt::Status::Ok;
}

}  // namespace ember::host
