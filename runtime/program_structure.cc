//===- program_structure.cc - Flatbuffers structure check of a program file -===//
//
// A table-driven copy of what the flatbuffers-generated Verify functions check, in a fraction
// of their flash: each Verify function is a chain of inline template calls, one per field,
// while here a field is two bytes of description and one loop reads them all. Each step names
// the flatbuffers::Verifier function (flatbuffers 2.0.8, verifier.h) whose checks it repeats,
// condition for condition, so that both accept the same files; fuzz/program_fuzzer.cc asserts
// that on every input it runs.

#include "ember/runtime/program_structure.h"

#include <stddef.h>
#include <string.h>

#include "ember/runtime/log.h"
#include "ember/runtime/program.h"
#include "ember/schema/program_generated.h"

namespace ember::rt::internal {
namespace {

namespace fbs = ::ember::schema;

// --- The description of schema/program.fbs --------------------------------------------------

// A field's kind in its high nibble; in the low nibble the byte size of a scalar or of a
// vector's element, a struct's size in words, or the index in kTables of a (vector of)
// table(s).
enum : uint8_t {
  kScalar = 0x00,
  kVector = 0x10,   // vector of scalars
  kString = 0x20,
  kTable = 0x30,
  kTableVector = 0x40,   // vector of tables
  kStructVector = 0x50,  // vector of structs
};
constexpr uint8_t scalar(uint8_t bytes) { return kScalar | bytes; }
constexpr uint8_t vector(uint8_t bytes) { return kVector | bytes; }
template <typename T>
constexpr uint8_t struct_vector() {
  static_assert(sizeof(T) % 4 == 0 && sizeof(T) / 4 < 16, "a struct of 4 to 60 bytes");
  return kStructVector | sizeof(T) / 4;
}

// Indices in kTables.
enum : uint8_t { kProgram, kOp, kRegion, kNumTables };

struct Field {
  uint8_t vt;    // the field's vtable slot: the generated VT_ constant
  uint8_t kind;
};

// One line per field, in schema order. Adding a field to schema/program.fbs means adding its
// line here; the static_asserts below fail the build until it is added, with the right kind.
constexpr Field kProgramFields[] = {
    {fbs::Program::VT_VERSION, scalar(4)},
    {fbs::Program::VT_TENSORS, struct_vector<fbs::Tensor>()},
    {fbs::Program::VT_TENSOR_NAMES, kString},
    {fbs::Program::VT_OPS, kTableVector | kOp},
    {fbs::Program::VT_INPUTS, vector(4)},
    {fbs::Program::VT_OUTPUTS, vector(4)},
    {fbs::Program::VT_REGIONS, kTableVector | kRegion},
    {fbs::Program::VT_KERNELS, vector(2)},
    {fbs::Program::VT_CONSTANT_DATA, vector(1)},
    {fbs::Program::VT_LOWER_BOUND, scalar(4)},
    {fbs::Program::VT_PEAK_OP, scalar(4)},
    {fbs::Program::VT_TARGET, kString},
};
constexpr Field kOpFields[] = {
    {fbs::Op::VT_KERNEL, scalar(2)},
    {fbs::Op::VT_INPUTS, vector(4)},
    {fbs::Op::VT_OUTPUTS, vector(4)},
    {fbs::Op::VT_INTS, vector(4)},
    {fbs::Op::VT_FLOATS, vector(4)},
    {fbs::Op::VT_SOURCE, kString},
    {fbs::Op::VT_KERNEL_NOTE, kString},
    {fbs::Op::VT_ROWS_BOTTOM_UP, scalar(1)},
};
constexpr Field kRegionFields[] = {
    {fbs::Region::VT_NAME, kString},
    {fbs::Region::VT_SIZE, scalar(4)},
};

struct Table {
  const Field* fields;
  uint8_t count;
};
template <size_t N>
constexpr Table table(const Field (&fields)[N]) {
  return {fields, static_cast<uint8_t>(N)};
}
constexpr Table kTables[kNumTables] = {table(kProgramFields), table(kOpFields),
                                       table(kRegionFields)};

// --- Compile-time ties to the generated code ---------------------------------------------------
//
// flatc writes one Create<Table>(builder, field...) function per table, with one parameter per
// field in slot order, typed by the field's kind. The description must list the same fields,
// in the same slots, with the same kinds: a field added to the schema and not here, a slot
// skipped, or a kind changed fails the build.

// The tables a field can hold (the root, Program, is never nested).
template <typename T> struct TableIndex;
template <> struct TableIndex<fbs::Op> { static constexpr uint8_t value = kOp; };
template <> struct TableIndex<fbs::Region> { static constexpr uint8_t value = kRegion; };

template <typename T> struct KindOf {  // a scalar or an enum
  static constexpr uint8_t value = scalar(sizeof(T));
};
template <> struct KindOf<flatbuffers::Offset<flatbuffers::String>> {
  static constexpr uint8_t value = kString;
};
template <typename T> struct KindOf<flatbuffers::Offset<flatbuffers::Vector<T>>> {
  static constexpr uint8_t value = vector(sizeof(T));
};
template <typename T> struct KindOf<flatbuffers::Offset<flatbuffers::Vector<const T*>>> {
  static constexpr uint8_t value = struct_vector<T>();
};
template <typename T>
struct KindOf<flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<T>>>> {
  static constexpr uint8_t value = kTableVector | TableIndex<T>::value;
};
template <typename T> struct KindOf<flatbuffers::Offset<T>> {
  static constexpr uint8_t value = kTable | TableIndex<T>::value;
};

template <typename F> struct CreateParams;
template <typename R, typename... Args>
struct CreateParams<R (*)(flatbuffers::FlatBufferBuilder&, Args...)> {
  static constexpr size_t count = sizeof...(Args);
  static constexpr uint8_t kinds[sizeof...(Args)] = {KindOf<Args>::value...};
};

template <typename Create, size_t N>
constexpr bool describes(const Field (&fields)[N]) {
  using P = CreateParams<Create>;
  if (P::count != N) return false;
  for (size_t i = 0; i < N; ++i) {
    if (fields[i].vt != 4 + 2 * i || fields[i].kind != P::kinds[i]) return false;
  }
  return true;
}

static_assert(describes<decltype(&fbs::CreateProgram)>(kProgramFields),
              "kProgramFields does not match table Program in schema/program.fbs");
static_assert(describes<decltype(&fbs::CreateOp)>(kOpFields),
              "kOpFields does not match table Op in schema/program.fbs");
static_assert(describes<decltype(&fbs::CreateRegion)>(kRegionFields),
              "kRegionFields does not match table Region in schema/program.fbs");

// The deepest chain of nested tables from the root (1 = the root alone), found by relaxation
// (no recursion, also at compile time). It sizes the walker's frame stack.
constexpr uint32_t schema_depth() {
  uint32_t depth[kNumTables] = {};
  depth[kProgram] = 1;
  uint32_t deepest = 1;
  for (uint32_t round = 0; round < kNumTables; ++round) {
    for (uint32_t t = 0; t < kNumTables; ++t) {
      if (depth[t] == 0) continue;
      for (uint32_t f = 0; f < kTables[t].count; ++f) {
        const uint8_t kind = kTables[t].fields[f].kind;
        if ((kind & 0xF0) != kTable && (kind & 0xF0) != kTableVector) continue;
        uint32_t& d = depth[kind & 0x0F];
        if (d < depth[t] + 1) d = depth[t] + 1;
        if (deepest < d) deepest = d;
      }
    }
  }
  return deepest;
}
constexpr uint32_t kSchemaDepth = schema_depth();
static_assert(kSchemaDepth <= kNumTables, "the schema nests a table inside itself");
// With the schema this shallow the flatbuffers depth limit can never be reached: the walker
// needs no depth counter, and agrees with the flatbuffers verifier on every file.
static_assert(kSchemaDepth <= kVerifierMaxDepth, "schema nests deeper than the verifier allows");

// Tables nest only as vectors of tables: no field is a single table, so the walker has no step
// that starts one (it would be dead code). A schema that adds such a field fails here.
constexpr bool has_table_field() {
  for (const Table& t : kTables)
    for (uint32_t f = 0; f < t.count; ++f)
      if ((t.fields[f].kind & 0xF0) == kTable) return true;
  return false;
}
static_assert(!has_table_field(), "a table field: give Walker::check_fields a step that starts it");

// --- The walker ---------------------------------------------------------------------------------

// flatbuffers' FLATBUFFERS_MIN_BUFFER_SIZE: root offset, vtable offset, two vtable sizes.
constexpr uint32_t kMinBufferSize = 4 + 4 + 2 + 2;

class Walker {
 public:
  explicit Walker(Span<const uint8_t> file)
      : buf_(file.data()), size_(static_cast<uint32_t>(file.size())) {}

  bool run();

 private:
  struct Frame {
    const Field* field;   // next field of this table to check
    const Field* end;
    uint32_t table;       // the table's offset in the file
    uint32_t vtable;
    uint32_t vsize;
    uint32_t element;     // a vector of tables being walked: its next element's offset,
    uint32_t left;        // elements left,
    uint8_t element_table;  // and their table
  };

  // The helpers below are forced inline: they run for every field, and as calls (-Os makes
  // them calls) they took a third of the walk's instructions.
  // Any alignment (Cortex-M0 faults on unaligned ldr).
  EMBER_ALWAYS_INLINE uint32_t u32(uint32_t at) const {
    uint32_t v;
    memcpy(&v, buf_ + at, sizeof v);
    return v;
  }
  EMBER_ALWAYS_INLINE uint32_t u16(uint32_t at) const {
    uint16_t v;
    memcpy(&v, buf_ + at, sizeof v);
    return v;
  }

  // Verifier::Verify(elem, len).
  EMBER_ALWAYS_INLINE bool in_file(uint32_t at, uint32_t len) const {
    return len < size_ && at <= size_ - len;
  }
  // Verifier::Verify<T>(elem): VerifyAlignment (relative to the buffer start) and range.
  EMBER_ALWAYS_INLINE bool aligned_in_file(uint32_t at, uint32_t len) const {
    return (at & (len - 1)) == 0 && in_file(at, len);
  }
  // Verifier::VerifyOffset(start): the target, or 0 when the offset is bad. start + o < 2^32
  // since both are below 2^31.
  EMBER_ALWAYS_INLINE uint32_t target(uint32_t at) const {
    if (!aligned_in_file(at, 4)) return 0;
    const uint32_t o = u32(at);
    if (o == 0 || o > 0x7FFFFFFFu || !in_file(at + o, 1)) return 0;
    return at + o;
  }
  // Verifier::VerifyVectorOrString(vec, elem_size), elem_size 1 to 60: *end is the offset
  // past the elements.
  bool vector_at(uint32_t at, uint32_t elem_size, uint32_t* count, uint32_t* end) const {
    if (!aligned_in_file(at, 4)) return false;
    const uint32_t n = u32(at);
    // n < FLATBUFFERS_MAX_BUFFER_SIZE / elem_size, without a division (a Cortex-M0 has no
    // divide instruction): n < floor(M / e) exactly when n * e <= M - e.
    static_assert(FLATBUFFERS_MAX_BUFFER_SIZE == 0x7FFFFFFF, "flatbuffers' 2 GiB limit");
    if (uint64_t{n} * elem_size > 0x7FFFFFFFu - elem_size) return false;
    const uint32_t bytes = 4 + elem_size * n;  // < 2^31 + 4
    *count = n;
    *end = at + bytes;
    return in_file(at, bytes);
  }
  // Verifier::VerifyTableStart(table), with VerifyComplexity's table count.
  bool start_table(uint32_t at, uint8_t table, Frame* frame) {
    if (!aligned_in_file(at, 4)) return false;
    // Unsigned, as in flatbuffers: a vtable "before" offset 0 wraps to above 2^31 and fails.
    const uint32_t vtable = at - u32(at);
    if (++tables_ > kVerifierMaxTables || !aligned_in_file(vtable, 2)) return false;
    const uint32_t vsize = u16(vtable);
    if ((vsize & 1) != 0 || !in_file(vtable, vsize)) return false;
    frame->field = kTables[table].fields;
    frame->end = kTables[table].fields + kTables[table].count;
    frame->table = at;
    frame->vtable = vtable;
    frame->vsize = vsize;
    frame->left = 0;
    return true;
  }
  enum Step { kFail, kDone, kDescend };
  Step check_fields(Frame* frame);

  const uint8_t* buf_;
  uint32_t size_;
  uint32_t tables_ = 0;
};

// The fields of the table in `frame`, from frame->field on: the checks of Table::VerifyField /
// VerifyOffset and then VerifyString / VerifyVector / VerifyVectorOfTables / VerifyTable on
// each target. Stops after a non-empty vector of tables (left in `frame` to walk), returning
// kDescend, or at the table's end (kDone).
Walker::Step Walker::check_fields(Frame* frame) {
  const uint32_t table = frame->table, vtable = frame->vtable, vsize = frame->vsize;
  for (const Field* field = frame->field; field != frame->end; ++field) {
    // Table::GetOptionalFieldOffset: a slot past the vtable's end is an absent field, and so
    // are all later ones (slots grow with the field index).
    if (field->vt >= vsize) break;
    const uint32_t slot = u16(vtable + field->vt);
    if (slot == 0) continue;
    const uint32_t at = table + slot;  // < 2^31 + 2^16
    const uint32_t kind = field->kind & 0xF0u, low = field->kind & 0x0Fu;
    if (kind == kScalar) {
      if (!aligned_in_file(at, low)) return kFail;
      continue;
    }
    const uint32_t to = target(at);
    if (to == 0) return kFail;
    uint32_t count = 0, end = 0;
    const uint32_t elem_size =
        kind == kVector ? low : kind == kStructVector ? 4 * low : kind == kString ? 1 : 4;
    if (!vector_at(to, elem_size, &count, &end)) return kFail;
    // A string is NUL-terminated inside the file.
    if (kind == kString && (!in_file(end, 1) || buf_[end] != 0)) return kFail;
    if (kind == kTableVector && count > 0) {
      frame->field = field + 1;
      frame->element = to + 4;
      frame->left = count;
      frame->element_table = static_cast<uint8_t>(low);
      return kDescend;
    }
  }
  frame->field = frame->end;
  return kDone;
}

bool Walker::run() {
  // Verifier::VerifyBufferFromStart: minimum size, identifier, root offset.
  if (size_ < kMinBufferSize || !has_program_identifier(buf_)) return false;
  const uint32_t root = target(0);
  // One frame per nesting level, plus one that a vector of tables at the deepest level could
  // start (none can: that would have raised kSchemaDepth).
  Frame frames[kSchemaDepth + 1];
  if (root == 0 || !start_table(root, kProgram, &frames[0])) return false;
  // The runtime's own stricter rule: a root vtable holds at least its two size fields.
  if (frames[0].vsize < 4) return false;
  uint32_t depth = 1;
  while (depth > 0) {
    Frame& frame = frames[depth - 1];
    if (frame.left > 0) {  // Verifier::VerifyVectorOfTables, one element per turn
      // The vector was checked to lie inside the file, so the element can be read. An offset
      // of 0 (a table on its own offset) is rejected, as by the runtime since its first version.
      const uint32_t element = frame.element;
      const uint32_t o = u32(element);
      if (o == 0 || o >= size_ - element || depth > kSchemaDepth) return false;
      frame.element += 4;
      --frame.left;
      if (!start_table(element + o, frame.element_table, &frames[depth])) return false;
      ++depth;
      continue;
    }
    const Step step = check_fields(&frame);
    if (step == kFail) return false;
    if (step == kDone) --depth;  // Verifier::EndTable
    // else a vector of tables, walked from the next turn on
  }
  return true;
}

}  // namespace

bool check_structure(Span<const uint8_t> file) {
  if (file.data() == nullptr || file.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) return false;
  Walker walker(file);
  return walker.run();
}

}  // namespace ember::rt::internal
