//===- program_structure_test.cc - check_structure agrees with flatbuffers --===//
//
// The deterministic half of the differential test (the other half is the fuzz target): every
// single-byte mutation, with a spread of values, of two valid files, and every truncation,
// must be accepted or rejected by check_structure exactly as by the old flatbuffers-based
// check (program_structure_reference.h). The table-count limit is tested at its edge.

#include "ember/runtime/program_structure.h"

#include <gtest/gtest.h>

#include <vector>

#include "ember/runtime/program_structure_reference.h"
#include "ember/runtime/test_util.h"

namespace ember::rt {
namespace {

using test::build;
using test::File;
using test::ProgramSpec;
using test::valid_spec;
namespace fbs = ::ember::schema;

bool agree(const File& f, size_t size, int* accepted) {
  const bool ours = internal::check_structure(f.prefix(size));
  const bool reference = testing::reference_structure_ok(f.span().data(), size);
  *accepted += ours;
  return ours == reference;
}

// Every byte set to a spread of values (offsets and sizes at their edges), then restored.
void mutate_every_byte(File& f) {
  int accepted = 0;
  ASSERT_TRUE(agree(f, f.size(), &accepted));
  ASSERT_EQ(accepted, 1) << "the unmutated file must pass";
  for (size_t i = 0; i < f.size(); ++i) {
    const uint8_t original = f.data()[i];
    const uint8_t values[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x7F, 0x80, 0xFE, 0xFF,
                              static_cast<uint8_t>(original + 4),
                              static_cast<uint8_t>(original - 4),
                              static_cast<uint8_t>(original ^ 0x01)};
    for (uint8_t v : values) {
      f.data()[i] = v;
      EXPECT_TRUE(agree(f, f.size(), &accepted))
          << "byte " << i << " set to " << int{v} << " (was " << int{original} << ")";
    }
    f.data()[i] = original;
  }
  for (size_t n = 0; n < f.size(); ++n) EXPECT_TRUE(agree(f, n, &accepted)) << "first " << n;
  // Some mutations must stay valid (e.g. a scalar's value), or the test proves little.
  EXPECT_GT(accepted, 1);
}

TEST(ProgramStructureTest, AgreesWithFlatbuffersOnMutationsOfAValidFile) {
  File f = build(valid_spec());
  mutate_every_byte(f);
}

TEST(ProgramStructureTest, AgreesWithFlatbuffersOnEveryFieldKind) {
  // Every kind the schema has: strings (source, region names), a vector of strings (tensor
  // names), vectors of 1-, 2- and 4-byte scalars, a vector of structs (tensors), vectors of
  // tables, and scalars of each width.
  ProgramSpec s = valid_spec();
  s.tensors[2].name = "out";
  s.ops[1].source = "aten.add.Tensor model.py:4";
  s.peak_op = 1;
  File f = build(s);
  mutate_every_byte(f);
}

File ops_file(size_t num_ops) {
  // Offsets to one shared op table: a small file with many tables to verify.
  flatbuffers::FlatBufferBuilder b;
  auto op = fbs::CreateOp(b, 0, b.CreateVector(std::vector<int32_t>{1}));
  std::vector<flatbuffers::Offset<fbs::Op>> many(num_ops, op);
  auto root = fbs::CreateProgram(b, kSchemaVersion, 0, 0, b.CreateVector(many));
  fbs::FinishProgramBuffer(b, root);
  return File(b.GetBufferPointer(), b.GetSize());
}

TEST(ProgramStructureTest, TableLimitAtItsEdge) {
  // The root counts as one table.
  int accepted = 0;
  File at_limit = ops_file(kVerifierMaxTables - 1);
  EXPECT_TRUE(agree(at_limit, at_limit.size(), &accepted));
  EXPECT_EQ(accepted, 1);
  File over = ops_file(kVerifierMaxTables);
  EXPECT_TRUE(agree(over, over.size(), &accepted));
  EXPECT_EQ(accepted, 1);
}

TEST(ProgramStructureTest, RejectsWhatTheRuntimeAddsToFlatbuffers) {
  // A vector-of-tables element with offset 0 (the table on its own offset).
  File f = build(valid_spec());
  auto* ops = reinterpret_cast<const uint8_t*>(fbs::GetProgram(f.data())->ops());
  const size_t first = static_cast<size_t>(ops - f.data()) + 4;
  flatbuffers::WriteScalar<uint32_t>(f.data() + first, 0);
  EXPECT_FALSE(internal::check_structure(f.span()));
  EXPECT_FALSE(testing::reference_structure_ok(f.span().data(), f.size()));
}

}  // namespace
}  // namespace ember::rt
