//===- executor.cc - Runs a verified program over caller-provided memory -===//
//
// Everything here trusts the verifier: tensor and region indices, operand counts and byte
// sizes were checked at load, so the only checks left are on what the caller passes in.

#include "ember/runtime/executor.h"

#include <string.h>

#include "ember/runtime/log.h"
#include "ember/runtime/op_signatures.h"
#include "ember/schema/program_generated.h"

namespace ember::rt {
namespace {

// Whether [a, a + a_size) and [b, b + b_size) share no byte. Unsigned distances, so no sum can
// wrap whatever addresses the caller passes.
bool apart(const void* a, size_t a_size, const void* b, size_t b_size) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return a_size == 0 || b_size == 0 || (x - y >= b_size && y - x >= a_size);
}

}  // namespace

Status Executor::init(const Program& program, Span<const Span<uint8_t>> regions) {
  program_ = nullptr;
  num_regions_ = 0;
  EMBER_CHECK_OR_RETURN(program.loaded(), Status::InvalidState, "executor: program not loaded");
  const size_t needed = program.num_regions();
  EMBER_CHECK_OR_RETURN(regions.size() >= needed, Status::ArenaTooSmall,
                        "executor: %" PRIu32 " regions given, program needs %" PRIu32,
                        static_cast<uint32_t>(regions.size()), static_cast<uint32_t>(needed));
  EMBER_CHECK_OR_RETURN(regions.size() == needed, Status::ShapeMismatch,
                        "executor: %" PRIu32 " regions given, program has %" PRIu32,
                        static_cast<uint32_t>(regions.size()), static_cast<uint32_t>(needed));
  for (size_t r = 0; r < needed; ++r) {
    EMBER_CHECK_OR_RETURN(
        reinterpret_cast<uintptr_t>(regions[r].data()) % kDataAlignment == 0,
        Status::Misaligned, "executor: region %" PRIu32 " not 16-byte aligned",
        static_cast<uint32_t>(r));
    EMBER_CHECK_OR_RETURN(regions[r].size() >= program.region_size(r) &&
                              (regions[r].data() != nullptr || program.region_size(r) == 0),
                          Status::ArenaTooSmall,
                          "executor: region %" PRIu32 " (%s) has %" PRIu32 " bytes, needs %" PRIu32,
                          static_cast<uint32_t>(r), program.region_name(r),
                          static_cast<uint32_t>(regions[r].size()), program.region_size(r));
  }
  // The contract says regions and the file are apart; a caller that breaks it would have the
  // first set_input overwrite the flatbuffer the executor then reads. Only the bytes the plan
  // uses count.
  for (size_t r = 0; r < needed; ++r) {
    const uint8_t* base = regions[r].data();
    const size_t size = program.region_size(r);
    EMBER_CHECK_OR_RETURN(apart(base, size, program.file_.data(), program.file_.size()),
                          Status::OverlappingMemory, "executor: region %" PRIu32 " overlaps the program file",
                          static_cast<uint32_t>(r));
    for (size_t q = 0; q < r; ++q)
      EMBER_CHECK_OR_RETURN(apart(base, size, regions[q].data(), program.region_size(q)),
                            Status::OverlappingMemory, "executor: regions %" PRIu32 " and %" PRIu32 " overlap",
                            static_cast<uint32_t>(q), static_cast<uint32_t>(r));
  }
  for (size_t r = 0; r < needed; ++r) regions_[r] = regions[r];
  num_regions_ = needed;
  program_ = &program;
  return Status::Ok;
}

Status Executor::bind_io(bool input, size_t index, TensorView* view) const {
  EMBER_CHECK_OR_RETURN(program_ != nullptr && view != nullptr, Status::InvalidState,
                        "executor: not initialised");
  const size_t n = input ? program_->num_inputs() : program_->num_outputs();
  EMBER_CHECK_OR_RETURN(index < n, Status::RuntimeIndex,
                        "executor: %s %" PRIu32 " of %" PRIu32, input ? "input" : "output",
                        static_cast<uint32_t>(index), static_cast<uint32_t>(n));
  const schema::Program& p = *program_->root_;
  const flatbuffers::Vector<int32_t>& list = input ? *p.inputs() : *p.outputs();
  program_->bind_tensor(list.Get(static_cast<uint32_t>(index)),
                        Span<const Span<uint8_t>>(regions_, num_regions_), view);
  return Status::Ok;
}

Status Executor::input(size_t index, TensorView* view) const {
  return bind_io(true, index, view);
}

Status Executor::output(size_t index, TensorView* view) const {
  return bind_io(false, index, view);
}

Status Executor::set_input(size_t index, const void* data, size_t bytes) {
  TensorView view;
  EMBER_RETURN_IF_ERROR(bind_io(true, index, &view));
  // num_elements() cannot overflow: the verifier bounded the byte size by 32 bits.
  const size_t expected = view.num_elements() * (view.dtype == DType::Int8 ? 1u : 4u);
  EMBER_CHECK_OR_RETURN(bytes == expected && (data != nullptr || bytes == 0),
                        Status::ShapeMismatch,
                        "executor: input %" PRIu32 " takes %" PRIu32 " bytes, got %" PRIu32,
                        static_cast<uint32_t>(index), static_cast<uint32_t>(expected),
                        static_cast<uint32_t>(bytes));
  if (bytes != 0) memcpy(view.data, data, bytes);
  return Status::Ok;
}

Status Executor::run_op(size_t index) {
  EMBER_CHECK_OR_RETURN(program_ != nullptr, Status::InvalidState, "executor: not initialised");
  EMBER_CHECK_OR_RETURN(index < program_->num_ops(), Status::RuntimeIndex,
                        "executor: op %" PRIu32 " out of range", static_cast<uint32_t>(index));
  OperandViews<kMaxOpInputs> inputs;
  OperandViews<kMaxOpOutputs> outputs;
  OpContext ctx;
  program_->bind_op(index, Span<const Span<uint8_t>>(regions_, num_regions_), inputs.at,
                    outputs.at, &ctx);
  // An op whose output holds no element writes nothing (output 1 is a scratch no op reads), so
  // it is not run: a kernel's loops over the output's other axes could take billions of turns
  // (a fuzzed file's [1610629121, 16, 0, 6] kept a broadcast loop busy for minutes).
  if (outputs.at[0].num_elements() == 0) return Status::Ok;
  const Status status = program_->run_fn(index)(ctx);
  EMBER_CHECK_OR_RETURN(status == Status::Ok, status, "op %" PRIu32 " (%s) failed: %s",
                        static_cast<uint32_t>(index), program_->op_source(index),
                        to_string(status));
  return Status::Ok;
}

Status Executor::run() {
  EMBER_CHECK_OR_RETURN(program_ != nullptr, Status::InvalidState, "executor: not initialised");
  const size_t n = program_->num_ops();
  for (size_t i = 0; i < n; ++i) EMBER_RETURN_IF_ERROR(run_op(i));
  return Status::Ok;
}

}  // namespace ember::rt
