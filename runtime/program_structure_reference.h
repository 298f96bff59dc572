//===- program_structure_reference.h - flatbuffers::Verifier as the oracle --===//
//
// Test-only (program_structure_test.cc, fuzz/program_fuzzer.cc; never linked into firmware):
// the structure check the runtime ran before program_structure.cc replaced it, kept verbatim
// as the reference that check_structure must agree with on every input. It is the
// flatbuffers-generated VerifyProgramBuffer, preceded by a pass that checks in integer
// arithmetic that every element of the root's vectors of tables points inside the file
// (flatbuffers::Verifier::VerifyVectorOfTables forms those pointers before range-checking
// them, which is undefined behaviour when the sum wraps a 32-bit address space).

#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ember/runtime/program.h"
#include "ember/schema/program_generated.h"

namespace ember::rt::testing {

inline uint32_t reference_load_u32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

// Sizes are below 2^31 (checked by the caller), so no sum here wraps a size_t.
inline bool reference_table_vectors_in_file(const uint8_t* f, size_t size, uint32_t root) {
  const int32_t soffset = static_cast<int32_t>(reference_load_u32(f + root));
  const int64_t vtable = int64_t{root} - soffset;
  if (vtable < 0 || vtable + 4 > static_cast<int64_t>(size)) return false;
  const uint8_t* vt = f + vtable;
  const size_t vt_size = static_cast<size_t>(vt[0] | (vt[1] << 8));
  if (vt_size < 4 || static_cast<size_t>(vtable) + vt_size > size) return false;
  constexpr uint32_t kFields[] = {3, 6};  // Program.ops, regions (schema order)
  for (uint32_t field : kFields) {
    const size_t entry = 4 + 2 * field;
    if (entry + 2 > vt_size) continue;  // field absent
    const size_t field_off = static_cast<size_t>(vt[entry] | (vt[entry + 1] << 8));
    if (field_off == 0) continue;
    const size_t at = root + field_off;
    if (at > size - 4) return false;
    const uint32_t rel = reference_load_u32(f + at);
    if (rel == 0 || rel > size - 4 - at) return false;
    const size_t vec = at + rel;
    const uint32_t n = reference_load_u32(f + vec);
    if (n > (size - 4 - vec) / 4) return false;
    for (uint32_t i = 0; i < n; ++i) {
      const size_t elem = vec + 4 + 4 * size_t{i};
      const uint32_t off = reference_load_u32(f + elem);
      if (off == 0 || off >= size - elem) return false;
    }
  }
  return true;
}

/// Whether the old structure check accepts `size` bytes at `file`.
inline bool reference_structure_ok(const uint8_t* file, size_t size) {
  if (file == nullptr || size < 8 || size >= FLATBUFFERS_MAX_BUFFER_SIZE) return false;
  const uint32_t root = reference_load_u32(file);
  if (root > size - 4 || !reference_table_vectors_in_file(file, size, root)) return false;
  flatbuffers::Verifier::Options options;
  options.max_depth = kVerifierMaxDepth;
  options.max_tables = kVerifierMaxTables;
  options.check_alignment = true;
  flatbuffers::Verifier verifier(file, size, options);
  return schema::VerifyProgramBuffer(verifier);
}

}  // namespace ember::rt::testing
