/*===- main.c - A C program that runs an Ember model through the C API ----===*
 *
 * What C-only firmware does with the files `ember export-c` writes: one static arena per
 * memory region in the section the board's linker script places in that region, load the
 * program with its kernel table, initialise an executor over the arenas, fill the inputs, run,
 * read the outputs. Every call returns a status; nothing is allocated. `ember export-c
 * --bundle` ships this file as example/main.c; its Makefile builds it for the target's QEMU
 * board. The inputs are a fixed pattern (a real product reads a sensor) and every output is
 * printed in hex, so a host run of the same bytes can be compared bit for bit.
 */
#include <stdint.h>

#include "ember/runtime/ember.h"
#include "ember/targets/boards/board.h"
#include "model.h"

#define ARENA(index, name, bytes) \
  static _Alignas(16) uint8_t arena_##index[bytes] __attribute__((section(".ember_arena." #name)));
MODEL_REGIONS(ARENA)
#define REGION(index, name, bytes) {arena_##index, bytes},
static const ember_region regions[] = {MODEL_REGIONS(REGION)};

static ember_program program;
static ember_executor executor;

/* The pattern (i * 37) % 256 - 128 in each input's own type. */
static int32_t pattern(uint32_t i) { return (int32_t)((i * 37u) % 256u) - 128; }

static void fill(const ember_tensor* t) {
  if (t->dtype == EMBER_DTYPE_INT8) {
    for (uint32_t i = 0; i < t->bytes; ++i) ((int8_t*)t->data)[i] = (int8_t)pattern(i);
  } else if (t->dtype == EMBER_DTYPE_INT32) {
    for (uint32_t i = 0; i < t->bytes / 4; ++i) ((int32_t*)t->data)[i] = pattern(i);
  } else {
    for (uint32_t i = 0; i < t->bytes / 4; ++i) ((float*)t->data)[i] = (float)pattern(i) * 0.05f;
  }
}

static int fail(const char* step, ember_status status) {
  board_printf("example: %s failed: %s\n", step, ember_status_string(status));
  return kBoardExitRuntimeError;
}

int main(void) {
  ember_status s = ember_program_load(model_program, MODEL_PROGRAM_BYTES, &model_kernel_table, &program);
  if (s != EMBER_STATUS_Ok) return fail("load", s);
  s = ember_executor_init(&executor, &program, regions, MODEL_NUM_REGIONS);
  if (s != EMBER_STATUS_Ok) return fail("init", s);
  ember_tensor t;
  for (uint32_t i = 0; i < MODEL_NUM_INPUTS; ++i) {
    s = ember_executor_input(&executor, i, &t);  /* zero-copy: written where the model reads it */
    if (s != EMBER_STATUS_Ok) return fail("input", s);
    fill(&t);
  }
  s = ember_executor_run(&executor);
  if (s != EMBER_STATUS_Ok) return fail("run", s);
  for (uint32_t i = 0; i < MODEL_NUM_OUTPUTS; ++i) {
    s = ember_executor_output(&executor, i, &t);
    if (s != EMBER_STATUS_Ok) return fail("output", s);
    board_printf("example: output %lu:", (unsigned long)i);
    for (uint32_t b = 0; b < t.bytes; ++b) board_printf(" %02x", ((const uint8_t*)t.data)[b]);
    board_printf("\n");
  }
  return kBoardExitPass;
}
