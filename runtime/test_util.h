//===- test_util.h - Program files and a fake kernel table for tests -----===//
//
// Runtime tests build their program files in the test with flatbuffers::FlatBufferBuilder from
// a ProgramSpec, a plain description that each test mutates into one malformation. The kernel
// table is fake (three tiny int8 kernels at real kernels.def ids), so these tests do not depend
// on the kernels library. Host only: uses the heap and the standard library.

#pragma once

#include <stdint.h>
#include <string.h>

#include <ostream>
#include <string>
#include <vector>

#include "ember/runtime/kernel_registry.h"
#include "ember/runtime/op_signatures.h"
#include "ember/runtime/span.h"
#include "ember/schema/program_generated.h"

namespace ember::rt {
/// Lets GoogleTest print a Status by name.
inline void PrintTo(Status s, std::ostream* os) {
  *os << to_string(s) << " (" << static_cast<int>(s) << ")";
}
}  // namespace ember::rt

namespace ember::rt::test {

namespace fbs = ::ember::schema;

struct TensorSpec {
  std::vector<int32_t> shape = {1, 4};  // the rank is its size; dims past kMaxRank are dropped
  int rank = -1;                         // >= 0: written as the rank instead (dims past it kept)
  fbs::DType dtype = fbs::DType::Int8;
  fbs::Storage storage = fbs::Storage::Arena;
  uint8_t region = 0;
  uint32_t offset = 0;
  float scale = 0;  // 0: not quantized
  int32_t zero_point = 0;
  int32_t view_of = -1;
  std::string name;
};

struct OpSpec {
  KernelId kernel = KernelId::copy;
  uint16_t raw_kernel = 0xFFFF;  // overrides `kernel` when not 0xFFFF
  std::vector<int32_t> inputs, outputs, ints;
  std::vector<float> floats;
  bool has_inputs = true;
  std::string source;
};

struct ProgramSpec {
  uint32_t version = kSchemaVersion;
  std::vector<TensorSpec> tensors;
  bool has_tensors = true;
  std::vector<OpSpec> ops;
  std::vector<int32_t> inputs, outputs;
  std::vector<uint32_t> region_sizes;
  std::vector<uint8_t> constants;
  size_t constant_alignment = 16;
  size_t pad_before_constants = 0;  // a string of this length, to shift the constants
  std::vector<uint16_t> kernels;
  int32_t peak_op = -1;
};

/// A finished file copied to 16-byte aligned storage (plus `shift` bytes, to misalign it).
class File {
 public:
  explicit File(const uint8_t* data, size_t size, size_t shift = 0)
      : storage_(size + 32 + shift), size_(size) {
    uintptr_t base = reinterpret_cast<uintptr_t>(storage_.data());
    offset_ = static_cast<size_t>((16 - base % 16) % 16) + shift;
    memcpy(storage_.data() + offset_, data, size);
  }
  uint8_t* data() { return storage_.data() + offset_; }
  size_t size() const { return size_; }
  Span<const uint8_t> span() const { return {storage_.data() + offset_, size_}; }
  Span<const uint8_t> prefix(size_t n) const { return {storage_.data() + offset_, n}; }

 private:
  std::vector<uint8_t> storage_;
  size_t offset_ = 0;
  size_t size_;
};

inline File build(const ProgramSpec& s, size_t shift = 0) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<fbs::Tensor> tensors;
  std::string names;  // NUL-ended, in tensor order
  bool named = false;
  for (const TensorSpec& t : s.tensors) {
    int32_t dims[kMaxRank] = {};
    for (size_t d = 0; d < t.shape.size() && d < kMaxRank; ++d) dims[d] = t.shape[d];
    tensors.emplace_back(flatbuffers::span<const int32_t, kMaxRank>(dims), t.offset, t.view_of,
                         t.scale, t.zero_point, t.region,
                         static_cast<uint8_t>(t.rank >= 0 ? t.rank : static_cast<int>(t.shape.size())),
                         t.dtype, t.storage, fbs::Layout::AsModel);
    names += t.name;
    names += '\0';
    named = named || !t.name.empty();
  }
  std::vector<flatbuffers::Offset<fbs::Op>> ops;
  for (const OpSpec& o : s.ops) {
    const uint16_t id = o.raw_kernel != 0xFFFF ? o.raw_kernel : static_cast<uint16_t>(o.kernel);
    ops.push_back(fbs::CreateOpDirect(b, id, o.has_inputs ? &o.inputs : nullptr, &o.outputs,
                                      o.ints.empty() ? nullptr : &o.ints,
                                      o.floats.empty() ? nullptr : &o.floats,
                                      o.source.empty() ? nullptr : o.source.c_str()));
  }
  std::vector<flatbuffers::Offset<fbs::Region>> regions;
  for (size_t i = 0; i < s.region_sizes.size(); ++i)
    regions.push_back(fbs::CreateRegionDirect(b, ("region" + std::to_string(i)).c_str(),
                                              s.region_sizes[i]));
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> constants;
  if (!s.constants.empty()) {
    b.ForceVectorAlignment(s.constants.size(), 1, s.constant_alignment);
    constants = b.CreateVector(s.constants);
  }
  // Built back to front: a string made after the constants lies before them in the file.
  if (s.pad_before_constants) b.CreateString(std::string(s.pad_before_constants, 'x'));
  flatbuffers::Offset<flatbuffers::Vector<const fbs::Tensor*>> tv;
  if (s.has_tensors) tv = b.CreateVectorOfStructs(tensors);
  flatbuffers::Offset<flatbuffers::String> nv;
  if (named) nv = b.CreateString(names);
  auto ov = b.CreateVector(ops);
  auto root = fbs::CreateProgram(b, s.version, tv, nv, ov, b.CreateVector(s.inputs),
                                 b.CreateVector(s.outputs), b.CreateVector(regions),
                                 b.CreateVector(s.kernels), constants, 0, s.peak_op);
  fbs::FinishProgramBuffer(b, root);
  return File(b.GetBufferPointer(), b.GetSize(), shift);
}

/// A valid program: t1 = copy(t0) (the fake adds one), t2 = add_f32(t1, t3), where t0 is the
/// int8 [1,4] input, t3 the constant {10, 20, 30, 40} and t2 the output. One 48-byte region.
inline ProgramSpec valid_spec() {
  ProgramSpec s;
  TensorSpec in;
  in.scale = 0.5f;
  in.zero_point = 3;
  in.name = "x";
  TensorSpec mid;
  mid.offset = 16;
  TensorSpec out;
  out.offset = 32;
  TensorSpec k;
  k.storage = fbs::Storage::Constant;
  s.tensors = {in, mid, out, k};
  OpSpec add_one;
  add_one.inputs = {0};
  add_one.outputs = {1};
  add_one.source = "aten.add.Tensor model.py:3";
  OpSpec add;
  add.kernel = KernelId::add_f32;
  add.inputs = {1, 3};
  add.outputs = {2};
  add.floats = {0.f, 0.f};
  s.ops = {add_one, add};
  s.inputs = {0};
  s.outputs = {2};
  s.region_sizes = {48};
  s.constants = {10, 20, 30, 40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  s.kernels = {static_cast<uint16_t>(KernelId::copy), static_cast<uint16_t>(KernelId::add_f32)};
  return s;
}

// Fake kernels: int8 elementwise, shapes must match (else BadShape, which the tests use to see
// a check's status propagate).
inline bool same_int8_shape(const TensorView& a, const TensorView& b) {
  if (a.dtype != DType::Int8 || b.dtype != DType::Int8 || a.rank != b.rank) return false;
  for (uint8_t d = 0; d < a.rank; ++d)
    if (a.dims[d] != b.dims[d]) return false;
  return true;
}
inline Status check_add_one(const OpContext& c) {
  return same_int8_shape(c.in(0), c.out(0)) ? Status::Ok : Status::BadShape;
}
inline Status run_add_one(const OpContext& c) {
  for (size_t i = 0; i < c.out(0).num_elements(); ++i)
    c.out(0).as<int8_t>()[i] = static_cast<int8_t>(c.in(0).as<int8_t>()[i] + 1);
  return Status::Ok;
}
inline Status check_add(const OpContext& c) {
  if (!c.has_input(0) || !c.has_input(1)) return Status::BadOpSignature;
  return same_int8_shape(c.in(0), c.out(0)) && same_int8_shape(c.in(1), c.out(0))
             ? Status::Ok
             : Status::BadShape;
}
inline Status run_add(const OpContext& c) {
  for (size_t i = 0; i < c.out(0).num_elements(); ++i)
    c.out(0).as<int8_t>()[i] =
        static_cast<int8_t>(c.in(0).as<int8_t>()[i] + c.in(1).as<int8_t>()[i]);
  return Status::Ok;
}
inline Status check_any(const OpContext&) { return Status::Ok; }
inline Status run_nothing(const OpContext&) { return Status::Ok; }

/// The fake table: copy, add_f32 and cat_s8 linked, everything else null (not linked).
struct FakeKernels {
  KernelEntry entries[kNumKnownKernels] = {};
  FakeKernels() {
    entries[static_cast<size_t>(KernelId::copy)] = {check_add_one, run_add_one};
    entries[static_cast<size_t>(KernelId::add_f32)] = {check_add, run_add};
    entries[static_cast<size_t>(KernelId::cat_s8)] = {check_any, run_nothing};
  }
  KernelTable table() const { return {entries, kNumKnownKernels}; }
};

}  // namespace ember::rt::test
