//===- program_test.cc - Program::load accepts valid files, rejects the rest -===//
//
// One test per class of malformation in docs/runtime.md, each starting from the valid program
// of test_util.h and breaking one thing, and each expecting its own Status.

#include "ember/runtime/program.h"

#include <gtest/gtest.h>
#include <math.h>

#include <utility>

#include "ember/runtime/program_verifier.h"
#include "ember/runtime/test_util.h"

namespace ember::rt {
namespace {

using test::build;
using test::FakeKernels;
using test::File;
using test::ProgramSpec;
using test::valid_spec;
namespace fbs = ::ember::schema;

Status load(const File& f, Program* p = nullptr) {
  static FakeKernels kernels;
  Program local;
  return Program::load(f.span(), kernels.table(), p ? p : &local);
}
Status load(const ProgramSpec& s) { return load(build(s)); }

TEST(ProgramTest, ValidProgramLoadsAndDescribesItself) {
  File f = build(valid_spec());
  Program p;
  ASSERT_EQ(load(f, &p), Status::Ok);
  EXPECT_TRUE(p.loaded());
  EXPECT_EQ(p.num_inputs(), 1u);
  EXPECT_EQ(p.num_outputs(), 1u);
  EXPECT_EQ(p.num_tensors(), 4u);
  EXPECT_EQ(p.num_ops(), 2u);
  EXPECT_EQ(p.num_regions(), 1u);
  EXPECT_STREQ(p.region_name(0), "region0");
  EXPECT_EQ(p.region_size(0), 48u);
  EXPECT_EQ(p.region_size(1), 0u);
  EXPECT_EQ(p.op_kernel(1), static_cast<uint16_t>(KernelId::add_f32));
  EXPECT_STREQ(p.op_source(0), "aten.add.Tensor model.py:3");
  EXPECT_STREQ(p.op_source(1), "");
  TensorInfo in;
  ASSERT_EQ(p.input_info(0, &in), Status::Ok);
  EXPECT_EQ(in.rank, 2);
  EXPECT_EQ(in.dims[1], 4);
  EXPECT_EQ(in.bytes, 4u);
  EXPECT_TRUE(in.quantized);
  EXPECT_EQ(in.scale, 0.5f);
  EXPECT_EQ(in.zero_point, 3);
  EXPECT_STREQ(in.name, "x");
  TensorInfo out;
  ASSERT_EQ(p.output_info(0, &out), Status::Ok);
  EXPECT_FALSE(out.quantized);
  EXPECT_EQ(p.output_info(1, &out), Status::RuntimeIndex);
}

TEST(ProgramTest, FailedLoadLeavesProgramEmpty) {
  File good = build(valid_spec());
  Program p;
  ASSERT_EQ(load(good, &p), Status::Ok);
  ProgramSpec s = valid_spec();
  s.version = kSchemaVersion + 1;
  EXPECT_EQ(load(build(s), &p), Status::BadIdentity);
  EXPECT_FALSE(p.loaded());
  EXPECT_EQ(p.num_ops(), 0u);
}

TEST(ProgramTest, Truncated) {
  File f = build(valid_spec());
  FakeKernels k;
  Program p;
  EXPECT_EQ(Program::load(f.prefix(4), k.table(), &p), Status::Truncated);
  EXPECT_EQ(Program::load(Span<const uint8_t>(nullptr, 0), k.table(), &p), Status::Truncated);
  // Cut just before the root table: the header points past the end.
  const uint32_t root = flatbuffers::ReadScalar<uint32_t>(f.data());
  EXPECT_EQ(Program::load(f.prefix(root), k.table(), &p), Status::Truncated);
}

TEST(ProgramTest, BadIdentifier) {
  File f = build(valid_spec());
  f.data()[4] = 'X';
  EXPECT_EQ(load(f), Status::BadIdentity);
}

TEST(ProgramTest, BadVersion) {
  ProgramSpec s = valid_spec();
  s.version = kSchemaVersion + 1;
  EXPECT_EQ(load(s), Status::BadIdentity);
}

TEST(ProgramTest, MisalignedFile) {
  for (size_t shift : {1u, 4u, 8u}) EXPECT_EQ(load(build(valid_spec(), shift)), Status::Misaligned);
}

TEST(ProgramTest, MisalignedConstantData) {
  // Only 4-byte alignment forced: shift the constants until they land off a 16-byte boundary.
  bool tried = false;
  for (size_t pad = 1; pad < 32 && !tried; ++pad) {
    ProgramSpec s = valid_spec();
    s.constant_alignment = 4;
    s.pad_before_constants = pad;
    File f = build(s);
    const auto* data = fbs::GetProgram(f.data())->constant_data()->Data();
    if (reinterpret_cast<uintptr_t>(data) % 16 == 0) continue;
    tried = true;
    EXPECT_EQ(load(f), Status::Misaligned);
  }
  EXPECT_TRUE(tried);
}

TEST(ProgramTest, MisalignedConstantOffset) {
  ProgramSpec s = valid_spec();
  s.constants.resize(32);
  s.tensors[3].offset = 4;
  EXPECT_EQ(load(s), Status::Misaligned);
}

TEST(ProgramTest, MisalignedArenaOffset) {
  ProgramSpec s = valid_spec();
  s.tensors[1].dtype = fbs::DType::Int32;
  s.tensors[1].shape = {1};
  s.tensors[1].offset = 18;
  EXPECT_EQ(load(s), Status::Misaligned);
}

TEST(ProgramTest, CorruptedStructure) {
  File f = build(valid_spec());
  // Make the tensor vector claim far more entries than the file holds.
  auto* tensors = reinterpret_cast<const uint8_t*>(fbs::GetProgram(f.data())->tensors());
  const size_t at = static_cast<size_t>(tensors - f.data());
  flatbuffers::WriteScalar<uint32_t>(f.data() + at, 0x10000000u);
  EXPECT_EQ(load(f), Status::BadStructure);
}

TEST(ProgramTest, CorruptedVtable) {
  File f = build(valid_spec());
  const uint32_t root = flatbuffers::ReadScalar<uint32_t>(f.data());
  // The root table's soffset to its vtable, pointed far outside the file.
  flatbuffers::WriteScalar<int32_t>(f.data() + root, 0x7FFFFFF0);
  EXPECT_EQ(load(f), Status::BadStructure);
}

TEST(ProgramTest, TooManyTablesIsBadStructure) {
  // 100001 offsets to one shared op table: tiny file, too many tables to verify.
  flatbuffers::FlatBufferBuilder b;
  auto op = fbs::CreateOp(b);
  std::vector<flatbuffers::Offset<fbs::Op>> many(kVerifierMaxTables + 1, op);
  auto root = fbs::CreateProgram(b, kSchemaVersion, b.CreateVectorOfStructs(std::vector<fbs::Tensor>{}), 0,
                                 b.CreateVector(many), b.CreateVector(std::vector<int32_t>{}),
                                 b.CreateVector(std::vector<int32_t>{}));
  fbs::FinishProgramBuffer(b, root);
  File f(b.GetBufferPointer(), b.GetSize());
  EXPECT_EQ(load(f), Status::BadStructure);
}

TEST(ProgramTest, UnknownKernel) {
  ProgramSpec s = valid_spec();
  s.ops[0].raw_kernel = static_cast<uint16_t>(kNumKnownKernels);
  EXPECT_EQ(load(s), Status::UnknownKind);
  s = valid_spec();
  s.kernels.push_back(0xFFFE);
  EXPECT_EQ(load(s), Status::UnknownKind);
}

TEST(ProgramTest, UnknownDtypeAndStorage) {
  ProgramSpec s = valid_spec();
  s.tensors[1].dtype = static_cast<fbs::DType>(7);
  EXPECT_EQ(load(s), Status::UnknownKind);
  s = valid_spec();
  s.tensors[1].storage = static_cast<fbs::Storage>(-1);
  EXPECT_EQ(load(s), Status::UnknownKind);
}

TEST(ProgramTest, MissingField) {
  ProgramSpec s = valid_spec();
  s.has_tensors = false;
  EXPECT_EQ(load(s), Status::MissingField);
  s = valid_spec();
  s.ops[1].has_inputs = false;
  EXPECT_EQ(load(s), Status::MissingField);
}

TEST(ProgramTest, TensorIndexOutOfRange) {
  ProgramSpec s = valid_spec();
  s.ops[1].inputs[1] = 99;
  EXPECT_EQ(load(s), Status::BadIndex);
  s = valid_spec();
  s.ops[0].outputs[0] = -1;
  EXPECT_EQ(load(s), Status::BadIndex);
  s = valid_spec();
  s.inputs = {-1};
  EXPECT_EQ(load(s), Status::BadIndex);
  s = valid_spec();
  s.outputs = {4};
  EXPECT_EQ(load(s), Status::BadIndex);
  s = valid_spec();
  s.ops[1].inputs[0] = -2;
  EXPECT_EQ(load(s), Status::BadIndex);
}

TEST(ProgramTest, AbsentRequiredOperandIsBadIndex) {
  // -1 means "absent" only where kernels.def makes the operand optional (biases).
  ProgramSpec s = valid_spec();
  s.ops[1].inputs[1] = -1;  // add_f32's second operand
  EXPECT_EQ(load(s), Status::BadIndex);
}

TEST(ProgramTest, RegionIndexOutOfRange) {
  ProgramSpec s = valid_spec();
  s.tensors[1].region = 1;
  EXPECT_EQ(load(s), Status::BadIndex);
  s = valid_spec();
  s.region_sizes = {48, 0, 0, 0, 0};  // more than kMaxRegions
  EXPECT_EQ(load(s), Status::BadIndex);
}

TEST(ProgramTest, NegativeDimAndRankTooHigh) {
  ProgramSpec s = valid_spec();
  s.tensors[1].shape = {1, -4};
  EXPECT_EQ(load(s), Status::BadShape);
  s = valid_spec();
  s.tensors[1].shape = {1, 1, 1, 1, 1, 4};
  EXPECT_EQ(load(s), Status::BadShape);
  // A dim past the rank: the executor copies all five into the view, so they must be 0.
  s = valid_spec();
  s.tensors[1].shape = {1, 4, 0, 0, 7};
  s.tensors[1].rank = 2;
  EXPECT_EQ(load(s), Status::BadShape);
  s.tensors[1].shape = {1, 4, 0, 0, 0};
  EXPECT_EQ(load(s), Status::Ok);
}

TEST(ProgramTest, SizeOverflow) {
  ProgramSpec s = valid_spec();
  test::TensorSpec huge;
  huge.shape = {65536, 65536};  // 2^32 bytes: wraps to 0 in 32 bits
  s.tensors.push_back(huge);
  EXPECT_EQ(load(s), Status::SizeOverflow);
  s.tensors.back().shape = {32768, 32768, 4};
  s.tensors.back().dtype = fbs::DType::Float32;
  EXPECT_EQ(load(s), Status::SizeOverflow);
  s.tensors.back().shape = {65536, 65536, 0};  // empty: zero bytes, no overflow
  EXPECT_EQ(load(s), Status::Ok);
  s.tensors.back().shape = {32};
  s.tensors.back().dtype = fbs::DType::Int8;
  s.tensors.back().offset = 0xFFFFFFF0u;  // offset + size wraps
  EXPECT_EQ(load(s), Status::SizeOverflow);
}

TEST(ProgramTest, ConstantOutOfBounds) {
  ProgramSpec s = valid_spec();
  s.tensors[3].offset = 16;  // constant data is 16 bytes
  EXPECT_EQ(load(s), Status::DataOutOfBounds);
  s = valid_spec();
  s.tensors[3].shape = {1, 17};
  EXPECT_EQ(load(s), Status::DataOutOfBounds);
}

TEST(ProgramTest, ArenaTensorOutsideRegion) {
  ProgramSpec s = valid_spec();
  s.region_sizes = {35};  // output occupies [32, 36)
  EXPECT_EQ(load(s), Status::BadPlan);
}

TEST(ProgramTest, RegionLargerThanItsTensors) {
  ProgramSpec s = valid_spec();
  EXPECT_EQ(load(s), Status::Ok);  // the output ends at 36; the planner rounds to 48
  s.region_sizes = {64};
  EXPECT_EQ(load(s), Status::OversizedRegion);
  s.region_sizes = {0xFFFFFFFFu};  // 4 GiB stated: host tools would allocate it
  EXPECT_EQ(load(s), Status::OversizedRegion);
  s.region_sizes = {49};
  EXPECT_EQ(load(s), Status::OversizedRegion);
  s.region_sizes = {36};
  EXPECT_EQ(load(s), Status::Ok);
}

TEST(ProgramTest, WrongOperandCount) {
  ProgramSpec s = valid_spec();
  s.ops[0].inputs = {0, 0};  // copy takes one input
  EXPECT_EQ(load(s), Status::BadOpSignature);
  s = valid_spec();
  s.ops[1].floats = {0.f};  // add_f32 takes two floats
  EXPECT_EQ(load(s), Status::BadOpSignature);
  s = valid_spec();
  s.ops[0].ints = {1};
  EXPECT_EQ(load(s), Status::BadOpSignature);
  s = valid_spec();
  s.ops[0].outputs = {1, 2};
  EXPECT_EQ(load(s), Status::BadOpSignature);
}

TEST(ProgramTest, VariadicInputCount) {
  ProgramSpec s = valid_spec();
  test::OpSpec cat;
  cat.kernel = KernelId::cat_s8;
  cat.outputs = {2};
  cat.ints = {1};
  for (size_t n : {size_t{1}, kMaxVariadicInputs}) {
    cat.inputs.assign(n, 0);
    s.ops = {cat};
    EXPECT_EQ(load(s), Status::Ok) << n;
  }
  for (size_t n : {size_t{0}, kMaxVariadicInputs + 1}) {
    cat.inputs.assign(n, 0);
    s.ops = {cat};
    EXPECT_EQ(load(s), Status::BadOpSignature) << n;
  }
}

TEST(ProgramTest, BadQuantization) {
  auto with = [](float scale, int32_t zp) {
    ProgramSpec s = valid_spec();
    s.tensors[1].scale = scale;
    s.tensors[1].zero_point = zp;
    return load(s);
  };
  EXPECT_EQ(with(0.25f, -128), Status::Ok);
  EXPECT_EQ(with(0.25f, 127), Status::Ok);
  EXPECT_EQ(with(0.f, 0), Status::Ok);  // not quantized
  EXPECT_EQ(with(0.f, 1), Status::BadQuantization);  // a zero point without a scale
  EXPECT_EQ(with(-0.f, 0), Status::BadQuantization);
  EXPECT_EQ(with(-1.f, 0), Status::BadQuantization);
  EXPECT_EQ(with(INFINITY, 0), Status::BadQuantization);
  EXPECT_EQ(with(NAN, 0), Status::BadQuantization);
  EXPECT_EQ(with(0.5f, 128), Status::BadQuantization);
  EXPECT_EQ(with(0.5f, -129), Status::BadQuantization);
}

TEST(ProgramTest, OpReadsUnwrittenTensor) {
  ProgramSpec s = valid_spec();
  std::swap(s.ops[0], s.ops[1]);  // add reads t1 before copy writes it
  EXPECT_EQ(load(s), Status::BadGraph);
}

TEST(ProgramTest, AliasedViewIsTrackedPerTensor) {
  // t4 sits at the same bytes as t1 (a view), but no op writes t4 by index.
  ProgramSpec s = valid_spec();
  test::TensorSpec view = s.tensors[1];
  s.tensors.push_back(view);
  s.ops[1].inputs[0] = 4;
  EXPECT_EQ(load(s), Status::BadGraph);
}

TEST(ProgramTest, OpReadingItsOwnOutputIsBadSignature) {
  ProgramSpec s = valid_spec();
  s.ops[0].inputs = {1};
  EXPECT_EQ(load(s), Status::BadOpSignature);
}

TEST(ProgramTest, OutputNeverWrittenAndWritesToConstants) {
  ProgramSpec s = valid_spec();
  s.outputs = {1, 2};
  EXPECT_EQ(load(s), Status::Ok);
  s.ops.pop_back();
  EXPECT_EQ(load(s), Status::BadGraph);
  s = valid_spec();
  s.ops[1].outputs = {3};
  EXPECT_EQ(load(s), Status::BadGraph);
  s = valid_spec();
  s.inputs = {3};
  EXPECT_EQ(load(s), Status::BadGraph);
}

TEST(ProgramTest, KernelNotLinked) {
  ProgramSpec s = valid_spec();
  s.ops[0].kernel = KernelId::neg_f32;  // same signature as copy, not in the fake table
  EXPECT_EQ(load(s), Status::KernelNotLinked);
  // A table shorter than kernels.def (an older kernels library) does not link later ids.
  FakeKernels k;
  Program p;
  EXPECT_EQ(Program::load(build(valid_spec()).span(), KernelTable{k.entries, 1}, &p),
            Status::KernelNotLinked);
  EXPECT_EQ(Program::load(build(valid_spec()).span(), KernelTable{}, &p),
            Status::KernelNotLinked);
}

TEST(ProgramTest, KernelCheckStatusPropagates) {
  ProgramSpec s = valid_spec();
  s.tensors[1].shape = {1, 5};  // copy([1,4]) -> [1,5]: the fake check says BadShape
  EXPECT_EQ(load(s), Status::BadShape);
}

TEST(ProgramTest, PeakOpOutOfRange) {
  ProgramSpec s = valid_spec();
  s.peak_op = 2;
  EXPECT_EQ(load(s), Status::BadIndex);
  s.peak_op = 1;
  EXPECT_EQ(load(s), Status::Ok);
}


// The in-place distance in closed form against its definition: the largest need over every
// output pixel (not only the few per column the closed form evaluates), with padding of both
// signs (a bottom-up op's implied bottom padding may be negative) and blocks of 1 to 4 pixels.
TEST(ProgramTest, RowStreamNeedMatchesEveryPixel) {
  uint32_t state = 12345;
  auto next = [&](uint32_t lo, uint32_t hi) {
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    return lo + state % (hi - lo + 1);
  };
  for (int i = 0; i < 200000; ++i) {
    const uint32_t width = next(1, 20), height = next(1, 50), block = next(1, 4);
    const int64_t stride = next(1, 5), pad = static_cast<int64_t>(next(0, 40)) - 20;
    const uint32_t in_h = next(1, 60), in_row = next(1, 90), pixel = next(1, 90);
    uint32_t want = 0;
    for (uint32_t q = 0; q < width * height; ++q) {
      const uint32_t back = q + 1 >= block ? q + 1 - block : 0;
      int64_t first = int64_t{back / width} * stride - pad;
      first = first < 0 ? 0 : first > in_h ? in_h : first;
      const uint32_t end = (q + 1) * pixel, start = static_cast<uint32_t>(first) * in_row;
      if (end > start && end - start > want) want = end - start;
    }
    ASSERT_EQ(internal::row_stream_need(width, height, block, stride, pad, in_h, in_row, pixel), want)
        << "width " << width << " height " << height << " block " << block << " stride " << stride << " pad "
        << pad << " in_h " << in_h << " in_row " << in_row << " pixel " << pixel;
  }
}

}  // namespace
}  // namespace ember::rt
