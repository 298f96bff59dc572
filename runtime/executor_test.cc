//===- executor_test.cc - Executor runs verified programs, rejects bad calls -===//
//
// Runs the valid program of test_util.h end to end, then each caller error with its own
// Status, and the arena stress test: every region size below the plan fails cleanly.

#include "ember/runtime/executor.h"

#include <gtest/gtest.h>
#include <stdarg.h>
#include <stdio.h>

#include <set>
#include <string>

#include "ember/runtime/log.h"
#include "ember/runtime/test_util.h"

namespace {
std::string g_last_log;
}  // namespace

// Overrides the runtime's weak default, as a board port would.
extern "C" void ember_platform_log(const char* fmt, va_list args) {
  char buf[256];
  vsnprintf(buf, sizeof(buf), fmt, args);
  g_last_log = buf;
}

namespace ember::rt {
namespace {

using test::build;
using test::FakeKernels;
using test::File;
using test::valid_spec;

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(Program::load(file_.span(), kernels_.table(), &program_), Status::Ok);
  }
  FakeKernels kernels_;
  File file_ = build(valid_spec());
  Program program_;
  alignas(16) uint8_t arena_[64] = {};
};

TEST_F(ExecutorTest, ValidProgramRuns) {
  Executor exec;
  Span<uint8_t> regions[] = {Span<uint8_t>(arena_, 48)};
  ASSERT_EQ(exec.init(program_, regions), Status::Ok);
  const int8_t x[4] = {1, 2, 3, -4};
  ASSERT_EQ(exec.set_input(0, x, sizeof(x)), Status::Ok);
  ASSERT_EQ(exec.run(), Status::Ok);
  TensorView out;
  ASSERT_EQ(exec.output(0, &out), Status::Ok);
  ASSERT_EQ(out.data, arena_ + 32);  // zero-copy: the planned offset in the region
  ASSERT_EQ(out.num_elements(), 4u);
  const int8_t expected[4] = {12, 23, 34, 37};  // x + 1 + {10, 20, 30, 40}
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.as<int8_t>()[i], expected[i]) << i;
}

TEST_F(ExecutorTest, InputViewIsZeroCopyAndStepwiseRunMatches) {
  Executor exec;
  Span<uint8_t> regions[] = {Span<uint8_t>(arena_)};
  ASSERT_EQ(exec.init(program_, regions), Status::Ok);
  TensorView in;
  ASSERT_EQ(exec.input(0, &in), Status::Ok);
  EXPECT_EQ(in.data, arena_);
  for (int i = 0; i < 4; ++i) in.as<int8_t>()[i] = static_cast<int8_t>(i);
  for (size_t op = 0; op < exec.num_ops(); ++op) ASSERT_EQ(exec.run_op(op), Status::Ok);
  EXPECT_EQ(exec.run_op(exec.num_ops()), Status::RuntimeIndex);
  TensorView out;
  ASSERT_EQ(exec.output(0, &out), Status::Ok);
  EXPECT_EQ(out.as<int8_t>()[3], 3 + 1 + 40);
}

TEST_F(ExecutorTest, ArenaTooSmall) {
  Executor exec;
  Span<uint8_t> small[] = {Span<uint8_t>(arena_, 47)};
  EXPECT_EQ(exec.init(program_, small), Status::ArenaTooSmall);
#ifndef EMBER_NO_LOG
  EXPECT_NE(g_last_log.find("needs 48"), std::string::npos) << g_last_log;  // bytes needed
#endif
  EXPECT_EQ(exec.run(), Status::InvalidState);  // a failed init leaves it unbound
  EXPECT_EQ(exec.init(program_, Span<const Span<uint8_t>>()), Status::ArenaTooSmall);
}

TEST_F(ExecutorTest, ArenaStressEverySizeBelowThePlanFails) {
  Executor exec;
  for (size_t n = 0; n < program_.region_size(0); ++n) {
    Span<uint8_t> regions[] = {Span<uint8_t>(n ? arena_ : nullptr, n)};
    EXPECT_EQ(exec.init(program_, regions), Status::ArenaTooSmall) << n;
  }
  Span<uint8_t> exact[] = {Span<uint8_t>(arena_, program_.region_size(0))};
  EXPECT_EQ(exec.init(program_, exact), Status::Ok);
}

TEST_F(ExecutorTest, TooManyRegions) {
  Executor exec;
  Span<uint8_t> regions[] = {Span<uint8_t>(arena_, 48), Span<uint8_t>(arena_ + 48, 16)};
  EXPECT_EQ(exec.init(program_, regions), Status::ShapeMismatch);
}

TEST_F(ExecutorTest, MisalignedRegion) {
  Executor exec;
  Span<uint8_t> regions[] = {Span<uint8_t>(arena_ + 4, 60)};
  EXPECT_EQ(exec.init(program_, regions), Status::Misaligned);
}

TEST_F(ExecutorTest, SetInputWrongSizeOrIndex) {
  Executor exec;
  Span<uint8_t> regions[] = {Span<uint8_t>(arena_)};
  ASSERT_EQ(exec.init(program_, regions), Status::Ok);
  const int8_t x[5] = {};
  EXPECT_EQ(exec.set_input(0, x, 5), Status::ShapeMismatch);
  EXPECT_EQ(exec.set_input(0, x, 3), Status::ShapeMismatch);
  EXPECT_EQ(exec.set_input(0, nullptr, 4), Status::ShapeMismatch);
  EXPECT_EQ(exec.set_input(1, x, 4), Status::RuntimeIndex);
  TensorView v;
  EXPECT_EQ(exec.input(1, &v), Status::RuntimeIndex);
  EXPECT_EQ(exec.output(1, &v), Status::RuntimeIndex);
}

TEST_F(ExecutorTest, CallsBeforeInitAreInvalidState) {
  Executor exec;
  const int8_t x[4] = {};
  TensorView v;
  EXPECT_EQ(exec.run(), Status::InvalidState);
  EXPECT_EQ(exec.run_op(0), Status::InvalidState);
  EXPECT_EQ(exec.set_input(0, x, 4), Status::InvalidState);
  EXPECT_EQ(exec.input(0, &v), Status::InvalidState);
  EXPECT_EQ(exec.output(0, &v), Status::InvalidState);
  Program empty;
  EXPECT_EQ(exec.init(empty, Span<const Span<uint8_t>>()), Status::InvalidState);
}

TEST_F(ExecutorTest, KernelRunErrorPropagates) {
  FakeKernels failing;
  failing.entries[static_cast<size_t>(KernelId::add_f32)].run =
      [](const OpContext&) { return Status::Internal; };
  Program p;
  ASSERT_EQ(Program::load(file_.span(), failing.table(), &p), Status::Ok);
  Executor exec;
  Span<uint8_t> regions[] = {Span<uint8_t>(arena_)};
  ASSERT_EQ(exec.init(p, regions), Status::Ok);
  EXPECT_EQ(exec.run(), Status::Internal);
}

// An op with an empty output is not run, however large its other axes (a fuzzed file kept a
// broadcast kernel busy for minutes on [1610629121, 16, 0, 6]).
int g_runs = 0;
Status run_counted(const OpContext&) {
  ++g_runs;
  return Status::Ok;
}

TEST(ExecutorEmpty, OpWithAnEmptyOutputIsNotRun) {
  test::ProgramSpec s = valid_spec();
  s.tensors[0].shape = s.tensors[1].shape = {1 << 30, 0};
  s.ops.resize(1);
  s.outputs = {1};
  s.kernels = {static_cast<uint16_t>(KernelId::copy)};
  FakeKernels kernels;
  kernels.entries[static_cast<size_t>(KernelId::copy)].run = run_counted;
  const File file = build(s);
  Program program;
  ASSERT_EQ(Program::load(file.span(), kernels.table(), &program), Status::Ok);
  alignas(16) uint8_t arena[48] = {};
  Span<uint8_t> regions[] = {Span<uint8_t>(arena, 48)};
  Executor exec;
  ASSERT_EQ(exec.init(program, regions), Status::Ok);
  g_runs = 0;
  ASSERT_EQ(exec.run(), Status::Ok);
  EXPECT_EQ(g_runs, 0);
}

TEST_F(ExecutorTest, RegionOverTheProgramFileRejected) {
  // The caller's contract: a region over the file would let set_input overwrite the flatbuffer.
  Executor exec;
  Span<uint8_t> regions[] = {Span<uint8_t>(file_.data(), 48)};
  EXPECT_EQ(exec.init(program_, regions), Status::OverlappingMemory);
  EXPECT_EQ(exec.run(), Status::InvalidState);
  regions[0] = Span<uint8_t>(arena_, 48);
  EXPECT_EQ(exec.init(program_, regions), Status::Ok);
}

TEST(ExecutorRegions, OverlappingRegionsRejected) {
  test::ProgramSpec s = valid_spec();
  s.tensors[2].region = 1;  // the output alone in a second region
  s.tensors[2].offset = 0;
  s.region_sizes = {32, 16};
  FakeKernels kernels;
  File file = build(s);
  Program program;
  ASSERT_EQ(Program::load(file.span(), kernels.table(), &program), Status::Ok);
  alignas(16) static uint8_t arena[64];
  Executor exec;
  Span<uint8_t> regions[] = {Span<uint8_t>(arena, 32), Span<uint8_t>(arena + 16, 16)};
  EXPECT_EQ(exec.init(program, regions), Status::OverlappingMemory);
  EXPECT_NE(g_last_log.find("regions 0 and 1 overlap"), std::string::npos) << g_last_log;
  regions[1] = Span<uint8_t>(arena + 32, 16);  // adjacent, apart
  EXPECT_EQ(exec.init(program, regions), Status::Ok);
  regions[0] = Span<uint8_t>(arena + 32, 32);  // the second region inside the first
  regions[1] = Span<uint8_t>(arena + 48, 16);
  EXPECT_EQ(exec.init(program, regions), Status::OverlappingMemory);
}

TEST(StatusTest, EveryCodeHasItsOwnName) {
  const Status codes[] = {
#define EMBER_STATUS(name, value, id, message) Status::name,
#include "ember/runtime/status.def"
#undef EMBER_STATUS
  };
  std::set<std::string> names;
  for (Status s : codes) {
    ASSERT_NE(to_string(s), nullptr);
    EXPECT_STRNE(to_string(s), "unknown status");
    names.insert(to_string(s));
  }
  EXPECT_EQ(names.size(), sizeof(codes) / sizeof(codes[0]));
  EXPECT_STREQ(to_string(static_cast<Status>(99)), "unknown status");
}

}  // namespace
}  // namespace ember::rt
