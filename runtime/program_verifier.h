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

#include "ember/runtime/kernel_registry.h"
#include "ember/runtime/op_context.h"
#include "ember/runtime/span.h"
#include "ember/runtime/status.h"

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

/// Tensor `index`'s name ("" when the program names none), for messages and input_info.
const char* tensor_name(const schema::Program& program, uint32_t index);

/// The bits of the tensor's scale: 0 for a tensor without quantization (verified: no -0).
uint32_t scale_bits(const schema::Tensor& tensor);

/// Byte size of a tensor whose shape the verifier accepted (cannot overflow then).
uint32_t tensor_bytes(const schema::Tensor& tensor);

/// The in-place distance of a row-streaming op (docs/memory.md, "In place"): the largest
/// (q + 1) * pixel - first_row(q - block + 1) * in_row over its width x height output pixels q,
/// where the first input row read by output row r is clamp(r * stride - pad, 0, in_h). In
/// closed form (six rows); stride >= 1, block >= 1, and the byte products fit
/// in 32 bits (the verified tensors' sizes).
uint32_t row_stream_need(uint32_t width, uint32_t height, uint32_t block, uint32_t stride, int64_t pad,
                         uint32_t in_h, uint32_t in_row, uint32_t pixel);

}  // namespace ember::rt::internal
