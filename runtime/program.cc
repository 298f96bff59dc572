//===- program.cc - Loading a program and reading it in place ------------===//
//
// load() runs the file checks (program_verifier.cc) and then each op's kernel check, which
// sees the same views the executor will build, except that arena operands point at a
// placeholder: checks look at shapes and parameters only, and a present operand must never
// look absent (absent = data nullptr), so the placeholder is a real, never-written address.

#include "ember/runtime/program.h"

#include <string.h>

#include "ember/runtime/log.h"
#include "ember/runtime/op_signatures.h"
#include "ember/runtime/program_verifier.h"
#include "ember/schema/program_generated.h"

namespace ember::rt {
namespace {

namespace fbs = ::ember::schema;

// Constant-initialised (no static constructor); read by no correct kernel check.
alignas(kDataAlignment) const uint8_t kUnboundData[kDataAlignment] = {};

// One operand's view. Inlined into both callers: this runs for every operand of every op at
// load and at each inference, so the tensor table is read once per op, all five dims are one
// block copy (those past the rank are 0, verified), and the view is written field by field
// (`*view = TensorView()` first would be a memset call).
EMBER_NOINLINE void bind(const flatbuffers::Vector<const fbs::Tensor*>& tensors, const uint8_t* constants,
                              int32_t tensor, Span<const Span<uint8_t>> regions, TensorView* view) {
  if (tensor < 0) {  // absent optional operand
    *view = TensorView();
    return;
  }
  const fbs::Tensor& t = *tensors.Get(static_cast<uint32_t>(tensor));
  static_assert(sizeof view->dims == sizeof(int32_t) * kMaxRank, "dims are copied as one block");
  memcpy(view->dims, t.dims()->Data(), sizeof view->dims);
  view->rank = t.rank();  // <= kMaxRank (verified)
  view->dtype = static_cast<DType>(t.dtype());
  const bool constant = t.storage() == fbs::Storage::Constant;
  view->constant = constant;
  // Kernels never write inputs; the view type is shared with outputs, hence the casts.
  view->data = constant         ? const_cast<uint8_t*>(constants + t.offset())
               : regions.empty() ? const_cast<uint8_t*>(kUnboundData)
                                 : regions[t.region()].data() + t.offset();
}

}  // namespace

Status Program::load(Span<const uint8_t> file, const KernelTable& kernels, Program* out) {
  if (out == nullptr) return Status::InvalidState;
  *out = Program();
  const schema::Program* root = nullptr;
  EMBER_RETURN_IF_ERROR(internal::verify_file(file, kernels, &root));

  Program p;
  p.root_ = root;
  p.kernels_ = kernels;
  p.file_ = file;
  if (root->constant_data() != nullptr) p.constants_ = root->constant_data()->Data();
  EMBER_RETURN_IF_ERROR(p.check_kernels());
  *out = p;
  return Status::Ok;
}

// Out of line, so its operand views (kMaxOpInputs + kMaxOpOutputs of them, most of the frame)
// are never on the stack together with verify_file's frames: the load's worst-case stack is
// the larger of the two paths, not their sum (ember.stack_usage).
EMBER_NOINLINE Status Program::check_kernels() const {
  OperandViews<kMaxOpInputs> inputs;
  OperandViews<kMaxOpOutputs> outputs;
  for (size_t i = 0; i < num_ops(); ++i) {
    OpContext ctx;
    bind_op(i, Span<const Span<uint8_t>>(), inputs.at, outputs.at, &ctx);
    const Status status = kernels_.entries[op_kernel(i)].check(ctx);
    EMBER_CHECK_OR_RETURN(status == Status::Ok, status,
                          "op %" PRIu32 " (%s): kernel check failed: %s",
                          static_cast<uint32_t>(i), op_source(i), to_string(status));
  }
  return Status::Ok;
}

size_t Program::num_inputs() const { return root_ ? root_->inputs()->size() : 0; }
size_t Program::num_outputs() const { return root_ ? root_->outputs()->size() : 0; }
size_t Program::num_tensors() const { return root_ ? root_->tensors()->size() : 0; }
size_t Program::num_ops() const { return root_ ? root_->ops()->size() : 0; }
size_t Program::num_regions() const {
  return root_ && root_->regions() ? root_->regions()->size() : 0;
}

const char* Program::region_name(size_t index) const {
  if (index >= num_regions()) return "";
  const flatbuffers::String* name = root_->regions()->Get(static_cast<uint32_t>(index))->name();
  return name ? name->c_str() : "";
}

uint32_t Program::region_size(size_t index) const {
  if (index >= num_regions()) return 0;
  return root_->regions()->Get(static_cast<uint32_t>(index))->size();
}

uint16_t Program::op_kernel(size_t index) const {
  if (index >= num_ops()) return 0xFFFF;
  return root_->ops()->Get(static_cast<uint32_t>(index))->kernel();
}

const char* Program::op_source(size_t index) const {
  if (index >= num_ops()) return "";
  const flatbuffers::String* s = root_->ops()->Get(static_cast<uint32_t>(index))->source();
  return s ? s->c_str() : "";
}

Status Program::input_info(size_t index, TensorInfo* info) const {
  return io_info(true, index, info);
}
Status Program::output_info(size_t index, TensorInfo* info) const {
  return io_info(false, index, info);
}

Status Program::io_info(bool input, size_t index, TensorInfo* info) const {
  if (root_ == nullptr || info == nullptr) return Status::InvalidState;
  const flatbuffers::Vector<int32_t>* list = input ? root_->inputs() : root_->outputs();
  if (index >= list->size()) return Status::RuntimeIndex;
  const uint32_t tensor = static_cast<uint32_t>(list->Get(static_cast<uint32_t>(index)));
  const fbs::Tensor& t = *root_->tensors()->Get(tensor);
  TensorInfo r;
  r.rank = t.rank();
  for (uint8_t d = 0; d < r.rank; ++d) r.dims[d] = t.dims()->Get(d);
  r.dtype = static_cast<DType>(t.dtype());
  r.bytes = internal::tensor_bytes(t);
  r.quantized = internal::scale_bits(t) != 0;
  r.scale = t.scale();
  r.zero_point = t.zero_point();
  r.name = internal::tensor_name(*root_, tensor);
  *info = r;
  return Status::Ok;
}

void Program::bind_tensor(int32_t tensor, Span<const Span<uint8_t>> regions,
                          TensorView* view) const {
  bind(*root_->tensors(), constants_, tensor, regions, view);
}

void Program::bind_op(size_t index, Span<const Span<uint8_t>> regions, TensorView* inputs,
                      TensorView* outputs, OpContext* ctx) const {
  const fbs::Op& op = *root_->ops()->Get(static_cast<uint32_t>(index));
  const flatbuffers::Vector<const fbs::Tensor*>& tensors = *root_->tensors();
  // Each accessor is a vtable lookup: read the operand lists once.
  const flatbuffers::Vector<int32_t>& ins = *op.inputs();
  const flatbuffers::Vector<int32_t>& outs = *op.outputs();
  const uint32_t ni = ins.size(), no = outs.size();
  for (uint32_t i = 0; i < ni; ++i) bind(tensors, constants_, ins.Get(i), regions, &inputs[i]);
  for (uint32_t i = 0; i < no; ++i) bind(tensors, constants_, outs.Get(i), regions, &outputs[i]);
  ctx->inputs = inputs;
  ctx->num_inputs = ni;
  ctx->outputs = outputs;
  ctx->num_outputs = no;
  // Zero-copy: the verifier has checked these vectors are inside the file and 4-byte aligned.
  const flatbuffers::Vector<int32_t>* ints = op.ints();
  ctx->ints = ints ? ints->data() : nullptr;
  ctx->num_ints = ints ? ints->size() : 0;
  const flatbuffers::Vector<float>* floats = op.floats();
  ctx->floats = floats ? floats->data() : nullptr;
  ctx->num_floats = floats ? floats->size() : 0;
  ctx->rows_bottom_up = op.rows_bottom_up();
}

KernelFn Program::run_fn(size_t op) const {
  return kernels_.entries[root_->ops()->Get(static_cast<uint32_t>(op))->kernel()].run;
}

}  // namespace ember::rt
