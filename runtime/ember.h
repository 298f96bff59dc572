/*===- ember.h - C API of the Ember runtime ------------------------------===*
 *
 * The runtime's Program and Executor (program.h, executor.h) for firmware written in C (C99 or
 * later; the same header compiles as C++). C cannot hold the C++ objects, so the application
 * provides opaque storage for them, `ember_program` and `ember_executor`, usually as statics;
 * ember_program_load and ember_executor_init construct the objects in it. Nothing is allocated
 * and nothing aborts: every function returns an ember_status, whose codes and numbers are
 * those of runtime/status.def (EMBER_STATUS_<name>, e.g. EMBER_STATUS_ArenaTooSmall).
 *
 * Use, with the files `ember export-c` writes (model.h, model.c, model_kernels.cc):
 *
 *   static _Alignas(16) uint8_t sram[MODEL_REGION_0_BYTES];
 *   static ember_program program;  static ember_executor exec;
 *   const ember_region regions[] = {{sram, sizeof sram}};
 *   ember_status s = ember_program_load(model_program, MODEL_PROGRAM_BYTES, &model_kernel_table,
 *                                       &program);
 *   if (s == EMBER_STATUS_Ok) s = ember_executor_init(&exec, &program, regions, 1);
 *   if (s == EMBER_STATUS_Ok) s = ember_executor_set_input(&exec, 0, image, sizeof image);
 *   if (s == EMBER_STATUS_Ok) s = ember_executor_run(&exec);
 *   ember_tensor out;
 *   if (s == EMBER_STATUS_Ok) s = ember_executor_output(&exec, 0, &out);  // out.data is in sram
 *   if (s != EMBER_STATUS_Ok) log_error(ember_status_string(s));
 *
 * Errors, beyond those of the C++ calls (docs/runtime.md): a null pointer where an object or a
 * result is needed, or an ember_program / ember_executor that ember_program_load /
 * ember_executor_init never constructed (zeroed static storage, for instance), give
 * EMBER_STATUS_InvalidState; an index past the program's inputs, outputs, regions or ops gives
 * EMBER_STATUS_RuntimeIndex. Results are zeroed when a call fails.
 *
 * Ownership and lifetimes are those of the C++ API: the program points into the file and the
 * kernel table, the executor into the program and the region memory; all must outlive it. The
 * executor keeps the address of the ember_program, so neither storage may be copied or moved
 * after ember_program_load / ember_executor_init. One executor runs one inference at a time.
 */
#ifndef EMBER_RUNTIME_EMBER_H_
#define EMBER_RUNTIME_EMBER_H_

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The status codes of runtime/status.def, with the same numbers: EMBER_STATUS_Ok (0), ... */
typedef enum ember_status {
#define EMBER_STATUS(name, value, id, message) EMBER_STATUS_##name = value,
#include "ember/runtime/status.def"
#undef EMBER_STATUS
} ember_status;

/** A short English name of `status` (ember::rt::to_string); "unknown status" for a value that
 *  is not a code. Never null. */
const char* ember_status_string(ember_status status);

/** Storage sizes in pointer-sized words, so one definition fits 32- and 64-bit targets alike
 *  (every member of the C++ objects is a pointer, a size_t or smaller). A Program is six words
 *  (root, constants, file span, kernel table), plus one for the state word the C API keeps: 7,
 *  one spare. An Executor is 2 + 2 * kMaxRegions = 10 words (program, region spans, count),
 *  plus the program's address and the state word: 12, two spare. c_api.cc checks that the
 *  objects fit, on every target it is built for. */
#define EMBER_PROGRAM_STORAGE (8 * sizeof(void*))
#define EMBER_EXECUTOR_STORAGE (14 * sizeof(void*))

/** Opaque storage of one loaded program (ember::rt::Program). Pointer-aligned by the union, which
 *  needs no C11 _Alignas. Zeroed storage (a static) reads as "never loaded". */
typedef struct ember_program {
  union {
    unsigned char bytes[EMBER_PROGRAM_STORAGE];
    void* align;
  } opaque;
} ember_program;

/** Opaque storage of one executor (ember::rt::Executor). Zeroed storage reads as "never
 *  initialised". */
typedef struct ember_executor {
  union {
    unsigned char bytes[EMBER_EXECUTOR_STORAGE];
    void* align;
  } opaque;
} ember_executor;

/** The kernel table `ember export-c` writes (<name>_kernel_table in <name>_kernels.cc). It is an
 *  ember::rt::KernelTable; C only passes its address. */
typedef struct ember_kernel_table ember_kernel_table;

/** One memory region: `size` bytes at `data`, 16-byte aligned, owned by the application. */
typedef struct ember_region {
  uint8_t* data;
  size_t size;
} ember_region;

/** Element types, as ember::rt::DType. */
typedef enum ember_dtype {
  EMBER_DTYPE_INT8 = 0,
  EMBER_DTYPE_INT32 = 1,
  EMBER_DTYPE_FLOAT32 = 2
} ember_dtype;

/** Most dimensions a tensor has (ember::rt::kMaxRank). */
#define EMBER_MAX_RANK 5

/** A program input or output, bound to the executor's regions. For int8 data,
 *  real = scale * (q - zero_point). */
typedef struct ember_tensor {
  /** The tensor's bytes inside a region (zero-copy): valid until the next ember_executor_init.
   *  An input may be filled through it instead of ember_executor_set_input. */
  void* data;
  /** Byte size of the data. */
  size_t bytes;
  /** dims[0..rank) is the shape; the rest are 0. */
  int32_t dims[EMBER_MAX_RANK];
  uint8_t rank;
  ember_dtype dtype;
  /** Whether the tensor is quantized; scale and zero_point are 0 when not. */
  bool quantized;
  float scale;
  int32_t zero_point;
  /** NUL-terminated name from the program file, "" when absent. Never null. */
  const char* name;
} ember_tensor;

/** Verifies the program file `file` (`size` bytes, 16-byte aligned) and constructs a view of it
 *  in `*program` that runs with `kernels`. Always constructs: on failure `*program` is empty and
 *  the status names the first check that failed (docs/runtime.md). `file` and `kernels` must
 *  outlive the program. */
ember_status ember_program_load(const uint8_t* file, size_t size, const ember_kernel_table* kernels,
                                ember_program* program);

/** Counts of a loaded program (InvalidState when it is not loaded). */
ember_status ember_program_num_inputs(const ember_program* program, size_t* count);
ember_status ember_program_num_outputs(const ember_program* program, size_t* count);
ember_status ember_program_num_regions(const ember_program* program, size_t* count);
ember_status ember_program_num_ops(const ember_program* program, size_t* count);

/** Bytes region `index` needs: its buffer for ember_executor_init must be at least this large. */
ember_status ember_program_region_size(const ember_program* program, size_t index, size_t* bytes);

/** Constructs an executor in `*executor` and binds it to `program` and `regions[0..num_regions)`,
 *  one per program region, in program order (the struct array is copied; the memory is not).
 *  Fewer regions than the program has, or a region smaller than its size, is ArenaTooSmall;
 *  more is ShapeMismatch; a region base not 16-byte aligned is Misaligned; regions overlapping
 *  each other or the file are OverlappingMemory. On failure the executor is unbound. */
ember_status ember_executor_init(ember_executor* executor, const ember_program* program,
                                 const ember_region* regions, size_t num_regions);

/** Copies `bytes` bytes from `data` into input `index`; ShapeMismatch unless `bytes` is the
 *  input's byte size and `data` is not null. */
ember_status ember_executor_set_input(ember_executor* executor, size_t index, const void* data,
                                      size_t bytes);

/** Describes input / output `index`, with its data in the regions. */
ember_status ember_executor_input(const ember_executor* executor, size_t index,
                                  ember_tensor* tensor);
ember_status ember_executor_output(const ember_executor* executor, size_t index,
                                   ember_tensor* tensor);

/** Runs every op in order; the first kernel error, if any. */
ember_status ember_executor_run(ember_executor* executor);

/** Runs op `index` alone (to service a watchdog between ops); equals ember_executor_run only when
 *  ops 0 .. num_ops - 1 run in order. */
ember_status ember_executor_run_op(ember_executor* executor, size_t index);

/** One NPU partition, as the runtime hands it to ember_npu_invoke (docs/npu.md). */
typedef struct ember_npu_job {
  /** Vela's command stream: the COP1 container that Arm's Ethos-U driver takes as its custom
   *  data (ethosu_invoke_v3), in the program file, 16-byte aligned, checked at load. */
  const void* command_stream;
  size_t command_stream_size;
  /** The NPU's base address regions, each 16-byte aligned: 0 the weights (program file), 1 the
   *  scratch, 2 the fast scratch (0 bytes when Vela planned none). */
  const uint64_t* base_addrs;
  const size_t* base_addr_sizes;
  int num_base_addrs;
  /** The partition as a TOSA graph, for a reference run where no NPU is (the host); NULL when
   *  the program leaves it out. */
  const void* tosa;
  size_t tosa_size;
  /** Byte offsets in the scratch: of each input (in place when the call comes) and of each
   *  output (where the NPU leaves it; the ops after it read it there). */
  const int32_t* input_offsets;
  size_t num_inputs;
  const int32_t* output_offsets;
  size_t num_outputs;
} ember_npu_job;

/** Platform hook: runs one NPU partition and returns once its outputs are in the scratch, with
 *  EMBER_STATUS_Ok or EMBER_STATUS_NpuFailed. The runtime's default is weak and returns
 *  EMBER_STATUS_NpuUnavailable; a board with an Ethos-U links targets/npu/ethosu_glue.c, which
 *  calls Arm's driver, or its own. Called from ember_executor_run, never re-entered. */
ember_status ember_npu_invoke(const ember_npu_job* job);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* EMBER_RUNTIME_EMBER_H_ */
