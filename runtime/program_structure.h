//===- program_structure.h - Flatbuffers structure check of a program file -===//
//
// Internal to the runtime (Program::load runs it through verify_file). It replaces the
// flatbuffers-generated Verify functions, which cost about 1.7 KiB of flash on a Cortex-M55,
// with one small loop over a static description of schema/program.fbs (program_structure.cc).
//
// The contract, checked by the differential mode of fuzz/program_fuzzer.cc on every input:
// check_structure accepts exactly the files that flatbuffers::Verifier (max depth
// kVerifierMaxDepth, max kVerifierMaxTables tables, alignment checks on) accepts with
// VerifyProgramBuffer, minus two shapes the generated code would let through and the runtime
// never writes: a root vtable shorter than 4 bytes, and an element of a vector of tables whose
// offset is 0 (a table on top of its own offset). Like the flatbuffers verifier it does all
// offset arithmetic on integers, in 32 bits, so nothing can wrap a 32-bit address space.
//
// Nothing recurses: nested tables are walked with a fixed stack of frames, one per nesting
// level of the schema (3 today: Program, Tensor, Quantization).

#pragma once

#include <stdint.h>
#include <string.h>

#include "ember/runtime/span.h"

namespace ember::rt::internal {

/// Whether the 4 bytes after the root offset are the identifier "EMB1" (`file` holds at least
/// 8 bytes). The same test as flatbuffers::BufferHasIdentifier, without pulling in strncmp.
inline bool has_program_identifier(const uint8_t* file) {
  uint32_t id;  // one comparison; memcpy, as the file may sit at any address here
  memcpy(&id, file + 4, sizeof id);
  return id == ('E' | 'M' << 8 | 'B' << 16 | uint32_t{'1'} << 24);  // little-endian (program_verifier.cc)
}

/// Whether `file` is a structurally sound Program flatbuffer: identifier "EMB1", size below
/// 2 GiB, every offset, vtable, vector and string inside the file and aligned, strings
/// NUL-terminated, nesting and table count within limits. Reads nothing outside `file`.
bool check_structure(Span<const uint8_t> file);

}  // namespace ember::rt::internal
