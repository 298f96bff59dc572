//===- ethos_u_test.cc - The Ethos-U kernel's container checks and its call ===//
//
// Containers laid out as Vela 5.2's raw output lays them out ("COP1", the configuration, NOPs
// up to a 16-byte boundary, the command stream), then each kind of damage the load check must
// refuse. This test binary defines ember_npu_invoke, which records what the kernel passes.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ember/kernels/kernels.h"
#include "ember/kernels/portable/ethos_u.h"
#include "ember/kernels/portable/test_util.h"
#include "ember/runtime/ember.h"

namespace {

ember_npu_job g_job;  // its arrays live on the kernel's stack: copied below
uint64_t g_base[3];
size_t g_sizes[3];
int32_t g_offsets[2];
std::vector<uint8_t> g_scratch_seen;
ember_status g_result = EMBER_STATUS_Ok;

}  // namespace

extern "C" ember_status ember_npu_invoke(const ember_npu_job* job) {
  g_job = *job;
  for (int i = 0; i < 3 && i < job->num_base_addrs; ++i) g_base[i] = job->base_addrs[i], g_sizes[i] = job->base_addr_sizes[i];
  g_offsets[0] = job->input_offsets[0], g_offsets[1] = job->output_offsets[0];
  const uint8_t* scratch = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(job->base_addrs[1]));
  g_scratch_seen.assign(scratch, scratch + job->base_addr_sizes[1]);
  return g_result;
}

namespace ember::kernels {
namespace {

using namespace testing;

constexpr uint32_t kU55_128 = 0x00001807;  // Vela's configuration word for ethos-u55-128
constexpr uint32_t kU85_256 = 0x20000118;

// "COP1", the configuration, three NOPs, the stream header and `stream_words` words.
std::vector<uint32_t> container(uint32_t config, uint32_t stream_words) {
  std::vector<uint32_t> w = {0x31504F43, 0x00100001, config, 0x10066001, 5, 5, 5, 2u | stream_words << 16};
  for (uint32_t i = 0; i < stream_words; ++i) w.push_back(0x4000 + i);
  return w;
}

struct Op {
  alignas(16) uint32_t cmd[64];
  alignas(16) int8_t weights[32];
  alignas(16) int8_t scratch[64];
  int8_t input[8];
  OpBuilder b;
  Op(const std::vector<uint32_t>& words, int32_t code, std::vector<int32_t> offsets) {
    std::memcpy(cmd, words.data(), 4 * words.size());
    for (int i = 0; i < 8; ++i) input[i] = static_cast<int8_t>(10 + i);
    b.in(cmd, DType::Int8, {static_cast<int32_t>(4 * words.size())}).in(weights, DType::Int8, {32}).absent();
    b.in(input, DType::Int8, {1, 8});
    b.ins.back().constant = false;
    b.out(scratch, DType::Int8, {64});
    b.ints = {code};
    b.ints.insert(b.ints.end(), offsets.begin(), offsets.end());
  }
  Status check() const { return check_ethos_u(b.without_data().ctx()); }
};

const int32_t kU55 = npu_code(0, 7), kU85 = npu_code(2, 8);

TEST(EthosU, AcceptsVelasContainer) {
  EXPECT_EQ(Op(container(kU55_128, 4), kU55, {16, 32}).check(), Status::Ok);
  EXPECT_EQ(Op(container(kU85_256, 9), kU85, {0, 0}).check(), Status::Ok);
}

TEST(EthosU, RefusesMalformedContainers) {
  auto words = container(kU55_128, 4);
  auto damaged = [&](auto change) {
    auto w = words;
    change(w);
    return Op(w, kU55, {16, 32}).check();
  };
  EXPECT_EQ(damaged([](auto& w) { w[0] = 0x32504F43; }), Status::NpuPayload);           // "COP2"
  EXPECT_EQ(damaged([](auto& w) { w.pop_back(); }), Status::NpuPayload);                 // stream past the end
  EXPECT_EQ(damaged([](auto& w) { w[7] = 2u | 0x10000u << 8; }), Status::NpuPayload);   // a length past the end (high bits)
  EXPECT_EQ(damaged([](auto& w) { w.erase(w.begin() + 4); }), Status::NpuPayload);      // stream not 16-byte aligned
  EXPECT_EQ(damaged([](auto& w) { w[4] = 3; }), Status::NpuPayload);                    // a register dump action
  EXPECT_EQ(damaged([](auto& w) { w[1] = 5; }), Status::NpuPayload);                    // no configuration
  EXPECT_EQ(damaged([](auto& w) { w.resize(7); }), Status::NpuPayload);                 // no command stream
  EXPECT_EQ(damaged([](auto& w) { w.push_back(w[7]); }), Status::NpuPayload);           // a second stream
  EXPECT_EQ(Op(container(kU85_256, 4), kU55, {16, 32}).check(), Status::NpuConfig);     // compiled for a U85
  Op misaligned(words, kU55, {16, 32});
  misaligned.b.ins[0].dims[0] -= 2;  // not whole words
  EXPECT_EQ(misaligned.check(), Status::NpuPayload);
}

TEST(EthosU, RefusesOffsetsOutsideTheScratch) {
  const auto words = container(kU55_128, 4);
  EXPECT_EQ(Op(words, kU55, {56, 63}).check(), Status::Ok);
  EXPECT_EQ(Op(words, kU55, {57, 0}).check(), Status::NpuPayload);  // the input's 8 bytes pass the end
  EXPECT_EQ(Op(words, kU55, {0, 64}).check(), Status::NpuPayload);  // an output at the end
  EXPECT_EQ(Op(words, kU55, {-1, 0}).check(), Status::NpuPayload);
  EXPECT_EQ(Op(words, kU55, {0}).check(), Status::BadOpSignature);  // no output offset
}

TEST(EthosU, MovesAnInputThatIsElsewhereAndPassesTheRegions) {
  Op op(container(kU55_128, 4), kU55, {16, 32});
  ASSERT_EQ(op.check(), Status::Ok);
  g_result = EMBER_STATUS_Ok;
  EXPECT_EQ(run_ethos_u(op.b.ctx()), Status::Ok);
  EXPECT_EQ(g_job.command_stream, op.cmd);
  EXPECT_EQ(g_job.command_stream_size, 4u * container(kU55_128, 4).size());
  ASSERT_EQ(g_job.num_base_addrs, 3);
  EXPECT_EQ(g_base[0], reinterpret_cast<uintptr_t>(op.weights));
  EXPECT_EQ(g_base[1], reinterpret_cast<uintptr_t>(op.scratch));
  EXPECT_EQ(g_sizes[0], 32u);
  EXPECT_EQ(g_sizes[1], 64u);
  EXPECT_EQ(g_sizes[2], 0u);
  EXPECT_EQ(g_job.tosa, nullptr);
  ASSERT_EQ(g_job.num_inputs, 1u);
  ASSERT_EQ(g_job.num_outputs, 1u);
  EXPECT_EQ(g_offsets[0], 16);
  EXPECT_EQ(g_offsets[1], 32);
  EXPECT_EQ(std::memcmp(g_scratch_seen.data() + 16, op.input, 8), 0);  // in place before the call

  g_result = EMBER_STATUS_Internal;  // any failure of the driver is the NPU's
  EXPECT_EQ(run_ethos_u(op.b.ctx()), Status::NpuFailed);
  g_result = EMBER_STATUS_NpuUnavailable;
  EXPECT_EQ(run_ethos_u(op.b.ctx()), Status::NpuUnavailable);
  op.b.outs[0].data = op.scratch + 4;
  EXPECT_EQ(run_ethos_u(op.b.ctx()), Status::Misaligned);
}

}  // namespace
}  // namespace ember::kernels
