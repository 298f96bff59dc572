//===- replay.cc - Firmware: run program files from the host on the optimized kernels ===//
//
// The device half of `python -m ember.replay`: built instead of main.cc when EMBER_FW_REPLAY is
// on, with the whole optimized kernel table of the target's tier. It reads the case files
// 00000.bin, 00001.bin, ... from QEMU's working directory (semihosting) until one is missing.
// A case file is
//   "EMRP", the program's byte count (u32), flags (u32: 1 inputs follow, 2 expected outputs
//   follow), 4 zero bytes, the program padded to 16 bytes, then every input's bytes and every
//   output's expected bytes, in order, when the flags say so,
// the expected bytes being the host runtime's (the portable kernels, the numeric ground truth)
// for those inputs. Per case it loads the program and prints the load's status (the host
// compares it with its own verdict for this tier). A loaded program is bound to its regions in
// one static buffer, each region zeroed and fenced by guard bytes, given its inputs (zeros
// when the case has none: a program the host rejects still runs here, so the device's checks
// alone stand between it and memory) and run; its outputs are compared with the expected ones,
// int8 and float apart. After every case the guard bytes and a checksum of the program bytes
// are checked: the runtime writes nothing but its regions (docs/runtime.md). Lines start with
// "ember-replay:"; the exit code is kBoardExitMismatch when any case differs or wrote outside
// its regions. Any fault is reported by the board as usual and ends the run.

#include <stdint.h>
#include <string.h>

#include "ember/kernels/arm/kernels.h"
#include "ember/runtime/executor.h"
#include "ember/runtime/program.h"
#include "ember/targets/boards/board.h"

namespace {

using ember::rt::Executor;
using ember::rt::Program;
using ember::rt::Span;
using ember::rt::Status;
using ember::rt::TensorInfo;

constexpr uint32_t kFileBytes = 1u << 20;   // the largest case file
constexpr uint32_t kArenaBytes = 2u << 20;  // all of a program's regions and their guards
constexpr uint32_t kHeaderBytes = 16;
constexpr uint32_t kHasInputs = 1, kHasExpected = 2;
// Before the first region, between regions (with the padding to the next 16-byte boundary)
// and after the last: wide enough for a kernel's widest store past an end (a Helium vector).
constexpr uint32_t kGuardBytes = 32;

// In the boards' SRAM (a NOLOAD section of every memory.ld), not in .bss: 3 MB.
__attribute__((section(".ember_arena.SRAM"), aligned(16))) uint8_t g_file[kFileBytes];
__attribute__((section(".ember_arena.SRAM"), aligned(16))) uint8_t g_arena[kArenaBytes];

Program g_program;
Executor g_executor;

struct Guard {
  uint32_t begin, end;  // bytes of g_arena
};
Guard g_guards[2 * ember::rt::kMaxRegions + 1];  // before each region, after its end, after all
size_t g_num_guards;

unsigned code(Status s) { return static_cast<unsigned>(s); }

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

// Position-dependent, so a shifted copy of the guard does not pass for the guard.
uint8_t guard_byte(uint32_t at) { return static_cast<uint8_t>(0xA5u ^ (at * 0x3Du)); }

// FNV-1a: a changed byte changes it (not an adversarial hash; the runtime is not the adversary).
uint32_t checksum(const uint8_t* p, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

// "NNNNN.bin" for case c (c < 100000).
void case_name(uint32_t c, char (&name)[10]) {
  for (int i = 4; i >= 0; --i, c /= 10) name[i] = static_cast<char>('0' + c % 10);
  memcpy(name + 5, ".bin", 5);
}

void add_guard(uint32_t begin, uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) g_arena[i] = guard_byte(i);
  g_guards[g_num_guards++] = {begin, end};
}

// Binds the loaded program's regions to 16-byte-aligned parts of g_arena, each zeroed (as the
// host's are) and of exactly its stated size, with guard bytes before, between and after them.
Status bind(const Program& program) {
  uint64_t total = kGuardBytes;
  for (size_t r = 0; r < program.num_regions(); ++r)
    total += kGuardBytes + ((program.region_size(r) + 15ull) & ~15ull);
  if (total > kArenaBytes) return Status::ArenaTooSmall;
  Span<uint8_t> regions[ember::rt::kMaxRegions];
  g_num_guards = 0;
  uint32_t used = 0;
  for (size_t r = 0; r < program.num_regions(); ++r) {
    const uint32_t bytes = program.region_size(r);
    add_guard(used, used + kGuardBytes);
    used += kGuardBytes;
    memset(g_arena + used, 0, bytes);
    regions[r] = Span<uint8_t>(g_arena + used, bytes);
    const uint32_t end = used + bytes;
    used = (end + 15u) & ~15u;
    if (used != end) add_guard(end, used);  // the rest of the last 16 bytes is guard too
  }
  add_guard(used, used + kGuardBytes);
  return g_executor.init(program, Span<const Span<uint8_t>>(regions, program.num_regions()));
}

// Bytes left changed outside the regions: guard bytes, and whether the program changed.
struct Damage {
  uint32_t guard_bytes;
  bool program_changed;
  bool any() const { return guard_bytes != 0 || program_changed; }
};

Damage damage(uint32_t program_bytes, uint32_t program_sum) {
  Damage d{0, checksum(g_file + kHeaderBytes, program_bytes) != program_sum};
  for (size_t g = 0; g < g_num_guards; ++g)
    for (uint32_t i = g_guards[g].begin; i < g_guards[g].end; ++i) d.guard_bytes += g_arena[i] != guard_byte(i);
  g_num_guards = 0;
  return d;
}

struct Mismatches {
  uint32_t int8, floats, elements;
};

// Counted apart: int8 outputs are the numeric contract, float outputs may differ where a
// float kernel calls libm (newlib here, glibc on the host; ember.replay sorts the cases out).
Mismatches compare_outputs(const uint8_t* expected) {
  Mismatches m{0, 0, 0};
  for (size_t o = 0; o < g_program.num_outputs(); ++o) {
    TensorInfo info;
    ember::rt::TensorView view;
    g_program.output_info(o, &info);
    g_executor.output(o, &view);
    const bool int8 = info.dtype == ember::rt::DType::Int8;
    const uint32_t size = int8 ? 1u : 4u;
    const uint8_t* got = static_cast<const uint8_t*>(view.data);
    for (uint32_t e = 0; e < info.bytes / size; ++e) {
      if (int8) {
        m.int8 += got[e] != expected[e];
      } else {
        // Bit for bit, except that any NaN equals any NaN: x86 makes a new NaN with the sign
        // bit set, Arm without.
        const uint32_t a = read_u32(got + 4 * e), b = read_u32(expected + 4 * e);
        const bool both_nan = (a & 0x7fffffffu) > 0x7f800000u && (b & 0x7fffffffu) > 0x7f800000u;
        m.floats += a != b && !both_nan;
      }
    }
    m.elements += info.bytes / size;
    expected += info.bytes;
  }
  return m;
}

// One case file of `length` bytes in g_file: prints its line (once everything has run, since
// the runtime's own log lines go to the same output); false when it failed (outputs differ, a
// write outside the regions, a malformed case).
bool run_case(uint32_t c, uint32_t length, const ember::rt::KernelTable& table) {
  const uint32_t program_bytes = length >= kHeaderBytes ? read_u32(g_file + 4) : 0;
  const uint32_t flags = length >= kHeaderBytes ? read_u32(g_file + 8) : 0;
  if (length < kHeaderBytes || memcmp(g_file, "EMRP", 4) != 0 || program_bytes > length - kHeaderBytes ||
      ((flags & kHasExpected) && !(flags & kHasInputs))) {
    board_printf("ember-replay: case=%lu malformed\n", (unsigned long)c);
    return false;
  }
  const uint32_t program_sum = checksum(g_file + kHeaderBytes, program_bytes);
  const Status load = Program::load(Span<const uint8_t>(g_file + kHeaderBytes, program_bytes), table, &g_program);
  if (load != Status::Ok) {
    const Damage d = damage(program_bytes, program_sum);
    board_printf("ember-replay: case=%lu load=%u guard=%lu program=%u (%s)\n", (unsigned long)c, code(load),
                 (unsigned long)d.guard_bytes, d.program_changed ? 1u : 0u, ember::rt::to_string(load));
    return !d.any();
  }
  // The inputs and expected outputs follow the padded program.
  uint32_t at = kHeaderBytes + ((program_bytes + 15u) & ~15u);
  const uint8_t* inputs = g_file + at;
  for (size_t i = 0; (flags & kHasInputs) && i < g_program.num_inputs(); ++i) {
    TensorInfo info;
    g_program.input_info(i, &info);
    at += info.bytes;
  }
  const uint8_t* expected = g_file + at;
  for (size_t o = 0; (flags & kHasExpected) && o < g_program.num_outputs(); ++o) {
    TensorInfo info;
    g_program.output_info(o, &info);
    at += info.bytes;
  }
  if (at != length) {
    board_printf("ember-replay: case=%lu load=0 malformed\n", (unsigned long)c);
    return false;
  }
  Status run = bind(g_program);
  for (size_t i = 0; (flags & kHasInputs) && run == Status::Ok && i < g_program.num_inputs(); ++i) {
    TensorInfo info;
    g_program.input_info(i, &info);
    run = g_executor.set_input(i, inputs, info.bytes);
    inputs += info.bytes;
  }
  if (run == Status::Ok) run = g_executor.run();
  const Mismatches m = run == Status::Ok && (flags & kHasExpected) ? compare_outputs(expected) : Mismatches{0, 0, 0};
  const Damage d = damage(program_bytes, program_sum);
  board_printf("ember-replay: case=%lu load=0 run=%u", (unsigned long)c, code(run));
  if (run == Status::Ok && (flags & kHasExpected))
    board_printf(" int8_mismatches=%lu float_mismatches=%lu elements=%lu", (unsigned long)m.int8,
                 (unsigned long)m.floats, (unsigned long)m.elements);
  board_printf(" guard=%lu program=%u", (unsigned long)d.guard_bytes, d.program_changed ? 1u : 0u);
  if (run != Status::Ok) board_printf(" (%s)", ember::rt::to_string(run));
  board_printf("\n");
  return m.int8 + m.floats == 0 && !d.any();
}

}  // namespace

int main() {
  const ember::rt::KernelTable table = ember::kernels::arm::arm_kernel_table();
  uint32_t c = 0, failed = 0;
  for (;; ++c) {
    char name[10];
    case_name(c, name);
    const long length = board_read_file(name, g_file, kFileBytes);
    if (length == -1) break;  // no more cases
    if (length < 0) {
      board_printf("ember-replay: case=%lu too-large\n", (unsigned long)c);
      ++failed;
      continue;
    }
    if (!run_case(c, static_cast<uint32_t>(length), table)) ++failed;
  }
  board_printf("ember-replay: done cases=%lu failed=%lu\n", (unsigned long)c, (unsigned long)failed);
  return failed == 0 ? kBoardExitPass : kBoardExitMismatch;
}
