//===- program_verifier.cc - The load-time checks of a program file ------===//
//
// Checks run in the order of docs/runtime.md, cheapest and most basic first, so the Status
// names the most fundamental problem: a truncated file is reported as Truncated even though
// its structure is also broken. After the structure check (program_structure.cc, which accepts
// what flatbuffers::Verifier accepts) every offset, vector and string is inside the file;
// everything after it checks what the fields mean.

#include "ember/runtime/program_verifier.h"

#include <stdint.h>
#include <string.h>

#include "ember/runtime/log.h"
#include "ember/runtime/op_signatures.h"
#include "ember/runtime/program.h"
#include "ember/runtime/program_structure.h"
#include "ember/schema/program_generated.h"

// Vectors of int32/float are handed to kernels in place, which needs the file's byte order.
static_assert(FLATBUFFERS_LITTLEENDIAN, "Ember reads program files in place: little-endian only");

namespace ember::rt::internal {
namespace {

namespace fbs = ::ember::schema;
using Tensors = flatbuffers::Vector<const fbs::Tensor*>;
using Names = flatbuffers::String;
using Ints = flatbuffers::Vector<int32_t>;

// Size arithmetic is 32-bit on purpose: it is what an MCU's size_t holds, so a file that
// passes on the host cannot wrap on the device.
bool mul_u32(uint32_t a, uint32_t b, uint32_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool add_u32(uint32_t a, uint32_t b, uint32_t* out) { return !__builtin_add_overflow(a, b, out); }

uint32_t u32(size_t n) { return static_cast<uint32_t>(n); }

// Tensor `index`'s name: the index-th NUL-ended entry of `names` ("" when there is none). The
// structure check has checked that a NUL follows the string's last byte, so no walk leaves it.
const char* name_of(const Names* names, uint32_t index) {
  if (names == nullptr) return "";
  const char* name = names->c_str();
  const char* const end = name + names->size();
  for (; index > 0 && name < end; --index) name += strlen(name) + 1;
  return name < end ? name : "";
}

template <typename T>
uint32_t count(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? 0 : v->size();
}

struct Limits {
  const Names* names;
  uint32_t num_tensors;
  uint32_t num_regions;
  uint32_t region_size[kMaxRegions];
  uint32_t constants_size;
  uint32_t placed[kMaxRegions];  // per region, past the last byte a tensor uses so far
};

Status check_header(const Span<const uint8_t>& file) {
  EMBER_CHECK_OR_RETURN(file.data() != nullptr && file.size() >= 8, Status::Truncated,
                        "program: %" PRIu32 " bytes, a header needs 8", u32(file.size()));
  EMBER_CHECK_OR_RETURN(has_program_identifier(file.data()), Status::BadIdentity,
                        "program: file identifier is not \"%s\"", fbs::ProgramIdentifier());
  EMBER_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(file.data()) % kDataAlignment == 0,
                        Status::Misaligned, "program: file not %" PRIu32 "-byte aligned",
                        u32(kDataAlignment));
  const uint32_t root = flatbuffers::ReadScalar<uint32_t>(file.data());
  EMBER_CHECK_OR_RETURN(root <= file.size() - 4, Status::Truncated,
                        "program: root table at %" PRIu32 " past the end (%" PRIu32 " bytes)",
                        root, u32(file.size()));
  EMBER_CHECK_OR_RETURN(check_structure(file), Status::BadStructure,
                        "program: flatbuffers structure check failed");
  return Status::Ok;
}

// Positive, finite and non-zero, tested on the bits (the core does no float arithmetic): sign
// 0, exponent below 0xFF, not +0. These are exactly the bit patterns 1 .. 0x7F7FFFFF, so one
// unsigned comparison does it.
bool valid_scale_bits(uint32_t bits) { return bits - 1u < 0x7F7FFFFFu; }

// Per tensor only: a program's per-channel scales are folded into its ops' multipliers and
// shifts, and the runtime reads one scale and zero point (input_info). Scale bits 0: not
// quantized, and then the zero point is 0.
Status check_quantization(uint32_t index, const fbs::Tensor& t) {
  const uint32_t scale = scale_bits(t);
  const int32_t zp = t.zero_point();
  EMBER_CHECK_OR_RETURN(scale == 0 ? zp == 0 : valid_scale_bits(scale), Status::BadQuantization,
                        "tensor %" PRIu32 ": scale not positive and finite, or a zero point "
                        "without a scale", index);
  EMBER_CHECK_OR_RETURN(t.dtype() != fbs::DType::Int8 || (zp >= -128 && zp <= 127),
                        Status::BadQuantization, "tensor %" PRIu32 ": zero point %" PRId32 " outside int8",
                        index, zp);
  return Status::Ok;
}

Status check_tensor(uint32_t index, const fbs::Tensor& t, Limits& lim) {
  const int dtype = static_cast<int>(t.dtype());
  EMBER_CHECK_OR_RETURN(dtype >= 0 && dtype <= static_cast<int>(fbs::DType::MAX),
                        Status::UnknownKind, "tensor %" PRIu32 ": dtype %d", index, dtype);
  const int storage = static_cast<int>(t.storage());
  EMBER_CHECK_OR_RETURN(storage >= 0 && storage <= static_cast<int>(fbs::Storage::MAX),
                        Status::UnknownKind, "tensor %" PRIu32 ": storage %d", index, storage);
  const uint32_t rank = t.rank();
  EMBER_CHECK_OR_RETURN(rank <= kMaxRank, Status::BadShape,
                        "tensor %" PRIu32 ": rank %" PRIu32 " > %" PRIu32, index, rank,
                        u32(kMaxRank));
  // One pass: every dim non-negative and those past the rank 0 (BadShape first; the executor
  // copies all five into an operand's view), then the byte size, which a zero dim makes 0
  // whatever a product of the others did.
  const uint32_t elem = dtype_bytes(static_cast<DType>(dtype));
  uint32_t bytes = elem;
  bool empty = false, overflow = false;
  for (uint32_t d = 0; d < kMaxRank; ++d) {
    const int32_t dim = t.dims()->Get(d);
    EMBER_CHECK_OR_RETURN(d < rank ? dim >= 0 : dim == 0, Status::BadShape,
                          "tensor %" PRIu32 " '%s': dim %" PRIu32 " is %" PRId32, index,
                          name_of(lim.names, index), d, dim);
    if (d >= rank) continue;
    empty = empty || dim == 0;
    overflow = overflow || !mul_u32(bytes, static_cast<uint32_t>(dim), &bytes);
  }
  EMBER_CHECK_OR_RETURN(empty || !overflow, Status::SizeOverflow,
                        "tensor %" PRIu32 " '%s': byte size overflows", index, name_of(lim.names, index));
  if (empty) bytes = 0;
  EMBER_RETURN_IF_ERROR(check_quantization(index, t));

  uint32_t end = 0;
  EMBER_CHECK_OR_RETURN(add_u32(t.offset(), bytes, &end), Status::SizeOverflow,
                        "tensor %" PRIu32 " '%s': offset + size overflows", index, name_of(lim.names, index));
  if (t.storage() == fbs::Storage::Constant) {
    EMBER_CHECK_OR_RETURN(t.offset() % kDataAlignment == 0, Status::Misaligned,
                          "tensor %" PRIu32 ": constant offset %" PRIu32 " not aligned", index,
                          t.offset());
    EMBER_CHECK_OR_RETURN(end <= lim.constants_size, Status::DataOutOfBounds,
                          "tensor %" PRIu32 " '%s': bytes [%" PRIu32 ", %" PRIu32
                          ") past constant data (%" PRIu32 " bytes)",
                          index, name_of(lim.names, index), t.offset(), end, lim.constants_size);
  } else {
    EMBER_CHECK_OR_RETURN(t.region() < lim.num_regions, Status::BadIndex,
                          "tensor %" PRIu32 ": region %" PRIu32 " of %" PRIu32, index,
                          uint32_t{t.region()}, lim.num_regions);
    // Region bases are 16-byte aligned, so this makes every element naturally aligned
    // (Cortex-M0 faults on unaligned word access).
    EMBER_CHECK_OR_RETURN((t.offset() & (elem - 1)) == 0, Status::Misaligned,  // elem: 1 or 4
                          "tensor %" PRIu32 ": offset %" PRIu32 " not aligned", index,
                          t.offset());
    EMBER_CHECK_OR_RETURN(end <= lim.region_size[t.region()], Status::BadPlan,
                          "tensor %" PRIu32 " '%s': bytes [%" PRIu32 ", %" PRIu32
                          ") past region %" PRIu32 " (%" PRIu32 " bytes)",
                          index, name_of(lim.names, index), t.offset(), end, uint32_t{t.region()},
                          lim.region_size[t.region()]);
    if (end > lim.placed[t.region()]) lim.placed[t.region()] = end;
  }
  return Status::Ok;
}

// A view re-reads bytes of another arena tensor under its own shape: all of them (a reshape), or
// a window (an NPU partition's output inside its scratch). Same region, inside the source's
// bytes, and the source is no view itself (no chains to follow on the device). A view outside
// its source is a placement error (BadPlan).
Status check_view(uint32_t index, const fbs::Tensor& t, const Tensors& ts, const Names* names) {
  const int32_t v = t.view_of();
  if (v == -1) return Status::Ok;
  EMBER_CHECK_OR_RETURN(v >= 0 && static_cast<uint32_t>(v) < ts.size(), Status::BadIndex,
                        "tensor %" PRIu32 ": view of tensor %" PRId32, index, v);
  const fbs::Tensor& src = *ts.Get(static_cast<uint32_t>(v));
  // Offset plus bytes fits 32 bits for every tensor (check_tensor ran on all before this).
  EMBER_CHECK_OR_RETURN(t.storage() == fbs::Storage::Arena && src.storage() == fbs::Storage::Arena &&
                            src.view_of() == -1 && src.region() == t.region() && src.offset() <= t.offset() &&
                            t.offset() + tensor_bytes(t) <= src.offset() + tensor_bytes(src),
                        Status::BadPlan, "tensor %" PRIu32 " '%s': not a valid view of tensor %" PRId32,
                        index, name_of(names, index), v);
  return Status::Ok;
}

// The arena tensor whose bytes `t` uses: itself, or the source of a view (verified: one level).
int32_t buffer_of(const Tensors& ts, int32_t t) {
  if (t < 0) return t;
  const int32_t v = ts.Get(static_cast<uint32_t>(t))->view_of();
  return v >= 0 ? v : t;
}

bool count_ok(int8_t expected, uint32_t actual, uint32_t variadic_max) {
  if (expected >= 0) return actual == static_cast<uint32_t>(expected);
  return actual >= 1 && actual <= variadic_max;
}

Status check_op(uint32_t index, const fbs::Op& op, const Tensors& ts,
                const KernelTable& kernels) {
  const uint16_t id = op.kernel();
  EMBER_CHECK_OR_RETURN(id < kNumKnownKernels, Status::UnknownKind,
                        "op %" PRIu32 ": kernel id %" PRIu32, index, uint32_t{id});
  EMBER_CHECK_OR_RETURN(op.inputs() != nullptr && op.outputs() != nullptr, Status::MissingField,
                        "op %" PRIu32 ": no operand list", index);
  const OpSignature sig = op_signature(id);
  // Each accessor is a vtable lookup: read the operand lists once.
  const flatbuffers::Vector<int32_t>& ins = *op.inputs();
  const flatbuffers::Vector<int32_t>& outs = *op.outputs();
  const uint32_t ni = ins.size(), no = outs.size();
  const uint32_t nints = count(op.ints()), nfloats = count(op.floats());
  EMBER_CHECK_OR_RETURN(count_ok(sig.inputs, ni, kMaxVariadicInputs) &&
                            count_ok(sig.outputs, no, kMaxOpOutputs) &&
                            (sig.ints < 0 || nints == static_cast<uint32_t>(sig.ints)) &&
                            (sig.floats < 0 || nfloats == static_cast<uint32_t>(sig.floats)),
                        Status::BadOpSignature,
                        "op %" PRIu32 ": %" PRIu32 " inputs, %" PRIu32 " outputs, %" PRIu32
                        " ints, %" PRIu32 " floats do not match kernel %" PRIu32,
                        index, ni, no, nints, nfloats, uint32_t{id});
  const uint32_t nt = ts.size();
  for (uint32_t i = 0; i < ni; ++i) {
    const int32_t t = ins.Get(i);
    EMBER_CHECK_OR_RETURN((t == -1 && input_may_be_absent(static_cast<KernelId>(id), i)) ||
                              (t >= 0 && static_cast<uint32_t>(t) < nt),
                          Status::BadIndex, "op %" PRIu32 ": input %" PRIu32 " is %" PRId32,
                          index, i, t);
  }
  for (uint32_t i = 0; i < no; ++i) {
    const int32_t t = outs.Get(i);
    EMBER_CHECK_OR_RETURN(t >= 0 && static_cast<uint32_t>(t) < nt, Status::BadIndex,
                          "op %" PRIu32 ": output %" PRIu32 " is %" PRId32, index, i, t);
    const fbs::Tensor& out = *ts.Get(static_cast<uint32_t>(t));
    EMBER_CHECK_OR_RETURN(out.storage() == fbs::Storage::Arena && out.view_of() == -1,
                          Status::BadGraph, "op %" PRIu32 ": writes constant or view tensor %" PRId32,
                          index, t);
    // The same tensor (or a view of it) as input and output of one op: kernels read their
    // inputs while writing, so this is never a valid signature (in-place execution uses two
    // tensors planned at the same bytes, which check_graph_and_plan allows only where marked).
    // t is no view (checked above), so an input shares its bytes exactly when its buffer is t.
    for (uint32_t j = 0; j < ni; ++j) {
      EMBER_CHECK_OR_RETURN(buffer_of(ts, ins.Get(j)) != t, Status::BadOpSignature,
                            "op %" PRIu32 ": tensor %" PRId32 " is both input %" PRIu32
                            " and output %" PRIu32,
                            index, t, j, i);
    }
  }
  const bool linked = kernels.entries != nullptr && id < kernels.size &&
                      kernels.entries[id].check != nullptr && kernels.entries[id].run != nullptr;
  EMBER_CHECK_OR_RETURN(linked, Status::KernelNotLinked,
                        "op %" PRIu32 ": kernel %" PRIu32 " not linked", index, uint32_t{id});
  return Status::Ok;
}

Status check_io(const flatbuffers::Vector<int32_t>& list, const Tensors& ts,
                const char* what) {
  const uint32_t nt = ts.size();
  for (uint32_t i = 0; i < list.size(); ++i) {
    const int32_t t = list.Get(i);
    EMBER_CHECK_OR_RETURN(t >= 0 && static_cast<uint32_t>(t) < nt, Status::BadIndex,
                          "program %s %" PRIu32 " is tensor %" PRId32, what, i, t);
    EMBER_CHECK_OR_RETURN(
        ts.Get(static_cast<uint32_t>(t))->storage() == fbs::Storage::Arena,
        Status::BadGraph, "program %s %" PRIu32 " is a constant", what, i);
  }
  return Status::Ok;
}

// Whether the bytes of arena tensors a and b (verified, non-views) intersect. Both callers pass
// arena tensors only: op outputs and program inputs are (check_op, check_io), and so is the
// source of an arena view (check_view).
bool bytes_overlap(const fbs::Tensor& a, const fbs::Tensor& b) {
  if (a.region() != b.region()) return false;
  const uint32_t na = tensor_bytes(a), nb = tensor_bytes(b);
  if (na == 0 || nb == 0) return false;
  // offset + bytes fits in 32 bits (check_tensor).
  return a.offset() < b.offset() + nb && b.offset() < a.offset() + na;
}

// In place (docs/memory.md; the compiler's rules are compiler/in_place.h): an op may write its
// output over an input that dies at the op when its kernel never overwrites a byte it has yet
// to read. in_place_over says whether output `out` may overlap arena buffer b, an input's bytes
// (the input itself or the source of a view), under such a rule, and sets *delta to how far
// below b the output must start at least:
//  - elementwise kernels: an operand of the output's shape with elements at least as wide
//    (a broadcast operand is read many times), delta 0;
//  - row-streaming kernels (conv2d_s8, depthwise_conv2d_s8, max/avg_pool2d_s8), batch 1, NHWC:
//    output row r is written after reading input rows from max(0, r * stride - pad_top) on,
//    conv2d_s8 may finish 4 output pixels as one block, the others 1: output pixel q must end
//    below the first input row of the row of pixel q - block + 1 (kernels/kernels.def);
//  - conv2d_s8 and depthwise_conv2d_s8 with rows_bottom_up: the same rule mirrored (rows
//    last-first, output over the input's upper end). Read from the ends, pixel q counted from
//    the last and rows from the bottom, it is the top-down rule with the bottom padding in
//    place of pad_top, giving how far the output's end must lie above the input's end; *above
//    is set and *delta is then how far above the input's start the output must start.
// Operand counts and ints were checked against the kernel's signature before this runs. Only
// called for an output that overlaps a live buffer, so it costs nothing on a plan without
// in-place ops. Byte counts are 32-bit: each is at most a verified tensor's size.
// Each kernel's rule is kernels.def's in_place column (rt::kInPlaceRules); Unary and Binary
// are numbered 1 and 2, the count of inputs that may be overwritten.
static_assert(static_cast<int>(InPlaceRule::Unary) == 1 && static_cast<int>(InPlaceRule::Binary) == 2,
              "elementwise rules count their inputs");
// in_place_over reads ints[0 .. 4] of the row-streaming kernels unchecked: check_op has
// matched their count to the signature.
static_assert(op_signature(static_cast<size_t>(KernelId::conv2d_s8)).ints >= 5 &&
                  op_signature(static_cast<size_t>(KernelId::depthwise_conv2d_s8)).ints >= 5 &&
                  op_signature(static_cast<size_t>(KernelId::max_pool2d_s8)).ints >= 5 &&
                  op_signature(static_cast<size_t>(KernelId::avg_pool2d_s8)).ints >= 5,
              "the row-streaming kernels' ints");
static_assert(!input_may_be_absent(KernelId::conv2d_s8, 1) &&
                  !input_may_be_absent(KernelId::depthwise_conv2d_s8, 1),
              "the filter of a bottom-up op is required");

// Input i of an op (its inputs `ins`) when its bytes are arena buffer b's (b or a view of b),
// else nullptr.
const fbs::Tensor* input_over(const Tensors& ts, const Ints& ins, uint32_t i, int32_t b) {
  if (i >= ins.size() || buffer_of(ts, ins.Get(i)) != b) return nullptr;  // an absent -1 is no b
  return ts.Get(static_cast<uint32_t>(ins.Get(i)));
}

// The smallest r in [0, height] with r * stride > t (height if none), for row_stream_need: by
// bisection, as a 64-bit division would link the C library's. |t| < 2^63 - 2^33 (its callers).
EMBER_NOINLINE uint32_t first_row_above(uint32_t height, uint32_t stride, int64_t t) {
  uint32_t a = 0, b = height;
  while (a < b) {
    const uint32_t mid = a + (b - a) / 2;
    if (static_cast<int64_t>(uint64_t{mid} * stride) > t) b = mid;
    else a = mid + 1;
  }
  return a;
}

// row_stream_need (program_verifier.h), inlined into its one caller here.
EMBER_ALWAYS_INLINE uint32_t stream_need(uint32_t width, uint32_t height, uint32_t block, uint32_t stride,
                                         int64_t pad, uint32_t in_h, uint32_t in_row, uint32_t pixel) {
  // Output pixel q needs (q + 1) * pixel - first * in_row, where first is the first input row
  // read by row r = (q - block + 1) / width (0 before pixel 0). Per row r the last such pixel
  // needs the most: q + 1 = A(r) = min((r + 1) * width + block - 1, width * height). So the
  // need is the largest over the rows r of A(r) - first(r) * in_row, where A rises by width
  // per row up to row r_u, the last row below the cap, and then by less or not at all, and
  // first(r) = clamp(r * stride - pad, 0, in_h) is 0 before row r_lo, rises by stride per
  // row, and is in_h from row r_hi on. On the two flat pieces of first the need does not
  // fall, so its maximum there is at their last rows (r_lo - 1, height - 1); on the rising
  // piece its steps only shrink, so the maximum is at an end (r_lo, r_hi - 1) or where the
  // steps shrink (r_u, r_u + 1). ProgramTest.RowStreamNeedMatchesEveryPixel checks this
  // against every pixel.
  const uint32_t r_lo = first_row_above(height, stride, pad);
  const uint32_t r_hi = first_row_above(height, stride, pad + in_h - 1);
  const uint32_t total = width * height;  // < 2^32: the output's elements
  // r_u = height - 1 - ceil((block - 1) / width)
  const uint32_t r_u = height - 1 - (block == 1 ? 0 : (block - 2) / width + 1);
  uint32_t need = 0;
  // Unsigned: a row below 0 wraps past height and is skipped.
  for (uint32_t r : {r_lo - 1, r_lo, r_hi - 1, r_u, r_u + 1, height - 1}) {
    if (r >= height) continue;
    const uint32_t q = (r + 1) * width, rest = total - q;  // q <= total
    const uint32_t end = (q + (block - 1 < rest ? block - 1 : rest)) * pixel;
    // Between r_lo and r_hi, r * stride - pad lies in (0, in_h): exact in 32 bits.
    const uint32_t first = r < r_lo ? 0 : r >= r_hi ? in_h : r * stride - static_cast<uint32_t>(pad);
    const uint32_t start = first * in_row;
    if (end > start && end - start > need) need = end - start;
  }
  return need;
}

// Out of line: it runs only for an overlapping pair, and inlined into the sweep it made it
// spill more than the call costs.
EMBER_NOINLINE bool in_place_over(const Tensors& ts, const fbs::Op& op, uint32_t out, const fbs::Tensor& o,
                                  int32_t b, uint32_t* delta, bool* above) {
  *delta = 0;
  *above = op.rows_bottom_up();
  const InPlaceRule rule = kInPlaceRules[op.kernel()];  // a known id (check_op)
  // Only the result (output 0, `o`) may run in place; a second output (scratch) never
  // overlaps. Only conv2d_s8 and depthwise_conv2d_s8 run rows last-first: the flag on any
  // other op allows no overlap at all.
  if (out != 0 || rule == InPlaceRule::None ||
      (*above && rule != InPlaceRule::ConvRows && rule != InPlaceRule::DepthwiseRows))
    return false;
  // An NPU partition's scratch over its inputs, starting at or below each (the kernel moves an
  // input that is not at its place): b dies at this op, so it is one of the op's inputs.
  if (rule == InPlaceRule::Npu) return true;
  const Ints& ins = *op.inputs();  // each accessor is a vtable lookup: read them once
  const flatbuffers::Array<int32_t, kMaxRank>& os = *o.dims();
  const uint32_t elem = dtype_bytes(static_cast<DType>(o.dtype()));
  if (rule <= InPlaceRule::Binary) {  // elementwise: inputs 0 .. rule - 1
    for (uint32_t i = 0; i < static_cast<uint32_t>(rule); ++i) {
      const fbs::Tensor* t = input_over(ts, ins, i, b);
      // The same shape: the same rank and dims, all five (those past the rank are 0, check_tensor).
      if (t != nullptr && elem <= dtype_bytes(static_cast<DType>(t->dtype())) && t->rank() == o.rank() &&
          memcmp(t->dims(), &os, sizeof os) == 0)
        return true;
    }
    return false;
  }
  // ints (as many as the signature says, check_op): conv and depthwise {stride_h, stride_w,
  // pad_top, pad_left, dilation_h, ...}; pools {kh, kw, stride_h, stride_w, pad_top, ...}.
  const uint32_t stride_at = rule == InPlaceRule::PoolRows ? 2 : 0, block = rule == InPlaceRule::ConvRows ? 4 : 1;
  const fbs::Tensor* in = input_over(ts, ins, 0, b);
  if (in == nullptr) return false;
  const Ints& ints = *op.ints();
  const flatbuffers::Array<int32_t, kMaxRank>& is = *in->dims();
  const int32_t stride = ints.Get(stride_at);
  int64_t pad = ints.Get(stride_at + 2);
  if (in->rank() != 4 || o.rank() != 4 || is.Get(0) != 1 || os.Get(0) != 1 || stride < 1 ||
      pad < 0 || in->dtype() != o.dtype())
    return false;
  const uint32_t in_h = static_cast<uint32_t>(is.Get(1));
  const uint32_t in_row = static_cast<uint32_t>(is.Get(2)) * static_cast<uint32_t>(is.Get(3)) * elem;
  const uint32_t pixel = static_cast<uint32_t>(os.Get(3)) * elem;
  const uint32_t width = static_cast<uint32_t>(os.Get(2)), height = static_cast<uint32_t>(os.Get(1));
  if (*above) {
    // The bottom padding, from the window's height: the filter (input 1, required, so a
    // tensor index once present; OHWI or 1HWC, its rank is the kernel's check) and dilation_h
    // (ints[4]). 64-bit: hostile ints may be large; it may be negative (rows below the last
    // window are never read).
    if (ins.size() < 2 || height == 0) return false;
    const fbs::Tensor& fs = *ts.Get(static_cast<uint32_t>(ins.Get(1)));
    if (fs.rank() != 4) return false;
    pad = int64_t{height - 1} * stride + int64_t{ints.Get(4)} * (fs.dims()->Get(1) - 1) + 1 - in_h - pad;
  }
  uint32_t need = stream_need(width, height, block, static_cast<uint32_t>(stride), pad, in_h, in_row, pixel);
  if (*above) {  // end-to-end distance -> start-to-start distance, never below 0
    const int64_t rise = int64_t{need} + int64_t{in_h} * in_row - int64_t{height} * width * pixel;
    need = rise > 0 ? static_cast<uint32_t>(rise) : 0;  // <= the input's bytes
  }
  *delta = need;
  return true;
}

// Definition and last use of each tensor of [base, base + n) (times: -1 for a program input, the
// op's index, num_ops for a program output), from one pass over the ops. With `graph` it also
// checks the op order (docs/runtime.md rows 29, 29a, 30), tracked per tensor index, not per
// address: two tensors planned at the same bytes are still distinct values.
constexpr int16_t kNever = INT16_MAX;  // > kMaxOps
static_assert(kMaxOps < kNever, "op times must fit in int16_t");

// A program's lists, read once: each accessor is a vtable lookup.
struct Lists {
  const Tensors& ts;
  const flatbuffers::Vector<flatbuffers::Offset<fbs::Op>>& ops;
  const Ints& inputs;
  const Ints& outputs;
  const Names* names;
};

Status lifetimes(const Lists& l, uint32_t base, uint32_t n, bool graph, int16_t* first, int16_t* last) {
  const Tensors& ts = l.ts;
  for (uint32_t c = 0; c < n; ++c) first[c] = kNever, last[c] = -2;
  auto slot = [&](int32_t t) -> int32_t {
    return t >= 0 && static_cast<uint32_t>(t) - base < n ? static_cast<int32_t>(t - base) : -1;
  };
  auto arena = [&](int32_t t) {
    return ts.Get(static_cast<uint32_t>(t))->storage() == fbs::Storage::Arena;
  };
  for (int32_t t : l.inputs) {
    // The caller writes a program input, so the order check marks the tensor itself; its
    // bytes, for placement, are its source's if it is a view.
    const int32_t c = slot(graph ? t : buffer_of(ts, t));
    if (c >= 0) first[c] = -1, last[c] = -1;
  }
  const uint32_t nops = l.ops.size();
  for (uint32_t o = 0; o < nops; ++o) {
    const fbs::Op& op = *l.ops.Get(o);
    const int16_t time = static_cast<int16_t>(o);
    for (int32_t input : *op.inputs()) {
      const int32_t t = buffer_of(ts, input), c = slot(t);
      if (c < 0) continue;
      EMBER_CHECK_OR_RETURN(!graph || first[c] != kNever || !arena(t), Status::BadGraph,
                            "op %" PRIu32 ": reads tensor %" PRId32 " before any op writes it",
                            o, t);
      last[c] = time;
    }
    for (int32_t t : *op.outputs()) {
      const int32_t c = slot(t);
      if (c < 0) continue;
      // One writer per tensor (program inputs are written by the caller): lifetimes, and
      // with them the plan check, are then one interval per tensor.
      EMBER_CHECK_OR_RETURN(!graph || first[c] == kNever, Status::BadGraph,
                            "op %" PRIu32 ": writes tensor %" PRId32 ", already written", o, t);
      if (first[c] == kNever) first[c] = time;
      last[c] = time;
    }
  }
  for (int32_t output : l.outputs) {
    const int32_t t = buffer_of(ts, output), c = slot(t);
    if (c < 0) continue;
    EMBER_CHECK_OR_RETURN(!graph || first[c] != kNever, Status::BadGraph,
                          "program output tensor %" PRId32 " is never written", t);
    last[c] = static_cast<int16_t>(nops);
  }
  return Status::Ok;
}

// Op order, then placement. Placement: two arena buffers that are live at the same time must
// not share a byte. A buffer lives from its definition to its last use (the last op reading it
// or a view of it), both inclusive: an op's inputs and outputs are live together while it runs.
// Any two intersecting lifetimes contain the definition time of the later-defined buffer, so it
// suffices to check each definition against the buffers live at that time, which a sweep over
// the ops keeps in a list; only a pair whose bytes intersect asks whether the op runs in place.
// Lifetimes are kept for kChunk tensors at a time on the stack (320 bytes with the live list),
// one sweep over the ops per chunk. Only indices below `arena_end` (past the last arena tensor)
// can be live or written, so chunks from there on are skipped: the compiler numbers arena
// tensors first, and most models take one chunk. The work is O(arena_end / kChunk * (operands
// + definitions * live buffers)).
Status check_graph_and_plan(const Lists& l, uint32_t arena_end) {
  constexpr uint32_t kChunk = 64;
  const Tensors& ts = l.ts;
  const Names* names = l.names;
  const uint32_t nops = l.ops.size();
  int16_t first[kChunk], last[kChunk];
  uint8_t live[kChunk];  // slots of the chunk's buffers live at the sweep's time
  for (int pass = 0; pass < 2; ++pass) {  // every order check before any placement check
    for (uint32_t base = 0; base < arena_end; base += kChunk) {
      const uint32_t n = arena_end - base < kChunk ? arena_end - base : kChunk;
      EMBER_RETURN_IF_ERROR(lifetimes(l, base, n, pass == 0, first, last));
      if (pass == 0) continue;
      uint32_t m = 0;
      // Buffer `b`, defined at `time` by `op` (nullptr: a program input), against the chunk's
      // live buffers; then b joins them if it is one of the chunk's.
      auto define = [&](int32_t b, int32_t time, const fbs::Op* op, uint32_t out) -> Status {
        const fbs::Tensor& tb = *ts.Get(static_cast<uint32_t>(b));
        for (uint32_t k = 0; k < m; ++k) {
          const uint32_t c = live[k];
          const int32_t t = static_cast<int32_t>(base + c);
          if (t == b) continue;
          const fbs::Tensor& tt = *ts.Get(base + c);
          if (!bytes_overlap(tb, tt)) continue;
          uint32_t delta = 0;
          bool above = false;
          if (op != nullptr && last[c] == time && in_place_over(ts, *op, out, tb, t, &delta, &above)) {
            // In place over an input that dies here: starting at least delta bytes below it,
            // or with rows last-first at least delta bytes above its start.
            if (above ? uint64_t{tt.offset()} + delta <= tb.offset()
                      : delta <= tt.offset() && tb.offset() <= tt.offset() - delta)
              continue;
            EMBER_CHECK_OR_RETURN(false, Status::BadPlan,
                                  "tensor %" PRId32 " '%s' at %" PRIu32 " overlaps its input tensor %" PRId32
                                  " '%s' at %" PRIu32 " at op %" PRId32 "; %s in place needs it %" PRIu32
                                  " bytes %s",
                                  b, name_of(names, b), tb.offset(), t, name_of(names, t), tt.offset(), time,
                                  above ? "bottom-up" : "row-order", delta, above ? "above" : "below");
          }
          EMBER_CHECK_OR_RETURN(false, Status::BadPlan,
                                "tensor %" PRId32 " '%s' [%" PRIu32 ", +%" PRIu32 ") overlaps live "
                                "tensor %" PRId32 " '%s' [%" PRIu32 ", +%" PRIu32 ") at op %" PRId32,
                                b, name_of(names, b), tb.offset(), tensor_bytes(tb), t, name_of(names, t),
                                tt.offset(), tensor_bytes(tt), time);
        }
        // It joins once (a program input's buffer is defined again when two inputs view it);
        // the sweep needs no definition times after this.
        const uint32_t c = static_cast<uint32_t>(b) - base;
        if (c < n && first[c] == time) live[m++] = static_cast<uint8_t>(c), first[c] = kNever;
        return Status::Ok;
      };
      for (int32_t t : l.inputs) EMBER_RETURN_IF_ERROR(define(buffer_of(ts, t), -1, nullptr, 0));
      for (uint32_t o = 0; o < nops; ++o) {
        for (uint32_t k = 0; k < m;)  // buffers last used before op o leave the list
          if (last[live[k]] < static_cast<int32_t>(o)) live[k] = live[--m];
          else ++k;
        const fbs::Op& op = *l.ops.Get(o);
        const Ints& outs = *op.outputs();
        for (uint32_t i = 0; i < outs.size(); ++i)
          EMBER_RETURN_IF_ERROR(define(outs.Get(i), static_cast<int32_t>(o), &op, i));
      }
    }
  }
  return Status::Ok;
}

}  // namespace

uint32_t row_stream_need(uint32_t width, uint32_t height, uint32_t block, uint32_t stride, int64_t pad,
                         uint32_t in_h, uint32_t in_row, uint32_t pixel) {
  return stream_need(width, height, block, stride, pad, in_h, in_row, pixel);
}

const char* tensor_name(const schema::Program& program, uint32_t index) {
  return name_of(program.tensor_names(), index);
}

uint32_t scale_bits(const schema::Tensor& tensor) {
  const float scale = tensor.scale();
  uint32_t bits;
  memcpy(&bits, &scale, sizeof bits);
  return bits;
}

uint32_t tensor_bytes(const schema::Tensor& tensor) {
  uint32_t bytes = dtype_bytes(static_cast<DType>(tensor.dtype()));
  for (uint32_t d = 0; d < tensor.rank(); ++d) bytes *= static_cast<uint32_t>(tensor.dims()->Get(d));
  return bytes;
}

Status verify_file(Span<const uint8_t> file, const KernelTable& kernels,
                   const schema::Program** root) {
  EMBER_RETURN_IF_ERROR(check_header(file));
  const fbs::Program& p = *fbs::GetProgram(file.data());
  EMBER_CHECK_OR_RETURN(p.version() == kSchemaVersion, Status::BadIdentity,
                        "program: schema version %" PRIu32 ", runtime reads %" PRIu32,
                        p.version(), kSchemaVersion);
  const flatbuffers::Vector<uint8_t>* constants = p.constant_data();
  EMBER_CHECK_OR_RETURN(constants == nullptr ||
                            reinterpret_cast<uintptr_t>(constants->Data()) % kDataAlignment == 0,
                        Status::Misaligned, "program: constant data not %" PRIu32 "-byte aligned",
                        u32(kDataAlignment));
  const Tensors* tensors = p.tensors();
  const flatbuffers::Vector<flatbuffers::Offset<fbs::Op>>* op_list = p.ops();
  const Ints *inputs = p.inputs(), *outputs = p.outputs();
  EMBER_CHECK_OR_RETURN(tensors != nullptr && op_list != nullptr && inputs != nullptr && outputs != nullptr,
                        Status::MissingField, "program: tensors, ops, inputs or outputs missing");
  const Lists l{*tensors, *op_list, *inputs, *outputs, p.tensor_names()};
  const Tensors& ts = l.ts;
  const flatbuffers::Vector<flatbuffers::Offset<fbs::Op>>& ops = l.ops;

  // Bounds on the work of the checks below (check_graph_and_plan is O(tensors / 64 *
  // (operands + definitions * live buffers))); far above what a model for a microcontroller holds.
  EMBER_CHECK_OR_RETURN(ts.size() <= kMaxTensors && ops.size() <= kMaxOps,
                        Status::SizeOverflow,
                        "program: %" PRIu32 " tensors and %" PRIu32 " ops, limits %" PRIu32
                        " and %" PRIu32,
                        ts.size(), ops.size(), kMaxTensors, kMaxOps);
  // region_size is read only below num_regions (check_tensor): no need to zero the rest.
  Limits lim;
  const auto* regions = p.regions();
  lim.names = l.names;
  lim.num_tensors = ts.size();
  lim.num_regions = count(regions);
  lim.constants_size = count(constants);
  EMBER_CHECK_OR_RETURN(lim.num_regions <= kMaxRegions, Status::BadIndex,
                        "program: %" PRIu32 " regions, runtime supports %" PRIu32,
                        lim.num_regions, u32(kMaxRegions));
  for (uint32_t r = 0; r < lim.num_regions; ++r) lim.region_size[r] = regions->Get(r)->size(), lim.placed[r] = 0;
  const flatbuffers::Vector<uint16_t>* kernel_list = p.kernels();
  for (uint32_t i = 0; i < count(kernel_list); ++i) {
    EMBER_CHECK_OR_RETURN(kernel_list->Get(i) < kNumKnownKernels, Status::UnknownKind,
                          "program: kernel list names id %" PRIu32, uint32_t{kernel_list->Get(i)});
  }
  uint32_t arena_end = 0;  // past the last arena tensor
  for (uint32_t i = 0; i < lim.num_tensors; ++i) {
    const fbs::Tensor& t = *ts.Get(i);
    EMBER_RETURN_IF_ERROR(check_tensor(i, t, lim));
    if (t.storage() == fbs::Storage::Arena) arena_end = i + 1;
  }
  // A region may exceed its last byte only by the planner's rounding to 16 bytes. The host tools
  // allocate what a file states, so without this an 800-byte file could make them zero 4 GiB.
  for (uint32_t r = 0; r < lim.num_regions; ++r) {
    const uint32_t slack = lim.region_size[r] - lim.placed[r];  // placed <= size: check_tensor
    EMBER_CHECK_OR_RETURN(slack <= ((0u - lim.placed[r]) & 15u), Status::OversizedRegion,
                          "program: region %" PRIu32 " states %" PRIu32 " bytes, its tensors use %" PRIu32,
                          r, lim.region_size[r], lim.placed[r]);
  }
  for (uint32_t i = 0; i < lim.num_tensors; ++i)
    EMBER_RETURN_IF_ERROR(check_view(i, *ts.Get(i), ts, lim.names));
  EMBER_RETURN_IF_ERROR(check_io(l.inputs, ts, "input"));
  EMBER_RETURN_IF_ERROR(check_io(l.outputs, ts, "output"));
  for (uint32_t i = 0; i < ops.size(); ++i)
    EMBER_RETURN_IF_ERROR(check_op(i, *ops.Get(i), ts, kernels));
  EMBER_CHECK_OR_RETURN(static_cast<uint32_t>(p.peak_op()) + 1 <= ops.size(),  // -1 .. ops - 1
                        Status::BadIndex, "program: peak op %" PRId32, p.peak_op());
  EMBER_RETURN_IF_ERROR(check_graph_and_plan(l, arena_end));
  *root = &p;
  return Status::Ok;
}

}  // namespace ember::rt::internal
