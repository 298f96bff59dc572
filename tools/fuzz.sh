#!/usr/bin/env bash
# Fuzzes Program::load + Executor::init + run (fuzz/program_fuzzer.cc) with libFuzzer, ASan and
# UBSan, in a 64-bit (x86_64) and a 32-bit (i386, size_t as on an MCU) build, and prints per
# build the executions, executions per second, corpus size and crashes. Exits 1 on any crash,
# timeout or out-of-memory. Every input also runs the runtime's structure check and the
# flatbuffers verifier it replaced; a disagreement aborts like a crash (program_fuzzer.cc).
#
#   tools/fuzz.sh --seconds 30            # what tools/test.sh runs: 30 s per build
#   tools/fuzz.sh --seconds 3600 --parallel   # a long run, both builds at once (2 cores)
#   tools/fuzz.sh --seconds 600 --arch i386
#
# Seeds (fuzz/make_seeds.py): the MLPerf Tiny zoo programs and digits, for cortex-m55, cortex-m4,
# cortex-m3 and the host, plus the crafted malformed files of tests/test_untrusted.py. Each build
# keeps its corpus in build/fuzz/corpus-<arch>, so runs build on each other; findings go to
# build/fuzz/artifacts-<arch>/ (reproduce: build/fuzz/<arch>/program_fuzzer <file>).
# The DSP and Helium kernels run only on Arm cores: python3 -m ember.replay --corpus
# build/fuzz/corpus-x86_64 runs a corpus on them under QEMU against the host (docs/firmware.md).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_BUILD=60
ARCHES=(x86_64 i386)
PARALLEL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_PER_BUILD="$2"; shift 2 ;;
    --arch) ARCHES=("$2"); shift 2 ;;
    --parallel) PARALLEL=1; shift ;;
    *) echo "usage: tools/fuzz.sh [--seconds N] [--arch x86_64|i386] [--parallel]" >&2; exit 2 ;;
  esac
done

for tool in clang clang++ cmake ninja; do
  command -v "$tool" >/dev/null || { echo "tools/fuzz.sh: $tool missing (run tools/setup.sh)" >&2; exit 2; }
done

OUT=build/fuzz
python3 fuzz/make_seeds.py "$OUT/seeds" >/dev/null

for arch in "${ARCHES[@]}"; do
  m32=OFF; [ "$arch" = i386 ] && m32=ON
  if [ ! -f "$OUT/$arch/build.ninja" ]; then
    cmake -S fuzz -B "$OUT/$arch" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DEMBER_FUZZ_M32=$m32 >/dev/null
  fi
  cmake --build "$OUT/$arch" >/dev/null
done

# Per-input time limits, so that a hang (SECURITY.md counts one as a vulnerability) is a
# finding: libFuzzer stops with a timeout- artifact and a non-zero exit. The fuzzing pass runs
# programs of at most 8 KiB of arena, which take milliseconds even in the slowest build (i386,
# ASan and UBSan); 10 s is a thousand times that, so a loaded machine makes no finding, while a
# kernel walking a 65,536-tap window per output takes minutes. The seed pass runs the zoo's
# largest programs in full with both kernel tables, up to about 1 s each in the i386 build: 30 s
# keeps a margin of 30.
FUZZ_TIMEOUT=10
SEED_TIMEOUT=30

# Every seed once with the arena cap at 4 MiB and both kernel tables, so the zoo programs run in
# full under the sanitizers (the fuzzing itself runs only programs with up to 8 KiB of arena,
# each input with one table, for speed).
for arch in "${ARCHES[@]}"; do
  EMBER_FUZZ_MAX_ARENA=4194304 EMBER_FUZZ_BOTH_TABLES=1 "$OUT/$arch/program_fuzzer" -runs=0 \
    -timeout="$SEED_TIMEOUT" "$OUT/seeds" \
    >"$OUT/seeds-$arch.log" 2>&1 || { echo "fuzz $arch: a seed fails (see $OUT/seeds-$arch.log)"; exit 1; }
done

run_one() {
  local arch="$1"
  local corpus="$OUT/corpus-$arch" artifacts="$OUT/artifacts-$arch" log="$OUT/fuzz-$arch.log"
  mkdir -p "$corpus" "$artifacts"
  local before
  before=$(find "$artifacts" -type f | wc -l)
  # -rss_limit_mb: the harness caps arenas at 4 MiB, so real use stays far below.
  local start=$SECONDS
  set +e
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$OUT/$arch/program_fuzzer" -max_total_time="$SECONDS_PER_BUILD" -timeout="$FUZZ_TIMEOUT" \
      -rss_limit_mb=2048 -max_len=65536 -dict=fuzz/program.dict -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$corpus" "$OUT/seeds" >"$log" 2>&1
  local rc=$?
  set -e
  local execs rate after
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  after=$(find "$artifacts" -type f | wc -l)
  echo "fuzz $arch: ${execs:-?} executions in $((SECONDS - start)) s (${rate:-?} exec/s)," \
       "corpus $(find "$corpus" -type f | wc -l) files, crashes $((after - before))" \
       "(exit $rc; log $log)"
  if [ "$rc" != 0 ] || [ "$after" != "$before" ]; then
    grep -m1 -E "ERROR|runtime error|SUMMARY" "$log" || true
    return 1
  fi
}

status=0
if [ "$PARALLEL" = 1 ]; then
  pids=()
  for arch in "${ARCHES[@]}"; do run_one "$arch" & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
else
  for arch in "${ARCHES[@]}"; do run_one "$arch" || status=1; done
fi
exit $status
