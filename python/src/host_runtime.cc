//===- host_runtime.cc - The device runtime, hosted for Python ------------===//

#include "host_runtime.h"

#include <cstdio>
#include <cstring>

#include "kernels/arm/kernels.h"
#include "kernels/kernel_table.h"
#include "runtime/op_signatures.h"

namespace {
thread_local char g_last_message[512];

// The portable kernels, with the conv and linear checks that also recompute each folded bias
// (input zero point times the weight sums, the optimized kernels' extra constant) and reject a
// mismatch with BadQuantization. Devices trust the folded bias (it only decides the numbers;
// docs/runtime.md), so the host tools are where a wrong one is caught.
const ember::rt::KernelTable& host_kernel_table() {
  using ember::rt::KernelId;
  static const std::vector<ember::rt::KernelEntry> entries = [] {
    namespace k = ember::kernels;
    std::vector<ember::rt::KernelEntry> e(k::kKernelTable, k::kKernelTable + k::kNumKernels);
    e.at(static_cast<size_t>(KernelId::conv2d_s8)).check = &k::arm::check_conv2d_s8_with_fold;
    e.at(static_cast<size_t>(KernelId::depthwise_conv2d_s8)).check =
        &k::arm::check_depthwise_conv2d_s8_with_fold;
    e.at(static_cast<size_t>(KernelId::fully_connected_s8)).check =
        &k::arm::check_fully_connected_s8_with_fold;
    return e;
  }();
  static const ember::rt::KernelTable table{entries.data(), entries.size()};
  return table;
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

HostRuntime::HostRuntime(const std::string& file) {
  file_.resize((file.size() + 7) / 8 + 2);  // 16-byte alignment of the vector's storage
  uint8_t* base = reinterpret_cast<uint8_t*>(file_.data());
  const size_t skew = reinterpret_cast<uintptr_t>(base) % 16;
  uint8_t* start = base + (skew ? 16 - skew : 0);
  std::memcpy(start, file.data(), file.size());
  status_ = rt::Program::load({start, file.size()}, host_kernel_table(), &program_);
  if (status_ != rt::Status::Ok) return;
  std::vector<size_t> sizes;
  for (size_t r = 0; r < program_.num_regions(); ++r) sizes.push_back(program_.region_size(r));
  status_ = rebind(sizes);
}

rt::Status HostRuntime::rebind(const std::vector<size_t>& region_bytes) {
  arenas_.clear();
  rt::Span<uint8_t> spans[rt::kMaxRegions];
  if (region_bytes.size() > rt::kMaxRegions) return rt::Status::ShapeMismatch;
  for (size_t r = 0; r < region_bytes.size(); ++r) {
    arenas_.emplace_back(region_bytes[r] / 8 + 2);
    uint8_t* base = reinterpret_cast<uint8_t*>(arenas_.back().data());
    const size_t skew = reinterpret_cast<uintptr_t>(base) % 16;
    spans[r] = {base + (skew ? 16 - skew : 0), region_bytes[r]};
  }
  return executor_.init(program_, {spans, region_bytes.size()});
}

rt::Status HostRuntime::run(const std::vector<std::string>& inputs, std::vector<std::string>* outputs) {
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
