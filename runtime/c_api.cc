//===- c_api.cc - The C API of ember.h over Program and Executor ----------===//
//
// Each C storage struct holds a slot: a state word saying a C API call constructed the slot,
// then the C++ object. The state word lets every call tell storage that ember_program_load or
// ember_executor_init never touched (a zeroed static, or stack garbage that is not the word)
// from a constructed object, and answer InvalidState instead of following its pointers.

#include "ember/runtime/ember.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <new>
#include <type_traits>

#include "ember/runtime/executor.h"
#include "ember/runtime/program.h"
#include "ember/runtime/status.h"

namespace ember::rt {
namespace {

// Arbitrary, unlikely as leftover bytes, different per type so one cannot pass for the other.
constexpr uint32_t kProgramConstructed = 0x50726f67;   // "Prog"
constexpr uint32_t kExecutorConstructed = 0x45786563;  // "Exec"

struct ProgramSlot {
  uint32_t state = kProgramConstructed;
  Program program;
};

struct ExecutorSlot {
  uint32_t state = kExecutorConstructed;
  Executor executor;
  // The executor's program, for the tensor descriptions (Executor keeps it private).
  const Program* program = nullptr;
};

// The state word is read as bytes at offset 0 before any object is known to live there, which
// standard layout makes the first member's address.
static_assert(std::is_standard_layout_v<ProgramSlot> && offsetof(ProgramSlot, state) == 0);
static_assert(std::is_standard_layout_v<ExecutorSlot> && offsetof(ExecutorSlot, state) == 0);
static_assert(std::is_trivially_destructible_v<ProgramSlot> &&
              std::is_trivially_destructible_v<ExecutorSlot>,
              "C code never destroys the storage");
static_assert(sizeof(ProgramSlot) <= EMBER_PROGRAM_STORAGE,
              "EMBER_PROGRAM_STORAGE is too small for Program on this target");
static_assert(alignof(ProgramSlot) <= alignof(ember_program),
              "ember_program is less aligned than Program on this target");
static_assert(sizeof(ExecutorSlot) <= EMBER_EXECUTOR_STORAGE,
              "EMBER_EXECUTOR_STORAGE is too small for Executor on this target");
static_assert(alignof(ExecutorSlot) <= alignof(ember_executor),
              "ember_executor is less aligned than Executor on this target");

#define EMBER_STATUS(name, value, id, message)                                         \
  static_assert(static_cast<int>(EMBER_STATUS_##name) == static_cast<int>(Status::name)); \
  static_assert(value != 0xFF, "0xFF stands for a value that is no code");
#include "ember/runtime/status.def"
#undef EMBER_STATUS

static_assert(EMBER_DTYPE_INT8 == static_cast<int>(DType::Int8) &&
              EMBER_DTYPE_INT32 == static_cast<int>(DType::Int32) &&
              EMBER_DTYPE_FLOAT32 == static_cast<int>(DType::Float32));
static_assert(EMBER_MAX_RANK == kMaxRank);

ember_status to_c(Status status) { return static_cast<ember_status>(status); }

uint32_t state_of(const unsigned char* bytes) {
  uint32_t state;
  memcpy(&state, bytes, sizeof state);
  return state;
}

// The Program in `p`, or null when `p` is null or holds no constructed slot.
const Program* program_of(const ember_program* p) {
  if (p == nullptr || state_of(p->opaque.bytes) != kProgramConstructed) return nullptr;
  return &std::launder(reinterpret_cast<const ProgramSlot*>(p->opaque.bytes))->program;
}

ExecutorSlot* slot_of(ember_executor* e) {
  if (e == nullptr || state_of(e->opaque.bytes) != kExecutorConstructed) return nullptr;
  return std::launder(reinterpret_cast<ExecutorSlot*>(e->opaque.bytes));
}
const ExecutorSlot* slot_of(const ember_executor* e) {
  return slot_of(const_cast<ember_executor*>(e));
}

ember_status count(const ember_program* p, size_t* out, size_t (Program::*get)() const) {
  if (out == nullptr) return to_c(Status::InvalidState);
  *out = 0;
  const Program* program = program_of(p);
  if (program == nullptr || !program->loaded()) return to_c(Status::InvalidState);
  *out = (program->*get)();
  return to_c(Status::Ok);
}

ember_status describe(const ember_executor* e, bool input, size_t index, ember_tensor* out) {
  if (out == nullptr) return to_c(Status::InvalidState);
  *out = ember_tensor{};
  out->name = "";
  const ExecutorSlot* slot = slot_of(e);
  if (slot == nullptr) return to_c(Status::InvalidState);
  TensorView view;
  // The executor answers first: InvalidState when unbound (slot->program is then stale or null).
  const Status s = input ? slot->executor.input(index, &view) : slot->executor.output(index, &view);
  if (s != Status::Ok) return to_c(s);
  TensorInfo info;
  const Status i = input ? slot->program->input_info(index, &info)
                         : slot->program->output_info(index, &info);
  if (i != Status::Ok) return to_c(i);
  out->data = view.data;
  out->bytes = info.bytes;
  for (size_t d = 0; d < kMaxRank; ++d) out->dims[d] = info.dims[d];
  out->rank = info.rank;
  out->dtype = static_cast<ember_dtype>(info.dtype);
  out->quantized = info.quantized;
  out->scale = info.scale;  // copied, never computed with (docs/portability.md)
  out->zero_point = info.zero_point;
  out->name = info.name;
  return to_c(Status::Ok);
}

}  // namespace
}  // namespace ember::rt

using ember::rt::Executor;
using ember::rt::ExecutorSlot;
using ember::rt::KernelTable;
using ember::rt::Program;
using ember::rt::ProgramSlot;
using ember::rt::Span;
using ember::rt::Status;
using ember::rt::to_c;

extern "C" {

const char* ember_status_string(ember_status status) {
  // A C caller may pass any int; one past uint8_t must not wrap onto a real code.
  const int value = static_cast<int>(status);
  return ember::rt::to_string(static_cast<Status>(value >= 0 && value < 0xFF ? value : 0xFF));
}

ember_status ember_program_load(const uint8_t* file, size_t size, const ember_kernel_table* kernels,
                                ember_program* program) {
  if (program == nullptr) return to_c(Status::InvalidState);
  ProgramSlot* slot = new (program->opaque.bytes) ProgramSlot();
  if (file == nullptr || kernels == nullptr) return to_c(Status::InvalidState);
  // An ember_kernel_table is a KernelTable: the C header only names the type.
  const KernelTable& table = *reinterpret_cast<const KernelTable*>(kernels);
  return to_c(Program::load(Span<const uint8_t>(file, size), table, &slot->program));
}

ember_status ember_program_num_inputs(const ember_program* program, size_t* count) {
  return ember::rt::count(program, count, &Program::num_inputs);
}
ember_status ember_program_num_outputs(const ember_program* program, size_t* count) {
  return ember::rt::count(program, count, &Program::num_outputs);
}
ember_status ember_program_num_regions(const ember_program* program, size_t* count) {
  return ember::rt::count(program, count, &Program::num_regions);
}
ember_status ember_program_num_ops(const ember_program* program, size_t* count) {
  return ember::rt::count(program, count, &Program::num_ops);
}

ember_status ember_program_region_size(const ember_program* program, size_t index, size_t* bytes) {
  size_t regions = 0;
  const ember_status s = ember_program_num_regions(program, &regions);
  if (bytes == nullptr) return to_c(Status::InvalidState);
  *bytes = 0;
  if (s != EMBER_STATUS_Ok) return s;
  if (index >= regions) return to_c(Status::RuntimeIndex);
  *bytes = ember::rt::program_of(program)->region_size(index);
  return to_c(Status::Ok);
}

ember_status ember_executor_init(ember_executor* executor, const ember_program* program,
                                 const ember_region* regions, size_t num_regions) {
  if (executor == nullptr) return to_c(Status::InvalidState);
  ExecutorSlot* slot = new (executor->opaque.bytes) ExecutorSlot();
  const Program* p = ember::rt::program_of(program);
  if (p == nullptr || (regions == nullptr && num_regions != 0)) return to_c(Status::InvalidState);
  // One span more than any program has regions, so that Executor::init itself answers a list
  // that is too long (ShapeMismatch), after its own earlier checks.
  Span<uint8_t> spans[ember::rt::kMaxRegions + 1];
  const size_t most = ember::rt::kMaxRegions + 1;
  const size_t n = num_regions < most ? num_regions : most;
  for (size_t r = 0; r < n; ++r) spans[r] = Span<uint8_t>(regions[r].data, regions[r].size);
  const Status s = slot->executor.init(*p, Span<const Span<uint8_t>>(spans, n));
  if (s == Status::Ok) slot->program = p;
  return to_c(s);
}

ember_status ember_executor_set_input(ember_executor* executor, size_t index, const void* data,
                                      size_t bytes) {
  ExecutorSlot* slot = ember::rt::slot_of(executor);
  if (slot == nullptr) return to_c(Status::InvalidState);
  return to_c(slot->executor.set_input(index, data, bytes));
}

ember_status ember_executor_input(const ember_executor* executor, size_t index,
                                  ember_tensor* tensor) {
  return ember::rt::describe(executor, true, index, tensor);
}

ember_status ember_executor_output(const ember_executor* executor, size_t index,
                                   ember_tensor* tensor) {
  return ember::rt::describe(executor, false, index, tensor);
}

ember_status ember_executor_run(ember_executor* executor) {
  ExecutorSlot* slot = ember::rt::slot_of(executor);
  if (slot == nullptr) return to_c(Status::InvalidState);
  return to_c(slot->executor.run());
}

ember_status ember_executor_run_op(ember_executor* executor, size_t index) {
  ExecutorSlot* slot = ember::rt::slot_of(executor);
  if (slot == nullptr) return to_c(Status::InvalidState);
  return to_c(slot->executor.run_op(index));
}

}  // extern "C"
