/*===- c_api_test_c.c - ember.h used from C: every type and function ----===*
 *
 * The C half of c_api_test.cc. Built as C11 with -Wall -Wextra -Werror -pedantic into
 * ember_runtime_test, so ember.h must stay valid C; the gtest calls ember_c_api_test_run, so
 * this file cannot drop out of a test run unnoticed. It runs test_util.h's valid program (int8
 * [1, 4] input "x", scale 0.5, zero point 3; int8 [1, 4] output; one 48-byte region) the way C
 * firmware would, with the kernel table reached as export-c's <name>_kernels.cc provides it.
 */
#include "ember/runtime/ember.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Defined in c_api_test.cc as an ember::rt::KernelTable, as <name>_kernels.cc defines
 * <name>_kernel_table. */
extern const ember_kernel_table ember_c_api_test_kernels;

int ember_c_api_test_run(const uint8_t* file, size_t size, const int8_t input[4],
                         int8_t output[4]);

/* Returns the line of the first failed expectation, for the gtest to print. */
#define EXPECT(cond)           \
  do {                         \
    if (!(cond)) return __LINE__; \
  } while (0)

/* Loads `file`, runs it on `input` and copies the output to `output`: 0 when every call and
 * every check here passed, else the failing line. */
int ember_c_api_test_run(const uint8_t* file, size_t size, const int8_t input[4],
                         int8_t output[4]) {
  static _Alignas(16) uint8_t arena[64];
  static ember_program program;
  static ember_executor executor;
  static const ember_program never_loaded; /* zeroed, never passed to a load */
  ember_region regions[1];
  ember_tensor in, out;
  size_t n = 99, bytes = 99, op;
  const ember_dtype int8 = EMBER_DTYPE_INT8;
  ember_status s;

  EXPECT(sizeof(ember_program) == EMBER_PROGRAM_STORAGE);
  EXPECT(sizeof(ember_executor) == EMBER_EXECUTOR_STORAGE);
  EXPECT(ember_program_num_inputs(&never_loaded, &n) == EMBER_STATUS_InvalidState && n == 0);

  s = ember_program_load(file, size, &ember_c_api_test_kernels, &program);
  EXPECT(s == EMBER_STATUS_Ok);
  EXPECT(ember_program_num_inputs(&program, &n) == EMBER_STATUS_Ok && n == 1);
  EXPECT(ember_program_num_outputs(&program, &n) == EMBER_STATUS_Ok && n == 1);
  EXPECT(ember_program_num_ops(&program, &n) == EMBER_STATUS_Ok && n == 2);
  EXPECT(ember_program_num_regions(&program, &n) == EMBER_STATUS_Ok && n == 1);
  EXPECT(ember_program_region_size(&program, 0, &bytes) == EMBER_STATUS_Ok && bytes == 48);
  EXPECT(ember_program_region_size(&program, 1, &bytes) == EMBER_STATUS_RuntimeIndex && bytes == 0);

  regions[0].data = arena;
  regions[0].size = 47;
  EXPECT(ember_executor_init(&executor, &program, regions, 1) == EMBER_STATUS_ArenaTooSmall);
  EXPECT(ember_executor_run(&executor) == EMBER_STATUS_InvalidState);
  regions[0].size = sizeof arena;
  EXPECT(ember_executor_init(&executor, &program, regions, 1) == EMBER_STATUS_Ok);

  EXPECT(ember_executor_input(&executor, 0, &in) == EMBER_STATUS_Ok);
  EXPECT(in.data == arena && in.bytes == 4 && in.dtype == int8 && in.rank == 2);
  EXPECT(in.dims[0] == 1 && in.dims[1] == 4 && in.dims[EMBER_MAX_RANK - 1] == 0);
  EXPECT(in.quantized && in.scale == 0.5f && in.zero_point == 3 && strcmp(in.name, "x") == 0);
  EXPECT(ember_executor_set_input(&executor, 0, input, 3) == EMBER_STATUS_ShapeMismatch);
  EXPECT(ember_executor_set_input(&executor, 0, input, 4) == EMBER_STATUS_Ok);

  EXPECT(ember_executor_run_op(&executor, 2) == EMBER_STATUS_RuntimeIndex);
  for (op = 0; op < 2; ++op) EXPECT(ember_executor_run_op(&executor, op) == EMBER_STATUS_Ok);
  EXPECT(ember_executor_run(&executor) == EMBER_STATUS_Ok); /* same inputs, same result */

  EXPECT(ember_executor_output(&executor, 1, &out) == EMBER_STATUS_RuntimeIndex);
  EXPECT(out.data == NULL && out.name != NULL);
  EXPECT(ember_executor_output(&executor, 0, &out) == EMBER_STATUS_Ok);
  EXPECT(out.data == arena + 32 && out.bytes == 4 && out.dtype == int8 && !out.quantized);
  memcpy(output, out.data, 4);

  EXPECT(strcmp(ember_status_string(EMBER_STATUS_Ok), "ok") == 0);
  EXPECT(ember_status_string(EMBER_STATUS_KernelNotLinked) != NULL);
  /* Any int a C caller passes has a name; one past uint8_t must not wrap onto a code. */
  EXPECT(strcmp(ember_status_string((ember_status)50), "unknown status") == 0);
  EXPECT(sizeof(ember_status) < 2 ||
         strcmp(ember_status_string((ember_status)256), "unknown status") == 0);
  EXPECT(strcmp(ember_status_string((ember_status)-1), "unknown status") == 0);
  return 0;
}
