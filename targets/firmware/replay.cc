//===- replay.cc - Firmware: run program files from the host on the optimized kernels ===//
//
// The device half of `python -m ember.replay` (tools/replay.sh): built instead of main.cc when
// EMBER_FW_REPLAY is on, with the whole optimized kernel table of the target's tier. It reads
// the case files 00000.bin, 00001.bin, ... from QEMU's working directory (semihosting) until
// one is missing. A case file is
//   "EMRP", the program's byte count (u32), 8 zero bytes, the program padded to 16 bytes,
//   then every input's bytes and every output's expected bytes, in order,
// the expected bytes being the host runtime's (the portable kernels, the numeric ground truth)
// for those inputs. Per case it loads the program, binds its regions to one static buffer,
// runs it and counts the output elements that differ, int8 and float apart. Lines start with
// "ember-replay:"; the exit code is kBoardExitMismatch when any case differs. Any fault is
// reported by the board as usual and ends the run.

#include <stdint.h>
#include <string.h>

#include "kernels/arm/kernels.h"
#include "runtime/executor.h"
#include "runtime/program.h"
#include "targets/boards/board.h"

namespace {

using ember::rt::Executor;
using ember::rt::Program;
using ember::rt::Span;
using ember::rt::Status;
using ember::rt::TensorInfo;

constexpr uint32_t kFileBytes = 1u << 20;   // the largest case file
constexpr uint32_t kArenaBytes = 2u << 20;  // all of a program's regions
constexpr uint32_t kHeaderBytes = 16;

// In the boards' SRAM (a NOLOAD section of every memory.ld), not in .bss: 3 MB.
__attribute__((section(".ember_arena.SRAM"), aligned(16))) uint8_t g_file[kFileBytes];
__attribute__((section(".ember_arena.SRAM"), aligned(16))) uint8_t g_arena[kArenaBytes];

Program g_program;
Executor g_executor;

unsigned code(Status s) { return static_cast<unsigned>(s); }

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

// "NNNNN.bin" for case c (c < 100000).
void case_name(uint32_t c, char (&name)[10]) {
  for (int i = 4; i >= 0; --i, c /= 10) name[i] = static_cast<char>('0' + c % 10);
  memcpy(name + 5, ".bin", 5);
}

// Binds the loaded program's regions to consecutive 16-byte-aligned parts of g_arena.
Status bind(const Program& program) {
  Span<uint8_t> regions[ember::rt::kMaxRegions];
  uint32_t used = 0;
  for (size_t r = 0; r < program.num_regions(); ++r) {
    const uint32_t bytes = program.region_size(r);
    if (bytes > kArenaBytes - used) return Status::ArenaTooSmall;
    regions[r] = Span<uint8_t>(g_arena + used, bytes);
    used += (bytes + 15u) & ~15u;
    if (used > kArenaBytes) used = kArenaBytes;
  }
  return g_executor.init(program, Span<const Span<uint8_t>>(regions, program.num_regions()));
}

// One case file of `length` bytes in g_file: prints its line, returns its mismatching elements.
uint32_t run_case(uint32_t c, uint32_t length, const ember::rt::KernelTable& table) {
  const uint32_t program_bytes = length >= kHeaderBytes ? read_u32(g_file + 4) : 0;
  if (length < kHeaderBytes || memcmp(g_file, "EMRP", 4) != 0 || program_bytes > length - kHeaderBytes) {
    board_printf("ember-replay: case=%lu malformed\n", (unsigned long)c);
    return 1;
  }
  const Status load = Program::load(Span<const uint8_t>(g_file + kHeaderBytes, program_bytes), table, &g_program);
  if (load != Status::Ok) {
    board_printf("ember-replay: case=%lu load=%u refused=%s\n", (unsigned long)c, code(load),
                 ember::rt::to_string(load));
    return 0;
  }
  // The inputs and expected outputs follow the padded program.
  uint32_t at = kHeaderBytes + ((program_bytes + 15u) & ~15u);
  const uint8_t* inputs = g_file + at;
  for (size_t i = 0; i < g_program.num_inputs(); ++i) {
    TensorInfo info;
    g_program.input_info(i, &info);
    at += info.bytes;
  }
  const uint8_t* expected = g_file + at;
  for (size_t o = 0; o < g_program.num_outputs(); ++o) {
    TensorInfo info;
    g_program.output_info(o, &info);
    at += info.bytes;
  }
  if (at != length) {
    board_printf("ember-replay: case=%lu malformed\n", (unsigned long)c);
    return 1;
  }
  Status run = bind(g_program);
  for (size_t i = 0; run == Status::Ok && i < g_program.num_inputs(); ++i) {
    TensorInfo info;
    g_program.input_info(i, &info);
    run = g_executor.set_input(i, inputs, info.bytes);
    inputs += info.bytes;
  }
  if (run == Status::Ok) run = g_executor.run();
  if (run != Status::Ok) {
    board_printf("ember-replay: case=%lu load=0 run=%u refused=%s\n", (unsigned long)c, code(run),
                 ember::rt::to_string(run));
    return 0;
  }
  // Counted apart: int8 outputs are the numeric contract, float outputs may differ where a
  // float kernel calls libm (newlib here, glibc on the host; ember.replay sorts the cases out).
  uint32_t int8_mismatches = 0, float_mismatches = 0, elements = 0;
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
        int8_mismatches += got[e] != expected[e];
      } else {
        // Bit for bit, except that any NaN equals any NaN: x86 makes a new NaN with the sign
        // bit set, Arm without.
        const uint32_t a = read_u32(got + 4 * e), b = read_u32(expected + 4 * e);
        const bool both_nan = (a & 0x7fffffffu) > 0x7f800000u && (b & 0x7fffffffu) > 0x7f800000u;
        float_mismatches += a != b && !both_nan;
      }
    }
    elements += info.bytes / size;
    expected += info.bytes;
  }
  board_printf("ember-replay: case=%lu load=0 run=0 int8_mismatches=%lu float_mismatches=%lu elements=%lu\n",
               (unsigned long)c, (unsigned long)int8_mismatches, (unsigned long)float_mismatches,
               (unsigned long)elements);
  return int8_mismatches + float_mismatches;
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
    if (run_case(c, static_cast<uint32_t>(length), table) != 0) ++failed;
  }
  board_printf("ember-replay: done cases=%lu failed=%lu\n", (unsigned long)c, (unsigned long)failed);
  return failed == 0 ? kBoardExitPass : kBoardExitMismatch;
}
