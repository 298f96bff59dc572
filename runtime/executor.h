//===- executor.h - Runs a verified program over caller-provided memory --===//
//
// The executor binds a loaded Program to the memory regions the application provides and runs
// its ops in order. It allocates nothing: arena tensors live in the regions at the offsets the
// compiler planned, constants stay in the program file, and each op's operand views are built
// on the stack (at most kMaxOpInputs + kMaxOpOutputs views, a bound the verifier enforces).
//
// Typical use:
//   alignas(16) static uint8_t sram[kSramBytes];
//   Span<uint8_t> regions[] = {Span<uint8_t>(sram)};
//   Program program;  Executor exec;
//   EMBER_RETURN_IF_ERROR(Program::load(file, kernel_table, &program));
//   EMBER_RETURN_IF_ERROR(exec.init(program, regions));
//   EMBER_RETURN_IF_ERROR(exec.set_input(0, image, image_bytes));
//   EMBER_RETURN_IF_ERROR(exec.run());
//   TensorView out;  exec.output(0, &out);  // out.data points into sram

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ember/runtime/op_context.h"
#include "ember/runtime/program.h"
#include "ember/runtime/span.h"
#include "ember/runtime/status.h"

namespace ember::rt {

class Executor {
 public:
  /// An executor bound to nothing; every call but init() returns InvalidState.
  /// Constant-initialisable, so it can be a static with no static constructor.
  ///
  /// Ownership and lifetimes: init() keeps a pointer to the Program (which points into the
  /// program file and the kernel table) and copies the region spans (pointer and size), not the
  /// memory they describe. The Program, the file, the kernel table and every region's memory
  /// must outlive the Executor or the next init(). The application owns the region memory;
  /// the executor writes to it only inside set_input() and run(). Not thread-safe: one
  /// executor runs one inference at a time; two executors need two sets of regions.
  constexpr Executor() = default;

  /// Binds `program` (which must be loaded) to `regions`, one per program region, in program
  /// order. Each region's memory must start 16-byte aligned (else Misaligned) and hold at
  /// least Program::region_size(i) bytes (else ArenaTooSmall). Fewer regions than the program
  /// needs is ArenaTooSmall; more is ShapeMismatch. The planned bytes of the regions must
  /// overlap neither each other nor the program file (else OverlappingMemory). On failure the
  /// executor is unbound.
  Status init(const Program& program, Span<const Span<uint8_t>> regions);

  /// Copies `bytes` bytes from `data` into program input `index`. RuntimeIndex when `index` is
  /// out of range, ShapeMismatch when `bytes` is not the tensor's byte size or data is null.
  Status set_input(size_t index, const void* data, size_t bytes);

  /// Zero-copy access: the view of input/output `index`, data bound into the regions. A caller
  /// may fill inputs through the view instead of set_input(). Valid until the next init().
  Status input(size_t index, TensorView* view) const;
  Status output(size_t index, TensorView* view) const;

  /// Runs every op in order and returns the first kernel error, if any.
  Status run();
  /// Runs op `index` alone, so firmware can service a watchdog between ops. The result
  /// equals run() only when ops 0..num_ops()-1 are run in order.
  Status run_op(size_t index);

  size_t num_ops() const { return program_ ? program_->num_ops() : 0; }

 private:
  Status bind_io(bool input, size_t index, TensorView* view) const;

  const Program* program_ = nullptr;
  Span<uint8_t> regions_[kMaxRegions] = {};
  size_t num_regions_ = 0;
};

}  // namespace ember::rt
