//===- program_verifier.h - The load-time checks of a program file -------===//
//
// Internal to the runtime (Program::load is the interface). verify_file runs every check that
// needs only the file and the kernel table: identity, alignment, flatbuffers structure (program_structure.cc), then
// the meaning of each field (kinds, indices, shapes, sizes, bounds, signatures, quantization,
// op order). Program::load then asks each op's kernel to check its operands. The checks and the
// Status each returns are listed in docs/runtime.md.
//
// Nothing here recurses; every loop is bounded by a count the structure check
// (program_structure.h) has proven to lie inside the file.

#pragma once

#include <stdint.h>

#include "runtime/kernel_registry.h"
#include "runtime/op_context.h"
#include "runtime/span.h"
#include "runtime/status.h"

namespace ember::schema {
struct Program;
struct Tensor;
}  // namespace ember::schema

namespace ember::rt::internal {

/// Verifies `file` against `kernels`; on Ok sets `*root` to the program table.
Status verify_file(Span<const uint8_t> file, const KernelTable& kernels,
                   const schema::Program** root);

/// Bytes of one element of `dtype` (a known dtype).
inline uint32_t dtype_bytes(DType dtype) { return dtype == DType::Int8 ? 1u : 4u; }

/// Byte size of a tensor whose shape the verifier accepted (cannot overflow then).
uint32_t tensor_bytes(const schema::Tensor& tensor);

}  // namespace ember::rt::internal
