//===- program.h - Verified, zero-copy view of a program file ------------===//
//
// A Program is what Program::load accepted: a flatbuffers program file (schema/program.fbs)
// that passed every check in docs/runtime.md, read in place. Loading copies nothing and
// allocates nothing; the accessors read the file through the generated flatbuffers accessors.
// A file that fails any check is rejected with the Status naming the class of malformation,
// and the Program stays empty. There is no "minimal" mode: every check runs on every target.
//
// Ownership: the Program points into the file and into the kernel table. Both must outlive
// the Program and every Executor initialised from it. The file must not change after load.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/kernel_registry.h"
#include "ember/runtime/op_context.h"
#include "ember/runtime/span.h"
#include "ember/runtime/status.h"

namespace ember::schema {
struct Program;  // generated from schema/program.fbs; kept out of this header
}

namespace ember::rt {

/// The schema version this runtime reads (Program.version). Bump with any change of meaning.
inline constexpr uint32_t kSchemaVersion = 3;
/// Memory regions a program may ask for (TCM, SRAM, ... per target).
inline constexpr size_t kMaxRegions = 4;
/// Alignment of the file, its constant data, each constant and each region base.
inline constexpr size_t kDataAlignment = 16;
/// Structure limits, those of flatbuffers::Verifier as the runtime configured it before its own
/// check (program_structure.cc) replaced it. The schema nests tables 3 deep (checked at compile
/// time against this limit); the table count bounds the check's work.
inline constexpr uint32_t kVerifierMaxDepth = 16;
inline constexpr uint32_t kVerifierMaxTables = 100000;
/// Tensors and ops a program may hold (bounds the verifier's work; the zoo's largest model
/// has a few hundred of each).
inline constexpr uint32_t kMaxTensors = 8192;
inline constexpr uint32_t kMaxOps = 8192;

/// Description of one program input or output.
struct TensorInfo {
  int32_t dims[kMaxRank] = {};
  uint8_t rank = 0;
  DType dtype = DType::Int8;
  /// Bytes of the tensor's data (fits in 32 bits, verified).
  uint32_t bytes = 0;
  /// Whether the tensor carries quantization; scale and zero_point are its first entries
  /// (inputs and outputs are per-tensor in practice), 0 when unquantized.
  bool quantized = false;
  float scale = 0;
  int32_t zero_point = 0;
  /// NUL-terminated name from the file, "" when absent.
  const char* name = "";
};

class Program {
 public:
  /// An empty program (loaded() is false). Constant-initialisable: fine as a static.
  constexpr Program() = default;

  /// Verifies `file` and, on success, makes `*out` a view of it that uses `kernels`. On any
  /// failure `*out` is left empty and the Status names the first check that failed. `file`
  /// must start 16-byte aligned. Both `file` and `kernels.entries` must outlive `*out`.
  static Status load(Span<const uint8_t> file, const KernelTable& kernels, Program* out);

  bool loaded() const { return root_ != nullptr; }

  size_t num_inputs() const;
  size_t num_outputs() const;
  /// RuntimeIndex when `index` is out of range, InvalidState when not loaded.
  Status input_info(size_t index, TensorInfo* info) const;
  Status output_info(size_t index, TensorInfo* info) const;

  size_t num_regions() const;
  /// Name ("" when absent or out of range) and exact size in bytes (0 when out of range) of
  /// memory region `index`; the executor needs a buffer at least this large for it.
  const char* region_name(size_t index) const;
  uint32_t region_size(size_t index) const;

  size_t num_tensors() const;
  size_t num_ops() const;
  /// Kernel id (position in kernels/kernels.def) of op `index`; 0xFFFF when out of range.
  uint16_t op_kernel(size_t index) const;
  /// The op's source string (aten op and user file:line), "" when absent or out of range.
  const char* op_source(size_t index) const;

 private:
  friend class Executor;

  /// Fills `view` for tensor `tensor` (a verified index, or -1 for an absent operand). Arena
  /// data is bound into `regions`, or to a never-read placeholder when `regions` is empty.
  void bind_tensor(int32_t tensor, Span<const Span<uint8_t>> regions, TensorView* view) const;
  /// Fills the operand arrays (kMaxOpInputs / kMaxOpOutputs entries) and the context of op
  /// `index`, a verified index.
  void bind_op(size_t index, Span<const Span<uint8_t>> regions, TensorView* inputs,
               TensorView* outputs, OpContext* ctx) const;
  KernelFn run_fn(size_t op) const;
  /// Runs each op's kernel check (the last step of load).
  Status check_kernels() const;
  Status io_info(bool input, size_t index, TensorInfo* info) const;

  const schema::Program* root_ = nullptr;
  const uint8_t* constants_ = nullptr;
  Span<const uint8_t> file_{};  // the executor keeps regions off these bytes
  KernelTable kernels_{};
};

}  // namespace ember::rt
