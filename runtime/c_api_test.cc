//===- c_api_test.cc - The C API gives the C++ API's results and statuses -===//
//
// Runs test_util.h's valid program through ember.h, from C++ here and from C in
// c_api_test_c.c, and compares each result with the C++ API's on the same file. Then every
// error path: null pointers, storage never constructed, a failed load, too few and too many
// regions, bad indices and sizes, a kernel's failure; and the status names against to_string.

#include "ember/runtime/ember.h"

#include <gtest/gtest.h>
#include <string.h>

#include "ember/runtime/executor.h"
#include "ember/runtime/test_util.h"

namespace {
ember::rt::test::FakeKernels g_fake_kernels;
}  // namespace

// What <name>_kernels.cc does for a program: a KernelTable that C code declares as an
// ember_kernel_table (c_api_test_c.c).
extern const ember::rt::KernelTable ember_c_api_test_kernels = {g_fake_kernels.entries,
                                                                ember::rt::kNumKnownKernels};

extern "C" int ember_c_api_test_run(const uint8_t* file, size_t size, const int8_t input[4],
                                    int8_t output[4]);

namespace ember::rt {
namespace {

using test::build;
using test::FakeKernels;
using test::File;
using test::valid_spec;

constexpr ember_status kOk = EMBER_STATUS_Ok;
constexpr ember_status kInvalidState = EMBER_STATUS_InvalidState;

const ember_kernel_table* c_table(const KernelTable& table) {
  return reinterpret_cast<const ember_kernel_table*>(&table);
}

ember_status c(Status s) { return static_cast<ember_status>(s); }

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ember_program_load(file_.data(), file_.size(), c_table(ember_c_api_test_kernels),
                                 &program_),
              kOk);
    ASSERT_EQ(Program::load(file_.span(), ember_c_api_test_kernels, &cpp_program_), Status::Ok);
  }
  // Runs the C++ API on `input`, in its own arena, and returns the output bytes.
  std::vector<int8_t> run_cpp(const int8_t* input) {
    Executor exec;
    Span<uint8_t> regions[] = {Span<uint8_t>(cpp_arena_)};
    EXPECT_EQ(exec.init(cpp_program_, regions), Status::Ok);
    EXPECT_EQ(exec.set_input(0, input, 4), Status::Ok);
    EXPECT_EQ(exec.run(), Status::Ok);
    TensorView out;
    EXPECT_EQ(exec.output(0, &out), Status::Ok);
    return std::vector<int8_t>(out.as<int8_t>(), out.as<int8_t>() + out.num_elements());
  }

  File file_ = build(valid_spec());
  ember_program program_;
  Program cpp_program_;
  alignas(16) uint8_t arena_[64] = {};
  alignas(16) uint8_t cpp_arena_[64] = {};
};

void expect_same(const ember_tensor& t, const TensorView& view, const TensorInfo& info) {
  EXPECT_EQ(t.data, view.data);
  EXPECT_EQ(t.bytes, info.bytes);
  EXPECT_EQ(t.rank, info.rank);
  for (size_t d = 0; d < kMaxRank; ++d) EXPECT_EQ(t.dims[d], info.dims[d]) << d;
  EXPECT_EQ(static_cast<int>(t.dtype), static_cast<int>(info.dtype));
  EXPECT_EQ(t.quantized, info.quantized);
  EXPECT_EQ(t.scale, info.scale);
  EXPECT_EQ(t.zero_point, info.zero_point);
  EXPECT_STREQ(t.name, info.name);
}

TEST_F(CApiTest, RunsLikeTheCppApi) {
  size_t n = 0;
  EXPECT_EQ(ember_program_num_inputs(&program_, &n), kOk);
  EXPECT_EQ(n, cpp_program_.num_inputs());
  EXPECT_EQ(ember_program_num_outputs(&program_, &n), kOk);
  EXPECT_EQ(n, cpp_program_.num_outputs());
  EXPECT_EQ(ember_program_num_ops(&program_, &n), kOk);
  EXPECT_EQ(n, cpp_program_.num_ops());
  EXPECT_EQ(ember_program_num_regions(&program_, &n), kOk);
  EXPECT_EQ(n, cpp_program_.num_regions());
  EXPECT_EQ(ember_program_region_size(&program_, 0, &n), kOk);
  EXPECT_EQ(n, cpp_program_.region_size(0));

  ember_executor exec;
  const ember_region regions[] = {{arena_, sizeof arena_}};
  ASSERT_EQ(ember_executor_init(&exec, &program_, regions, 1), kOk);
  const int8_t x[4] = {1, 2, 3, -4};
  ASSERT_EQ(ember_executor_set_input(&exec, 0, x, sizeof x), kOk);
  ASSERT_EQ(ember_executor_run(&exec), kOk);
  ember_tensor in, out;
  ASSERT_EQ(ember_executor_input(&exec, 0, &in), kOk);
  ASSERT_EQ(ember_executor_output(&exec, 0, &out), kOk);

  // The same calls through the C++ API, over the same arena: the same views and descriptions.
  Executor cpp;
  Span<uint8_t> spans[] = {Span<uint8_t>(arena_)};
  ASSERT_EQ(cpp.init(cpp_program_, spans), Status::Ok);
  TensorView view;
  TensorInfo info;
  ASSERT_EQ(cpp.input(0, &view), Status::Ok);
  ASSERT_EQ(cpp_program_.input_info(0, &info), Status::Ok);
  expect_same(in, view, info);
  ASSERT_EQ(cpp.output(0, &view), Status::Ok);
  ASSERT_EQ(cpp_program_.output_info(0, &info), Status::Ok);
  expect_same(out, view, info);

  const std::vector<int8_t> expected = run_cpp(x);
  ASSERT_EQ(out.bytes, expected.size());
  EXPECT_EQ(memcmp(out.data, expected.data(), expected.size()), 0);
  EXPECT_EQ(expected, (std::vector<int8_t>{12, 23, 34, 37}));
}

TEST_F(CApiTest, FromCGivesTheCppResult) {
  const int8_t x[4] = {-7, 0, 5, 100};
  int8_t y[4] = {};
  EXPECT_EQ(ember_c_api_test_run(file_.data(), file_.size(), x, y), 0)
      << "the failing line of c_api_test_c.c";
  EXPECT_EQ(std::vector<int8_t>(y, y + 4), run_cpp(x));
}

TEST(CApiStatus, CodesAndStringsAreStatusDefs) {
#define EMBER_STATUS(name, value, id, message)                        \
  EXPECT_EQ(static_cast<int>(EMBER_STATUS_##name), value) << #name;  \
  EXPECT_STREQ(ember_status_string(EMBER_STATUS_##name), to_string(Status::name));
#include "ember/runtime/status.def"
#undef EMBER_STATUS
  // A value between codes (c_api_test_c.c passes values past uint8_t, which C++ cannot).
  EXPECT_STREQ(ember_status_string(static_cast<ember_status>(50)),
               to_string(static_cast<Status>(50)));
}

TEST_F(CApiTest, NullPointersAreInvalidState) {
  size_t n = 7;
  const ember_kernel_table* k = c_table(ember_c_api_test_kernels);
  ember_program p;
  EXPECT_EQ(ember_program_load(file_.data(), file_.size(), k, nullptr), kInvalidState);
  EXPECT_EQ(ember_program_load(nullptr, file_.size(), k, &p), kInvalidState);
  EXPECT_EQ(ember_program_num_inputs(&p, &n), kInvalidState);  // constructed, left empty
  EXPECT_EQ(ember_program_load(file_.data(), file_.size(), nullptr, &p), kInvalidState);
  EXPECT_EQ(ember_program_num_inputs(&p, &n), kInvalidState);
  EXPECT_EQ(n, 0u);

  EXPECT_EQ(ember_program_num_inputs(nullptr, &n), kInvalidState);
  EXPECT_EQ(ember_program_num_outputs(nullptr, &n), kInvalidState);
  EXPECT_EQ(ember_program_num_regions(nullptr, &n), kInvalidState);
  EXPECT_EQ(ember_program_num_ops(nullptr, &n), kInvalidState);
  EXPECT_EQ(ember_program_region_size(nullptr, 0, &n), kInvalidState);
  EXPECT_EQ(ember_program_num_inputs(&program_, nullptr), kInvalidState);
  EXPECT_EQ(ember_program_num_outputs(&program_, nullptr), kInvalidState);
  EXPECT_EQ(ember_program_num_regions(&program_, nullptr), kInvalidState);
  EXPECT_EQ(ember_program_num_ops(&program_, nullptr), kInvalidState);
  EXPECT_EQ(ember_program_region_size(&program_, 0, nullptr), kInvalidState);

  ember_executor exec;
  const ember_region regions[] = {{arena_, sizeof arena_}};
  EXPECT_EQ(ember_executor_init(nullptr, &program_, regions, 1), kInvalidState);
  EXPECT_EQ(ember_executor_init(&exec, nullptr, regions, 1), kInvalidState);
  EXPECT_EQ(ember_executor_init(&exec, &program_, nullptr, 1), kInvalidState);
  EXPECT_EQ(ember_executor_run(&exec), kInvalidState);  // a failed init leaves it unbound
  // No regions at all, as the C++ API answers an empty span.
  Executor cpp;
  EXPECT_EQ(ember_executor_init(&exec, &program_, nullptr, 0),
            c(cpp.init(cpp_program_, Span<const Span<uint8_t>>())));
  EXPECT_EQ(ember_executor_init(&exec, &program_, nullptr, 0), EMBER_STATUS_ArenaTooSmall);

  ASSERT_EQ(ember_executor_init(&exec, &program_, regions, 1), kOk);
  ember_tensor t;
  const int8_t x[4] = {};
  EXPECT_EQ(ember_executor_set_input(nullptr, 0, x, 4), kInvalidState);
  EXPECT_EQ(ember_executor_set_input(&exec, 0, nullptr, 4), EMBER_STATUS_ShapeMismatch);
  EXPECT_EQ(ember_executor_input(nullptr, 0, &t), kInvalidState);
  EXPECT_EQ(ember_executor_output(nullptr, 0, &t), kInvalidState);
  EXPECT_EQ(ember_executor_input(&exec, 0, nullptr), kInvalidState);
  EXPECT_EQ(ember_executor_output(&exec, 0, nullptr), kInvalidState);
  EXPECT_EQ(ember_executor_run(nullptr), kInvalidState);
  EXPECT_EQ(ember_executor_run_op(nullptr, 0), kInvalidState);
}

TEST_F(CApiTest, StorageNeverConstructedIsInvalidState) {
  static ember_program program;  // zeroed, as a C static is
  static ember_executor exec;
  size_t n = 7;
  EXPECT_EQ(ember_program_num_inputs(&program, &n), kInvalidState);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(ember_program_num_outputs(&program, &n), kInvalidState);
  EXPECT_EQ(ember_program_num_regions(&program, &n), kInvalidState);
  EXPECT_EQ(ember_program_num_ops(&program, &n), kInvalidState);
  EXPECT_EQ(ember_program_region_size(&program, 0, &n), kInvalidState);
  const ember_region regions[] = {{arena_, sizeof arena_}};
  EXPECT_EQ(ember_executor_init(&exec, &program, regions, 1), kInvalidState);

  // Storage holding garbage reads as never constructed too, unless the garbage is the state word.
  ember_executor garbage;
  memset(&garbage, 0xA5, sizeof garbage);
  ember_tensor t;
  const int8_t x[4] = {};
  EXPECT_EQ(ember_executor_run(&garbage), kInvalidState);
  EXPECT_EQ(ember_executor_run_op(&garbage, 0), kInvalidState);
  EXPECT_EQ(ember_executor_set_input(&garbage, 0, x, 4), kInvalidState);
  EXPECT_EQ(ember_executor_input(&garbage, 0, &t), kInvalidState);
  EXPECT_EQ(ember_executor_output(&garbage, 0, &t), kInvalidState);
  EXPECT_EQ(t.data, nullptr);
  EXPECT_STREQ(t.name, "");
  // An executor storage is not a program storage.
  EXPECT_EQ(ember_program_num_inputs(reinterpret_cast<const ember_program*>(&exec), &n),
            kInvalidState);
}

TEST_F(CApiTest, LoadErrorsAreTheCppOnes) {
  FakeKernels kernels;
  const KernelTable table = kernels.table();
  Program cpp;
  ember_program p;
  // Truncated, and misaligned.
  EXPECT_EQ(ember_program_load(file_.data(), 7, c_table(table), &p),
            c(Program::load(file_.prefix(7), table, &cpp)));
  EXPECT_EQ(ember_program_load(file_.data(), 7, c_table(table), &p), EMBER_STATUS_Truncated);
  File shifted = build(valid_spec(), 4);
  EXPECT_EQ(ember_program_load(shifted.data(), shifted.size(), c_table(table), &p),
            EMBER_STATUS_Misaligned);
  // A kernel the table lacks.
  kernels.entries[static_cast<size_t>(KernelId::add_f32)] = {};
  EXPECT_EQ(ember_program_load(file_.data(), file_.size(), c_table(table), &p),
            EMBER_STATUS_KernelNotLinked);
  // A failed load leaves the program empty, and loaded again it works.
  size_t n = 7;
  EXPECT_EQ(ember_program_num_inputs(&p, &n), kInvalidState);
  ember_executor exec;
  const ember_region regions[] = {{arena_, sizeof arena_}};
  EXPECT_EQ(ember_executor_init(&exec, &p, regions, 1), kInvalidState);
  EXPECT_EQ(ember_program_load(file_.data(), file_.size(), c_table(ember_c_api_test_kernels), &p),
            kOk);
  EXPECT_EQ(ember_executor_init(&exec, &p, regions, 1), kOk);
}

TEST_F(CApiTest, InitErrorsAreTheCppOnes) {
  ember_executor exec;
  Executor cpp;
  // Too few: no region, and one byte short of the plan.
  ember_region regions[kMaxRegions + 3] = {};
  Span<uint8_t> spans[kMaxRegions + 3] = {};
  for (size_t r = 0; r < kMaxRegions + 3; ++r) {
    regions[r] = {arena_ + 16 * (r % 4), 16};
    spans[r] = Span<uint8_t>(regions[r].data, regions[r].size);
  }
  regions[0] = {arena_, 47};
  spans[0] = Span<uint8_t>(arena_, 47);
  EXPECT_EQ(ember_executor_init(&exec, &program_, regions, 1), EMBER_STATUS_ArenaTooSmall);
  EXPECT_EQ(ember_executor_init(&exec, &program_, regions, 1),
            c(cpp.init(cpp_program_, Span<const Span<uint8_t>>(spans, 1))));
  EXPECT_EQ(ember_executor_run(&exec), kInvalidState);
  // Too many: up to the most the C API copies, and past it.
  regions[0] = {arena_, 48};
  spans[0] = Span<uint8_t>(arena_, 48);
  for (size_t n = 2; n <= kMaxRegions + 3; ++n) {
    EXPECT_EQ(ember_executor_init(&exec, &program_, regions, n), EMBER_STATUS_ShapeMismatch) << n;
    if (n <= kMaxRegions) {
      EXPECT_EQ(ember_executor_init(&exec, &program_, regions, n),
                c(cpp.init(cpp_program_, Span<const Span<uint8_t>>(spans, n))))
          << n;
    }
  }
  // Misaligned, and over the program file.
  const ember_region misaligned[] = {{arena_ + 4, 60}};
  EXPECT_EQ(ember_executor_init(&exec, &program_, misaligned, 1), EMBER_STATUS_Misaligned);
  const ember_region over_file[] = {{file_.data(), 48}};
  EXPECT_EQ(ember_executor_init(&exec, &program_, over_file, 1), EMBER_STATUS_OverlappingMemory);
  EXPECT_EQ(ember_executor_run(&exec), kInvalidState);
  EXPECT_EQ(ember_executor_init(&exec, &program_, regions, 1), kOk);
  EXPECT_EQ(ember_executor_run(&exec), kOk);
}

TEST_F(CApiTest, BadIndexAndSizeAreTheCppOnes) {
  ember_executor exec;
  const ember_region regions[] = {{arena_, sizeof arena_}};
  ASSERT_EQ(ember_executor_init(&exec, &program_, regions, 1), kOk);
  Executor cpp;
  Span<uint8_t> spans[] = {Span<uint8_t>(cpp_arena_)};
  ASSERT_EQ(cpp.init(cpp_program_, spans), Status::Ok);
  const int8_t x[5] = {};
  ember_tensor t;
  TensorView v;
  size_t n = 7;
  EXPECT_EQ(ember_program_region_size(&program_, 1, &n), EMBER_STATUS_RuntimeIndex);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(ember_executor_input(&exec, 1, &t), c(cpp.input(1, &v)));
  EXPECT_EQ(ember_executor_output(&exec, 1, &t), c(cpp.output(1, &v)));
  EXPECT_EQ(ember_executor_output(&exec, 1, &t), EMBER_STATUS_RuntimeIndex);
  EXPECT_EQ(t.data, nullptr);
  EXPECT_EQ(ember_executor_set_input(&exec, 1, x, 4), c(cpp.set_input(1, x, 4)));
  EXPECT_EQ(ember_executor_set_input(&exec, 1, x, 4), EMBER_STATUS_RuntimeIndex);
  EXPECT_EQ(ember_executor_set_input(&exec, 0, x, 5), c(cpp.set_input(0, x, 5)));
  EXPECT_EQ(ember_executor_set_input(&exec, 0, x, 5), EMBER_STATUS_ShapeMismatch);
  EXPECT_EQ(ember_executor_run_op(&exec, 2), c(cpp.run_op(2)));
  EXPECT_EQ(ember_executor_run_op(&exec, 2), EMBER_STATUS_RuntimeIndex);
  EXPECT_EQ(ember_executor_run_op(&exec, static_cast<size_t>(-1)), EMBER_STATUS_RuntimeIndex);
}

TEST_F(CApiTest, KernelRunErrorPropagates) {
  FakeKernels failing;
  failing.entries[static_cast<size_t>(KernelId::add_f32)].run =
      [](const OpContext&) { return Status::Internal; };
  const KernelTable table = failing.table();
  ember_program p;
  ASSERT_EQ(ember_program_load(file_.data(), file_.size(), c_table(table), &p), kOk);
  ember_executor exec;
  const ember_region regions[] = {{arena_, sizeof arena_}};
  ASSERT_EQ(ember_executor_init(&exec, &p, regions, 1), kOk);
  EXPECT_EQ(ember_executor_run(&exec), EMBER_STATUS_Internal);
  EXPECT_EQ(ember_executor_run_op(&exec, 0), kOk);
  EXPECT_EQ(ember_executor_run_op(&exec, 1), EMBER_STATUS_Internal);
}

TEST(CApiStorage, SizesAreWholeWords) {
  // The storage is pointer-word sized on every target (ember.h); the slots fit (c_api.cc).
  EXPECT_EQ(sizeof(ember_program), EMBER_PROGRAM_STORAGE);
  EXPECT_EQ(sizeof(ember_executor), EMBER_EXECUTOR_STORAGE);
  EXPECT_EQ(alignof(ember_program), alignof(void*));
  EXPECT_EQ(alignof(ember_executor), alignof(void*));
  ::testing::Test::RecordProperty("program_storage", static_cast<int>(sizeof(ember_program)));
  ::testing::Test::RecordProperty("executor_storage", static_cast<int>(sizeof(ember_executor)));
}

}  // namespace
}  // namespace ember::rt
