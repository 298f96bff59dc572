//===- program_fuzzer.cc - libFuzzer target: load, bind and run any file --===//
//
// Feeds arbitrary bytes to Program::load with a full kernel table: the portable one, or, when the
// file's last byte is odd, the optimized table as the host builds it (kernels/arm at the scalar
// tier), so that the optimized kernels' own checks (folded bias, add_s8's rescale tables, the
// depthwise filter) and their C paths are fuzzed too. One table per input keeps the rate; with
// EMBER_FUZZ_BOTH_TABLES set (tools/fuzz.sh's pass over the seeds) every input takes both. A
// file the loader accepts is bound to regions of exactly the sizes it asks for (up to
// kMaxArenaBytes in all) and run once, with input bytes taken from the file itself, under ASan
// and UBSan. The contract (SECURITY.md): whatever the loader accepts, every kernel
// runs without a sanitizer report; whatever it rejects, it rejects with a Status and no report.
//
// Differential: on every input it also runs the runtime's table-driven structure check
// (runtime/program_structure.cc) and the flatbuffers-generated verifier it replaced
// (runtime/program_structure_reference.h), and aborts when one accepts what the other rejects.
//
// Built by fuzz/CMakeLists.txt (64-bit and -m32) and run by tools/fuzz.sh.

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember/kernels/arm/kernels.h"
#include "ember/kernels/kernel_table.h"
#include "ember/runtime/executor.h"
#include "ember/runtime/program.h"
#include "ember/runtime/program_structure.h"
#include "ember/runtime/program_structure_reference.h"

namespace {

using ember::rt::Executor;
using ember::rt::Program;
using ember::rt::Span;
using ember::rt::Status;

// The arena a fuzzed program may ask for in total before it is run (larger plans are loaded
// but not run, and not added to the corpus). The run's work grows with the arena, so a small cap
// keeps executions per second high: 8 KiB by default, the tiny seed programs' scale. tools/fuzz.sh
// also runs every seed once with EMBER_FUZZ_MAX_ARENA=4194304, so the zoo programs run in full.
size_t max_arena_bytes() {
  static const size_t bytes = [] {
    const char* env = getenv("EMBER_FUZZ_MAX_ARENA");
    return env ? static_cast<size_t>(strtoull(env, nullptr, 10)) : size_t{8192};
  }();
  return bytes;
}

// Exactly `size` bytes behind a 16-byte aligned start, so ASan flags any access past the end.
uint8_t* aligned_block(size_t size) {
  void* p = nullptr;
  if (posix_memalign(&p, 16, size == 0 ? 1 : size) != 0) abort();
  return static_cast<uint8_t*>(p);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t* file = aligned_block(size);
  if (size != 0) memcpy(file, data, size);

  if (ember::rt::internal::check_structure(Span<const uint8_t>(file, size)) !=
      ember::rt::testing::reference_structure_ok(file, size)) {
    fprintf(stderr, "program_fuzzer: structure check and flatbuffers::Verifier disagree\n");
    abort();
  }

  // Loads the file with `table` and, if accepted, binds and runs it: 0, or -1 when the plan is
  // over the arena cap (kept out of the corpus).
  const auto load_and_run = [&](const ember::rt::KernelTable& table) -> int {
    Program program;
    if (Program::load(Span<const uint8_t>(file, size), table, &program) != Status::Ok) return 0;
    size_t total = 0;
    for (size_t r = 0; r < program.num_regions(); ++r) total += program.region_size(r);
    if (total > max_arena_bytes()) return -1;
    Span<uint8_t> regions[ember::rt::kMaxRegions];
    uint8_t* blocks[ember::rt::kMaxRegions] = {};
    for (size_t r = 0; r < program.num_regions(); ++r) {
      const size_t bytes = program.region_size(r);
      blocks[r] = aligned_block(bytes);
      memset(blocks[r], 0xA5, bytes);
      regions[r] = Span<uint8_t>(blocks[r], bytes);
    }
    Executor exec;
    if (exec.init(program, Span<const Span<uint8_t>>(regions, program.num_regions())) != Status::Ok)
      abort();  // regions of exactly the planned sizes must bind
    for (size_t i = 0; i < program.num_inputs(); ++i) {
      ember::rt::TensorView view;
      if (exec.input(i, &view) != Status::Ok) abort();
      ember::rt::TensorInfo info;
      program.input_info(i, &info);
      uint8_t* dst = static_cast<uint8_t*>(view.data);
      for (uint32_t b = 0; b < info.bytes; ++b) dst[b] = data[b % size];
    }
    (void)exec.run();
    for (size_t r = 0; r < program.num_regions(); ++r) free(blocks[r]);
    return 0;
  };
  static const bool both = getenv("EMBER_FUZZ_BOTH_TABLES") != nullptr;
  const bool odd = size > 0 && (data[size - 1] & 1) != 0;
  int result = 0;
  if (both || !odd) result = load_and_run(ember::kernels::portable_kernel_table());
  if (both || odd) result = load_and_run(ember::kernels::arm::arm_kernel_table()) < 0 ? -1 : result;
  free(file);
  return result;
}
