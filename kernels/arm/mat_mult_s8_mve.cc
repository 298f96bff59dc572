//===- mat_mult_s8_mve.cc - mat_mult_s8 with Helium -----------------------===//
//
// Register blocks of three rows x two columns: per 16 depth elements five VLDRB and six
// VMLADAVA (96 MACs), in a tail-predicated low-overhead
// loop (DLSTP.8/LETP), so the depth tail costs nothing extra: its inactive lanes neither load
// nor add. The loop is inline asm because VMLADAVA needs even-numbered accumulator registers
// (the "Te" constraint) and GCC 12 neither emits DLSTP loops nor keeps six accumulators and
// five pointers out of the stack on its own.
//
// Two such passes give a 3 x 4 block, each row's four columns one vector that requantizes
// with the columns' multipliers and shifts and leaves with one four-byte store. In the usual
// case (four real columns, every shift <= -1) the whole run of blocks down a column group is
// one asm statement (blocks_3x4_right): the biases start the sums, and requantization, clamp
// and stores stay in registers (GCC spilled doing the same in intrinsics). Other groups requantize in intrinsics. Column groups of four are the outer
// loop, so the constants are loaded once per group, not per block (unless the output overlaps
// the input: see mat_mult_s8). The last rows % 3 rows take
// one row x four columns per pass (one VLDRB of the row, four of the weights, four
// VMLADAVA). A column tail (cols % 4) repeats the last valid weight row in the unused slots
// and stores only the valid lanes. Two special shapes:
//   depth <= 16 (small pointwise layers): a row is one zero-predicated vector, the four
//     columns' weights stay in registers, and a row costs one load and four VMLADAV;
//   fewer than three rows (fully connected): one row x four columns in intrinsics, where a
//     DLSTP loop's setup and the tile round trip would cost more than they save.
// Cortex-M55/M85.

#include "ember/kernels/arm/tier.h"

#if EMBER_TIER == EMBER_TIER_MVE

#include "ember/kernels/arm/mat_mult_s8.h"
#include "ember/kernels/arm/primitives_mve.h"

namespace ember::kernels::arm {

namespace {

// The loop of one 3x2 pass, label L (a digit): per 16 bytes of depth (tail-predicated by the
// DLSTP before it), the two weight rows at operands WA and WB against rows p0, p1, p2, into
// accumulators a00..a21 (VMLADAVA needs even registers: constraint "Te").
#define EMBER_MVE_3X2_LOOP(L, WA, WB)                                                   \
  L ":\n"                                                                                \
  "vldrb.8 q0, [%[" WA "]], #16\n"                                                       \
  "vldrb.8 q1, [%[" WB "]], #16\n"                                                       \
  "vldrb.8 q2, [%[p0]], #16\n"                                                           \
  "vmladava.s8 %[a00], q2, q0\n"                                                         \
  "vmladava.s8 %[a01], q2, q1\n"                                                         \
  "vldrb.8 q2, [%[p1]], #16\n"                                                           \
  "vmladava.s8 %[a10], q2, q0\n"                                                         \
  "vmladava.s8 %[a11], q2, q1\n"                                                         \
  "vldrb.8 q2, [%[p2]], #16\n"                                                           \
  "vmladava.s8 %[a20], q2, q0\n"                                                         \
  "vmladava.s8 %[a21], q2, q1\n"                                                         \
  "letp lr, " L "b\n"


// acc[4 * i + j] = sum_k p_i[k] * w_j[k] for rows i < 3, columns j < 2 (the tile's columns
// `col` and `col + 1`). n > 0.
inline void dot_3x2(const int8_t* p0, const int8_t* p1, const int8_t* p2, const int8_t* w0, const int8_t* w1,
                    int32_t n, int32_t* acc) {
  // a00 carries the count in (DLSTP takes it into LR) and is then cleared: one register
  // fewer, which the inlined block needs (eleven operands of the thirteen allocatable).
  int32_t a00 = n, a01 = 0, a10 = 0, a11 = 0, a20 = 0, a21 = 0;
  __asm__(
      "dlstp.8 lr, %[a00]\n"
      "movs %[a00], #0\n"
      EMBER_MVE_3X2_LOOP("1", "w0", "w1")
      : [a00] "+Te"(a00), [a01] "+Te"(a01), [a10] "+Te"(a10), [a11] "+Te"(a11), [a20] "+Te"(a20),
        [a21] "+Te"(a21), [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2), [w0] "+r"(w0), [w1] "+r"(w1)
      :
      : "q0", "q1", "q2", "lr", "cc", "memory");
  acc[0] = a00, acc[1] = a01, acc[4] = a10, acc[5] = a11, acc[8] = a20, acc[9] = a21;
}

// A 3 x 4 block's two 3x2 passes: the first over columns 0 and 2 (wa, wb), the second over
// columns 1 and 3. After each, VMOV moves the accumulators into vector lanes two at a time
// (VMOV Qd[2], Qd[0], Rt, Rt2 puts Rt in lane 0 and Rt2 in lane 2, as QEMU executes it and as
// later GCC's vcreateq pattern orders it), so the block needs no stack tile. Between them the
// caller's assembly sets up the second pass's pointers and puts the count in a00.
#define EMBER_MVE_3X4_LANES(HI, LO)                                                                \
  "vmov %q[v0][" HI "], %q[v0][" LO "], %[a00], %[a01]\n"                                          \
  "vmov %q[v1][" HI "], %q[v1][" LO "], %[a10], %[a11]\n"                                          \
  "vmov %q[v2][" HI "], %q[v2][" LO "], %[a20], %[a21]\n"
#define EMBER_MVE_3X4_PASS1                                                                        \
  "dlstp.8 lr, %[a00]\n"                                                                           \
  "movs %[a00], #0\n"                                                                              \
  EMBER_MVE_3X2_LOOP("1", "wa", "wb")                                                              \
  EMBER_MVE_3X4_LANES("2", "0")
#define EMBER_MVE_3X4_PASS2                                                                        \
  "dlstp.8 lr, %[a00]\n"                                                                           \
  "movs %[a00], #0\n"                                                                              \
  "movs %[a01], #0\n"                                                                              \
  "movs %[a10], #0\n"                                                                              \
  "movs %[a11], #0\n"                                                                              \
  "movs %[a20], #0\n"                                                                              \
  "movs %[a21], #0\n"                                                                              \
  EMBER_MVE_3X2_LOOP("2", "wa", "wb")                                                              \
  EMBER_MVE_3X4_LANES("3", "1")
#define EMBER_MVE_3X4_OUTPUTS                                                                      \
  [a00] "+Te"(a00), [a01] "+Te"(a01), [a10] "+Te"(a10), [a11] "+Te"(a11), [a20] "+Te"(a20),         \
      [a21] "+Te"(a21), [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2), [wa] "+r"(wa), [wb] "+r"(wb), \
      [v0] "=&w"(v0), [v1] "=&w"(v1), [v2] "=&w"(v2)

// A whole 3 x 4 block (n > 0), its results left in three vectors, row i's columns 0..3 in
// r_i's lanes 0..3. The second pass's weight pointers and the row pointers' rewind (a pass
// advances them by 16 * ceil(n / 16)) come from memory operands into the registers the first
// pass used, so there are no pointer reloads in C.
inline void dot_3x4(const int8_t* p0, const int8_t* p1, const int8_t* p2, const int8_t* const w[4], int32_t n,
                    int32x4_t* r0, int32x4_t* r1, int32x4_t* r2) {
  const int8_t* wa = w[0];
  const int8_t* wb = w[2];
  const int32_t back = (n + 15) & ~15;
  int32_t a00 = n, a01 = 0, a10 = 0, a11 = 0, a20 = 0, a21 = 0;
  int32x4_t v0, v1, v2;
  __asm__(
      EMBER_MVE_3X4_PASS1
      "ldr %[a00], %[back]\n"
      "subs %[p0], %[p0], %[a00]\n"
      "subs %[p1], %[p1], %[a00]\n"
      "subs %[p2], %[p2], %[a00]\n"
      "ldr %[wa], %[w1]\n"
      "ldr %[wb], %[w3]\n"
      "ldr %[a00], %[n]\n"
      EMBER_MVE_3X4_PASS2
      : EMBER_MVE_3X4_OUTPUTS
      : [n] "m"(n), [back] "m"(back), [w1] "m"(w[1]), [w3] "m"(w[3])
      : "q0", "q1", "q2", "lr", "cc", "memory");
  *r0 = v0, *r1 = v1, *r2 = v2;
}

// dot_3x4 when n % 16 == 0: after the first pass the weight pointers stand exactly at columns
// 1 and 3, since the weight rows are contiguous and a pass advances each pointer by n, and the
// row pointers step back by n.
inline void dot_3x4_aligned(const int8_t* p0, const int8_t* p1, const int8_t* p2, const int8_t* wa, const int8_t* wb,
                            int32_t n, int32x4_t* r0, int32x4_t* r1, int32x4_t* r2) {
  int32_t a00 = n, a01 = 0, a10 = 0, a11 = 0, a20 = 0, a21 = 0;
  int32x4_t v0, v1, v2;
  __asm__(
      EMBER_MVE_3X4_PASS1
      "ldr %[a00], %[n]\n"
      "subs %[p0], %[p0], %[a00]\n"
      "subs %[p1], %[p1], %[a00]\n"
      "subs %[p2], %[p2], %[a00]\n"
      EMBER_MVE_3X4_PASS2
      : EMBER_MVE_3X4_OUTPUTS
      : [n] "m"(n)
      : "q0", "q1", "q2", "lr", "cc", "memory");
  *r0 = v0, *r1 = v1, *r2 = v2;
}

// What blocks_3x4_right reads from memory: a local of the caller, so each field is an
// sp-relative operand and takes no register (the loop needs eleven and LR), mostly in pairs
// that one LDRD loads (an asm statement takes at most 30 operands).
template <typename T>
struct Pair {
  T first, second;
};
struct BlockConstants {
  Pair<int32_t> depth;            // depth, and how far a pass moves the row pointers (16 * ceil(depth / 16))
  Pair<const int8_t*> w02, w13;   // the weight rows of each pass's two columns
  Pair<int32_t> bias02, bias13;   // and their biases
  Pair<int32_t> clamp;            // act_min, act_max
  Pair<int32_t> zp_stride;        // output_zp, out_stride
  int32_t step;                   // from a block's row pointers after its passes to the next block's
  struct {
    int8_t* out;                  // the next block's first output row
    int32_t blocks;               // blocks left
  } cursor;
};

// Starts a pass: the count from a00 into LR, then the accumulators set to the two columns'
// biases (the bias folded into the sums costs no vector add and no vector register).
#define EMBER_MVE_BIAS_START(BIAS)                                                                 \
  "dlstp.8 lr, %[a00]\n"                                                                           \
  "ldrd %[a00], %[a01], %[" BIAS "]\n"                                                             \
  "mov %[a10], %[a00]\n"                                                                           \
  "mov %[a20], %[a00]\n"                                                                           \
  "mov %[a11], %[a01]\n"                                                                           \
  "mov %[a21], %[a01]\n"

// Row R's requantization when some lane may be a tie, half and mask in q0 and q1 (set by the
// caller): P0 from its own doubled low products, then the fix-up.
#define EMBER_MVE_ROW_TIE(R)                      \
  EMBER_MVE_LOW2("q2", R, "%q[mult]")             \
  "vcmp.i32 eq, q2, zr\n"                         \
  "vqdmulh.s32 " R ", " R ", %q[mult]\n"          \
  EMBER_MVE_TIE_LANES(R, "q2", "q1", "q0")        \
  EMBER_MVE_SHIFT_EVEN(R, "%q[shift]")

// Row R's zero point (a00), clamp (q0, q1) and four-byte store at wa (VSTRB.32 takes a low
// register), which then steps by a01.
#define EMBER_MVE_ROW_STORE(R)                                                                     \
  "vqadd.s32 " R ", " R ", %[a00]\n"                                                               \
  "vmax.s32 " R ", " R ", q0\n"                                                                    \
  "vmin.s32 " R ", " R ", q1\n"                                                                    \
  "vstrb.32 " R ", [%[wa]]\n"                                                                      \
  "add %[wa], %[wa], %[a01]\n"

// c.cursor.blocks (> 0) 3 x 4 blocks down the rows from p0, p1, p2, requantized and stored,
// when every column's shift is <= -1 and all four columns are real. Per block: the two passes
// of dot_3x4 with the biases as the sums' start, rows in q3..q5, then requantize_mve and
// offset_clamp_mve on each row with mult and shift held in registers for the whole loop. The
// C form spilled: three rows, five constant vectors and the temporaries are more than the
// eight Q registers. Blocks whose rows may hold a tie (rare)
// take the rounding fix-up in subsection 1, out of the straight path.
__attribute__((always_inline)) inline void blocks_3x4_right(const int8_t* p0, const int8_t* p1, const int8_t* p2,
                                                            BlockConstants& c, int32x4_t mult, int32x4_t shift) {
  int32_t a00, a01, a10, a11, a20, a21;
  const int8_t* wa;
  const int8_t* wb;
  __asm__ volatile(
      "0:\n"
      "ldrd %[wa], %[wb], %[w02]\n"
      "ldr %[a00], %[depth]\n"
      EMBER_MVE_BIAS_START("bias02")
      EMBER_MVE_3X2_LOOP("1", "wa", "wb")
      "vmov q3[2], q3[0], %[a00], %[a01]\n"
      "vmov q4[2], q4[0], %[a10], %[a11]\n"
      "vmov q5[2], q5[0], %[a20], %[a21]\n"
      "ldrd %[a00], %[a01], %[depth]\n"
      "subs %[p0], %[p0], %[a01]\n"
      "subs %[p1], %[p1], %[a01]\n"
      "subs %[p2], %[p2], %[a01]\n"
      "ldrd %[wa], %[wb], %[w13]\n"
      EMBER_MVE_BIAS_START("bias13")
      EMBER_MVE_3X2_LOOP("2", "wa", "wb")
      "vmov q3[3], q3[1], %[a00], %[a01]\n"
      "vmov q4[3], q4[1], %[a10], %[a11]\n"
      "vmov q5[3], q5[1], %[a20], %[a21]\n"
      // A tie is possible only where some row's doubled low product is 0.
      EMBER_MVE_LOW2("q0", "q3", "%q[mult]")
      EMBER_MVE_LOW2("q2", "q4", "%q[mult]")
      "vmin.u32 q0, q0, q2\n"
      EMBER_MVE_LOW2("q2", "q5", "%q[mult]")
      "vmin.u32 q0, q0, q2\n"
      "vcmp.i32 eq, q0, zr\n"
      "vmrs %[a00], p0\n"
      "lsls %[a00], %[a00], #16\n"
      "bne 4f\n"
      "vqdmulh.s32 q3, q3, %q[mult]\n"
      "vqdmulh.s32 q4, q4, %q[mult]\n"
      "vqdmulh.s32 q5, q5, %q[mult]\n"
      "vrshl.s32 q3, q3, %q[shift]\n"
      "vrshl.s32 q4, q4, %q[shift]\n"
      "vrshl.s32 q5, q5, %q[shift]\n"
      "3:\n"
      "ldrd %[a01], %[a10], %[clamp]\n"
      "vdup.32 q0, %[a01]\n"
      "vdup.32 q1, %[a10]\n"
      "ldrd %[a00], %[a01], %[zp_stride]\n"
      "ldrd %[wa], %[a21], %[cursor]\n"
      EMBER_MVE_ROW_STORE("q3")
      EMBER_MVE_ROW_STORE("q4")
      EMBER_MVE_ROW_STORE("q5")
      "ldr %[a00], %[step]\n"
      "add %[p0], %[p0], %[a00]\n"
      "add %[p1], %[p1], %[a00]\n"
      "add %[p2], %[p2], %[a00]\n"
      "subs %[a21], %[a21], #1\n"
      "strd %[wa], %[a21], %[cursor]\n"
      "bne 0b\n"
      ".subsection 1\n"
      "4:\n"
      "movs %[a01], #1\n"
      EMBER_MVE_HALF_MASK("q0", "q1", "%q[shift]", "%[a01]")
      EMBER_MVE_ROW_TIE("q3")
      EMBER_MVE_ROW_TIE("q4")
      EMBER_MVE_ROW_TIE("q5")
      "b 3b\n"
      ".subsection 0\n"
      : [a00] "=&Te"(a00), [a01] "=&Te"(a01), [a10] "=&Te"(a10), [a11] "=&Te"(a11), [a20] "=&Te"(a20),
        [a21] "=&Te"(a21), [wa] "=&l"(wa), [wb] "=&r"(wb), [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2),
        [cursor] "+m"(c.cursor)
      : [mult] "w"(mult), [shift] "w"(shift), [depth] "m"(c.depth), [w02] "m"(c.w02), [w13] "m"(c.w13),
        [bias02] "m"(c.bias02), [bias13] "m"(c.bias13), [clamp] "m"(c.clamp), [zp_stride] "m"(c.zp_stride),
        [step] "m"(c.step)
      : "q0", "q1", "q2", "q3", "q4", "q5", "lr", "cc", "memory");
}

#undef EMBER_MVE_ROW_STORE
#undef EMBER_MVE_ROW_TIE
#undef EMBER_MVE_BIAS_START
#undef EMBER_MVE_3X4_OUTPUTS
#undef EMBER_MVE_3X4_PASS2
#undef EMBER_MVE_3X4_PASS1
#undef EMBER_MVE_3X4_LANES

// acc[j] = sum_k p[k] * w_j[k] for columns j < 4. n > 0.
inline void dot_1x4(const int8_t* p, const int8_t* w0, const int8_t* w1, const int8_t* w2, const int8_t* w3,
                    int32_t n, int32_t* acc) {
  int32_t a0 = n, a1 = 0, a2 = 0, a3 = 0;  // a0: the count, as in dot_3x2
  __asm__(
      "dlstp.8 lr, %[a0]\n"
      "movs %[a0], #0\n"
      "1:\n"
      "vldrb.8 q0, [%[p]], #16\n"
      "vldrb.8 q1, [%[w0]], #16\n"
      "vmladava.s8 %[a0], q0, q1\n"
      "vldrb.8 q2, [%[w1]], #16\n"
      "vmladava.s8 %[a1], q0, q2\n"
      "vldrb.8 q1, [%[w2]], #16\n"
      "vmladava.s8 %[a2], q0, q1\n"
      "vldrb.8 q2, [%[w3]], #16\n"
      "vmladava.s8 %[a3], q0, q2\n"
      "letp lr, 1b\n"
      : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [p] "+r"(p), [w0] "+r"(w0),
        [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
      :
      : "q0", "q1", "q2", "lr", "cc", "memory");
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

// The per-column constants of columns [col, col + count), count <= 4, as vectors; lanes past
// count are never loaded (zero-predicated) and their shift reads -1, so the shift-form test
// sees only real columns.
struct Columns {
  int32x4_t bias, mult, shift, act_min, act_max;
  int32_t zp;
  mve_pred16_t pred;
};

inline Columns columns(const MatMultS8& m, int32_t col, int32_t count) {
  Columns k;
  k.pred = vctp32q(static_cast<uint32_t>(count));
  k.bias = vldrwq_z_s32(m.bias + col, k.pred);
  k.mult = vldrwq_z_s32(m.multiplier + col, k.pred);
  k.shift = vpselq_s32(vldrwq_z_s32(m.shift + col, k.pred), vdupq_n_s32(-1), k.pred);
  k.act_min = vdupq_n_s32(m.act_min), k.act_max = vdupq_n_s32(m.act_max);
  k.zp = m.output_zp;
  return k;
}

// One row's four accumulators (acc[0..3]) to bytes at out. kRight: every shift <= -1 (the
// cheaper form); kFull: four real columns (an unpredicated store).
template <bool kRight, bool kFull>
inline void store_row(const Columns& k, const int32_t* acc, int8_t* out) {
  const int32x4_t a = vaddq_s32(vldrwq_s32(acc), k.bias);
  const int32x4_t r = kRight ? requantize_mve(a, k.mult, k.shift) : requantize_mve_any(a, k.mult, k.shift);
  // As offset_clamp_mve, with the clamp bounds kept in registers across the rows.
  const int32x4_t v = vminq_s32(vmaxq_s32(vqaddq_n_s32(r, k.zp), k.act_min), k.act_max);
  if (kFull) vstrbq_s32(out, v);
  else vstrbq_p_s32(out, v, k.pred);
}

// As store_row, for a row already in a vector, with any shifts (requantize_mve_any).
inline void store_vector_any(const Columns& k, int32x4_t acc, int8_t* out) {
  const int32x4_t r = requantize_mve_any(vaddq_s32(acc, k.bias), k.mult, k.shift);
  vstrbq_s32(out, vminq_s32(vmaxq_s32(vqaddq_n_s32(r, k.zp), k.act_min), k.act_max));
}

// The last rows % 3 rows of a four-column group, one row x four columns at a time.
template <bool kRight>
inline void last_rows(const MatMultS8& m, const Columns& k, const int8_t* w, int32_t r, const int8_t* l, int8_t* out) {
  const size_t d = static_cast<size_t>(m.depth);
  int32_t acc[4];  // no alignas: stack realignment would take r7, which blocks_3x4_right needs
  for (; r < m.rows; ++r, l += m.lhs_stride, out += m.out_stride) {
    dot_1x4(l, w, w + d, w + 2 * d, w + 3 * d, m.depth, acc);
    store_row<kRight, true>(k, acc, out);
  }
}

// Four columns whose shifts are all <= -1 (the usual case): blocks_3x4_right, then the last
// rows % 3. rows >= 3. c holds what every column group shares (mat_mult_s8 fills it once per
// call: im2col calls come every six rows, so per-call work counts).
__attribute__((noinline)) void column_group_right(const MatMultS8& m, int32_t col, BlockConstants& c) {
  const size_t d = static_cast<size_t>(m.depth), ls = static_cast<size_t>(m.lhs_stride);
  const int8_t* w = m.rhs + static_cast<size_t>(col) * d;
  const int32_t blocks = m.rows / 3;
  c.w02 = {w, w + 2 * d};
  c.w13 = {w + d, w + 3 * d};
  c.bias02 = {m.bias[col], m.bias[col + 2]};
  c.bias13 = {m.bias[col + 1], m.bias[col + 3]};
  c.cursor = {m.out + col, blocks};
  blocks_3x4_right(m.lhs, m.lhs + ls, m.lhs + 2 * ls, c, vldrwq_s32(m.multiplier + col), vldrwq_s32(m.shift + col));
  if (3 * blocks < m.rows)
    last_rows<true>(m, columns(m, col, 4), w, 3 * blocks, m.lhs + static_cast<size_t>(3 * blocks) * ls, c.cursor.out);
}

// Four columns with some shift >= 0: dot_3x4 blocks (dot_3x4_aligned when depth % 16 == 0,
// which needs no pointer loads between its passes) and the general requantization, then the
// last rows % 3.
template <bool kAligned>
__attribute__((noinline)) void column_group_any(const MatMultS8& m, int32_t col) {
  const Columns k = columns(m, col, 4);
  const size_t d = static_cast<size_t>(m.depth);
  const int8_t* w = m.rhs + static_cast<size_t>(col) * d;
  const int8_t* const ws[4] = {w, w + d, w + 2 * d, w + 3 * d};
  const size_t ls = static_cast<size_t>(m.lhs_stride), os = static_cast<size_t>(m.out_stride);
  const int8_t* l = m.lhs;
  int8_t* out = m.out + col;
  int32_t r = 0;
  for (; r + 3 <= m.rows; r += 3, l += 3 * ls, out += 3 * os) {
    int32x4_t v0, v1, v2;
    if (kAligned) dot_3x4_aligned(l, l + ls, l + 2 * ls, w, w + 2 * d, m.depth, &v0, &v1, &v2);
    else dot_3x4(l, l + ls, l + 2 * ls, ws, m.depth, &v0, &v1, &v2);
    store_vector_any(k, v0, out);
    store_vector_any(k, v1, out + os);
    store_vector_any(k, v2, out + 2 * os);
  }
  last_rows<false>(m, k, w, r, l, out);
}

// Columns [col, col + count) of every row. The columns' constants stay in registers across
// the rows; the weight rows of slots past count repeat the last column (read, never stored).
// The tile's lanes that no pass writes (count <= 2) stay zero.
template <bool kRight, bool kFull>
__attribute__((noinline)) void column_group(const MatMultS8& m, int32_t col, int32_t count) {
  const Columns k = columns(m, col, count);
  const size_t d = static_cast<size_t>(m.depth);
  const int8_t* w[4];
  for (int32_t j = 0; j < 4; ++j) w[j] = m.rhs + static_cast<size_t>(col + (j < count ? j : count - 1)) * d;
  const size_t ls = static_cast<size_t>(m.lhs_stride), os = static_cast<size_t>(m.out_stride);
  alignas(16) int32_t acc[12];
  for (int32_t i = 0; i < 12; i += 4) vstrwq_s32(acc + i, vdupq_n_s32(0));  // not a memset call
  const int8_t* l = m.lhs;
  int8_t* out = m.out + col;
  int32_t r = 0;
  for (; r + 3 <= m.rows; r += 3, l += 3 * ls, out += 3 * os) {
    dot_3x2(l, l + ls, l + 2 * ls, w[0], w[1], m.depth, acc);
    if (count > 2) dot_3x2(l, l + ls, l + 2 * ls, w[2], w[3], m.depth, acc + 2);
    store_row<kRight, kFull>(k, acc, out);
    store_row<kRight, kFull>(k, acc + 4, out + os);
    store_row<kRight, kFull>(k, acc + 8, out + 2 * os);
  }
  for (; r < m.rows; ++r, l += ls, out += os) {
    dot_1x4(l, w[0], w[1], w[2], w[3], m.depth, acc);
    store_row<kRight, kFull>(k, acc, out);
  }
}

// The constants shallow_right's assembly loads, at fixed offsets.
struct ShallowConstants {
  int32_t mult[4], shift[4], bias[4], act_min[4], act_max[4];
};
static_assert(sizeof(ShallowConstants) == 80, "ShallowConstants layout");

// shallow_right's loop. LD loads a row or a weight row (VLDRB.8: 16 int8 lanes; VLDRB.S16: 8
// bytes as int16 lanes), DOT is the matching VMLADAV, W1..W3 the weight rows' offsets. q4..q7
// hold the four columns' weights (q7 is reloaded after each row, which frees it as the
// temporary), q1..q3 the multipliers, shifts and biases, q0 the row and then its outputs.
#define EMBER_MVE_SHALLOW(LD, DOT, W1, W2, W3)                                      \
  "vldrw.32 q1, [%[c]]\n"                                                           \
  "vldrw.32 q2, [%[c], #16]\n"                                                      \
  "vldrw.32 q3, [%[c], #32]\n"                                                      \
  LD " q4, [%[w]]\n"                                                                \
  LD " q5, [%[w], #" W1 "]\n"                                                       \
  LD " q6, [%[w], #" W2 "]\n"                                                       \
  LD " q7, [%[w], #" W3 "]\n"                                                       \
  "dls lr, %[rows]\n"                                                               \
  "1:\n"                                                                            \
  LD " q0, [%[p]]\n"                                                                \
  "add %[p], %[p], %[ls]\n"                                                         \
  DOT " %[a0], q0, q4\n"                                                            \
  DOT " %[a1], q0, q5\n"                                                            \
  DOT " %[a2], q0, q6\n"                                                            \
  DOT " %[a3], q0, q7\n"                                                            \
  "vmov q0[2], q0[0], %[a0], %[a2]\n"                                               \
  "vmov q0[3], q0[1], %[a1], %[a3]\n"                                               \
  "vadd.i32 q0, q0, q3\n"                                                           \
  /* requantize_mve: lanes whose doubled low product is 0 may be ties */            \
  EMBER_MVE_LOW2("q7", "q0", "q1")                                                  \
  "vcmp.i32 eq, q7, zr\n"                                                           \
  "vmrs %[f], p0\n"                                                                 \
  "lsls %[a0], %[f], #16\n" /* f itself is the fix-up's predicate */                \
  "bne 4f\n"                                                                        \
  "vqdmulh.s32 q0, q0, q1\n"                                                        \
  "vrshl.s32 q0, q0, q2\n"                                                          \
  "3:\n"                                                                            \
  "vqadd.s32 q0, q0, %[zp]\n"                                                       \
  "vldrw.32 q7, [%[c], #48]\n"                                                      \
  "vmax.s32 q0, q0, q7\n"                                                           \
  "vldrw.32 q7, [%[c], #64]\n"                                                      \
  "vmin.s32 q0, q0, q7\n"                                                           \
  "vstrb.32 q0, [%[out]]\n"                                                         \
  "add %[out], %[out], %[os]\n"                                                     \
  LD " q7, [%[w], #" W3 "]\n"                                                       \
  "le lr, 1b\n"                                                                     \
  ".subsection 1\n"                                                                 \
  /* the fix-up: half = 2^(k-1) in q7, mask in q6 (reloaded after), P0 the ties */  \
  "4:\n"                                                                            \
  "vmsr p0, %[f]\n"                                                                 \
  "movs %[f], #1\n"                                                                 \
  EMBER_MVE_HALF_MASK("q7", "q6", "q2", "%[f]")                                     \
  "vqdmulh.s32 q0, q0, q1\n"                                                        \
  EMBER_MVE_TIE_LANES("q0", "q6", "q6", "q7")                                       \
  EMBER_MVE_SHIFT_EVEN("q0", "q2")                                                  \
  LD " q6, [%[w], #" W2 "]\n"                                                       \
  "b 3b\n"                                                                          \
  ".subsection 0\n"

// Four real columns with shifts <= -1 at depth 8 or 16 (vww's first pointwise layers, ic's
// first shortcut), in assembly: per row one load, four VMLADAV, two VMOV into lanes, the bias,
// requantize_mve with its tie test, clamp and store, in place of the intrinsics, which spill
// (four weight rows, five constant vectors and the row exceed
// the eight Q registers: here the clamp bounds are loaded per row and the last weight row is
// reloaded). The tie fix-up runs in subsection 1. Depth 8 loads bytes as int16 lanes
// (VLDRB.S16), so neither depth needs a predicate.
template <int32_t kDepth>
__attribute__((noinline)) void shallow_right(const MatMultS8& m, int32_t col) {
  ShallowConstants c;
  for (int32_t j = 0; j < 4; ++j) {
    c.mult[j] = m.multiplier[col + j], c.shift[j] = m.shift[col + j], c.bias[j] = m.bias[col + j];
    c.act_min[j] = m.act_min, c.act_max[j] = m.act_max;
  }
  const int8_t* p = m.lhs;
  int8_t* out = m.out + col;
  int32_t a0, a1, a2, a3, f;
  // The operands of both forms.
#define EMBER_MVE_SHALLOW_OPERANDS                                                                                 \
  : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [f] "=&r"(f), [p] "+r"(p), [out] "+l"(out) \
  : [c] "r"(&c), [w] "r"(m.rhs + static_cast<size_t>(col) * kDepth), [ls] "r"(m.lhs_stride),                      \
    [os] "r"(m.out_stride), [zp] "r"(m.output_zp), [rows] "r"(m.rows)                                               \
  : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "lr", "cc", "memory"
  if constexpr (kDepth == 16)
    __asm__ volatile(EMBER_MVE_SHALLOW("vldrb.8", "vmladav.s8", "16", "32", "48") EMBER_MVE_SHALLOW_OPERANDS);
  else
    __asm__ volatile(EMBER_MVE_SHALLOW("vldrb.s16", "vmladav.s16", "8", "16", "24") EMBER_MVE_SHALLOW_OPERANDS);
#undef EMBER_MVE_SHALLOW_OPERANDS
}
#undef EMBER_MVE_SHALLOW

// Depth <= 16: each row is one zero-predicated vector and the four columns' weights stay in
// registers across the rows, so a row costs one load and four VMLADAV; no loop, no tile.
template <bool kRight, bool kFull>
__attribute__((noinline)) void shallow_group(const MatMultS8& m, int32_t col, int32_t count) {
  const Columns k = columns(m, col, count);
  const mve_pred16_t dp = vctp8q(static_cast<uint32_t>(m.depth));
  const size_t d = static_cast<size_t>(m.depth);
  const int8_t* w = m.rhs + static_cast<size_t>(col) * d;
  const int8x16_t w0 = vldrbq_z_s8(w, dp);
  const int8x16_t w1 = vldrbq_z_s8(count > 1 ? w + d : w, dp);
  const int8x16_t w2 = vldrbq_z_s8(count > 2 ? w + 2 * d : w, dp);
  const int8x16_t w3 = vldrbq_z_s8(count > 3 ? w + 3 * d : w, dp);
  const int8_t* l = m.lhs;
  int8_t* out = m.out + col;
  for (int32_t r = 0; r < m.rows; ++r, l += m.lhs_stride, out += m.out_stride) {
    const int8x16_t x = vldrbq_z_s8(l, dp);
    int32x4_t a = vdupq_n_s32(vmladavq_s8(x, w0));
    a = vsetq_lane_s32(vmladavq_s8(x, w1), a, 1);
    a = vsetq_lane_s32(vmladavq_s8(x, w2), a, 2);
    a = vsetq_lane_s32(vmladavq_s8(x, w3), a, 3);
    a = vaddq_s32(a, k.bias);
    const int32x4_t q = kRight ? requantize_mve(a, k.mult, k.shift) : requantize_mve_any(a, k.mult, k.shift);
    const int32x4_t v = vminq_s32(vmaxq_s32(vqaddq_n_s32(q, k.zp), k.act_min), k.act_max);
    if (kFull) vstrbq_s32(out, v);
    else vstrbq_p_s32(out, v, k.pred);
  }
}

// What rows_1x4_right loads, at fixed offsets (the asm's comments name them).
struct RowConstants {
  const int32_t* bias;   // 0
  const int32_t* mult;   // 4
  const int32_t* shift;  // 8
  int8_t* out;           // 12
  const int8_t* x;       // 16: the row
  int32_t rewind;        // 20: d - (d rounded up to 16): the loop's last weight pointer to the next group
  int32_t col4_end;      // 24: 4 * the columns that fill groups of four
  int32_t pad;
  int32_t zp[4], act_min[4], act_max[4];  // 32, 48, 64
};
static_assert(sizeof(void*) == 4 && sizeof(RowConstants) == 80, "RowConstants layout (32-bit)");

// The row c.x against the column groups of four from w0 (depth d, any: DLSTP.8 predicates the
// tail), col4 = 4 * the first group's first column, for as long as every shift of a group is
// <= -1 and col4 < c.col4_end. Returns the col4 it stopped at. One asm loop over the groups: per
// group the shift check, the biases starting the four sums, a DLSTP loop over the depth, then
// the requantization, clamp and store (one asm block per group, with the C around it, reloaded
// and recomputed per group what this loop keeps). The output zero point and the clamp stay in
// q4 to q6 for the whole run.
int32_t rows_1x4_right(const RowConstants& c, const int8_t* w0, int32_t d, int32_t col4) {
  int32_t a0, a1, a2, a3;
  const int8_t *x, *w1, *w2, *w3;
  __asm__ volatile(
      "vldrw.32 q4, [%[c], #32]\n"
      "vldrw.32 q5, [%[c], #48]\n"
      "vldrw.32 q6, [%[c], #64]\n"
      "1:\n"
      "ldr %[w3], [%[c], #8]\n"
      "add %[w3], %[w3], %[col4]\n"
      "vldrw.32 q2, [%[w3]]\n"  // shifts
      "mov %[a0], #0x80000000\n"
      "vmaxv.s32 %[a0], q2\n"
      "cmp %[a0], #0\n"
      "bge 5f\n"
      "ldr %[x], [%[c]]\n"
      "add %[x], %[x], %[col4]\n"
      "ldrd %[a0], %[a1], [%[x]]\n"  // + bias
      "ldrd %[a2], %[a3], [%[x], #8]\n"
      "ldr %[x], [%[c], #16]\n"
      "add %[w1], %[w0], %[d]\n"
      "add %[w2], %[w1], %[d]\n"
      "add %[w3], %[w2], %[d]\n"
      "dlstp.8 lr, %[d]\n"
      "2:\n"
      "vldrb.8 q0, [%[x]], #16\n"
      "vldrb.8 q1, [%[w0]], #16\n"
      "vmladava.s8 %[a0], q0, q1\n"
      "vldrb.8 q1, [%[w1]], #16\n"
      "vmladava.s8 %[a1], q0, q1\n"
      "vldrb.8 q1, [%[w2]], #16\n"
      "vmladava.s8 %[a2], q0, q1\n"
      "vldrb.8 q1, [%[w3]], #16\n"
      "vmladava.s8 %[a3], q0, q1\n"
      "letp lr, 2b\n"
      "vmov q0[2], q0[0], %[a0], %[a2]\n"
      "vmov q0[3], q0[1], %[a1], %[a3]\n"
      "ldr %[w0], [%[c], #20]\n"
      "add %[w0], %[w0], %[w3]\n"  // the next group's first column
      "ldr %[w1], [%[c], #4]\n"
      "add %[w1], %[w1], %[col4]\n"
      "vldrw.32 q1, [%[w1]]\n"  // multipliers
      // requantize_mve: lanes whose doubled low product is 0 may be ties.
      EMBER_MVE_LOW2("q3", "q0", "q1")
      "vcmp.i32 eq, q3, zr\n"
      "vmrs %[a1], p0\n"
      "lsls %[a0], %[a1], #16\n"
      "bne 4f\n"
      "vqdmulh.s32 q0, q0, q1\n"
      "vrshl.s32 q0, q0, q2\n"
      "3:\n"
      "vqadd.s32 q0, q0, q4\n"  // + output_zp
      "vmax.s32 q0, q0, q5\n"
      "vmin.s32 q0, q0, q6\n"
      "ldr %[w2], [%[c], #12]\n"
      "add %[w2], %[w2], %[col4], lsr #2\n"
      "vstrb.32 q0, [%[w2]]\n"
      "ldr %[a0], [%[c], #24]\n"
      "adds %[col4], #16\n"
      "cmp %[col4], %[a0]\n"
      "bne 1b\n"
      "5:\n"
      ".subsection 1\n"
      // The fix-up: P0 the tie candidates, half = 2^(k-1) in q3, the dropped bits' mask in q1.
      "4:\n"
      "vmsr p0, %[a1]\n"
      "vqdmulh.s32 q0, q0, q1\n"
      "movs %[a0], #1\n"
      EMBER_MVE_HALF_MASK("q3", "q1", "q2", "%[a0]")
      EMBER_MVE_TIE_LANES("q0", "q1", "q1", "q3")
      EMBER_MVE_SHIFT_EVEN("q0", "q2")
      "b 3b\n"
      ".subsection 0\n"
      : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [x] "=&r"(x), [w1] "=&r"(w1),
        [w2] "=&l"(w2), [w3] "=&r"(w3), [w0] "+r"(w0), [col4] "+r"(col4)
      : [c] "r"(&c), [d] "r"(d)
      : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "lr", "cc", "memory");
  return col4;
}

// Fewer than three rows (a fully connected layer's batch): one row against four columns at a
// time (rows_1x4_right while their shifts are all <= -1, else intrinsics with per-lane
// requantization), then single columns. For a single row the 3x4 blocks' passes would cost more
// than they save.
void row_x4(const MatMultS8& m, const int8_t* l0, int8_t* out) {
  const int32_t d = m.depth;
  const int32_t blocks = d >> 4, tail = d & 15;
  const mve_pred16_t tail_p = vctp8q(static_cast<uint32_t>(tail));
  RowConstants rc;
  rc.bias = m.bias, rc.mult = m.multiplier, rc.shift = m.shift, rc.out = out, rc.x = l0;
  rc.rewind = d - ((d + 15) & ~15);
  rc.col4_end = 4 * (m.cols & ~3);
  for (int32_t j = 0; j < 4; ++j) rc.zp[j] = m.output_zp, rc.act_min[j] = m.act_min, rc.act_max[j] = m.act_max;
  int32_t c = 0;
  while (c + 4 <= m.cols) {
    c = rows_1x4_right(rc, m.rhs + static_cast<size_t>(c) * d, d, 4 * c) >> 2;
    if (c + 4 > m.cols) break;
    const int8_t* w0 = m.rhs + static_cast<size_t>(c) * d;
    const int8_t* w1 = w0 + d;
    const int8_t* w2 = w1 + d;
    const int8_t* w3 = w2 + d;
    const int8_t* p = l0;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < blocks; ++i) {
      const int8x16_t x = vldrbq_s8(p);
      a0 = vmladavaq_s8(a0, x, vldrbq_s8(w0));
      a1 = vmladavaq_s8(a1, x, vldrbq_s8(w1));
      a2 = vmladavaq_s8(a2, x, vldrbq_s8(w2));
      a3 = vmladavaq_s8(a3, x, vldrbq_s8(w3));
      p += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16;
    }
    if (tail) {
      const int8x16_t x = vldrbq_z_s8(p, tail_p);
      a0 = vmladavaq_s8(a0, x, vldrbq_z_s8(w0, tail_p));
      a1 = vmladavaq_s8(a1, x, vldrbq_z_s8(w1, tail_p));
      a2 = vmladavaq_s8(a2, x, vldrbq_z_s8(w2, tail_p));
      a3 = vmladavaq_s8(a3, x, vldrbq_z_s8(w3, tail_p));
    }
    int32x4_t acc = vdupq_n_s32(a0);
    acc = vsetq_lane_s32(a1, acc, 1);
    acc = vsetq_lane_s32(a2, acc, 2);
    acc = vsetq_lane_s32(a3, acc, 3);
    acc = vaddq_s32(acc, vldrwq_s32(m.bias + c));
    const int32x4_t shift = vldrwq_s32(m.shift + c), mult = vldrwq_s32(m.multiplier + c);
    // A shift >= 0 in the group stopped rows_1x4_right.
    const int32x4_t rounded = requantize_mve_any(acc, mult, shift);
    vstrbq_s32(out + c, offset_clamp_mve(rounded, m.output_zp, m.act_min, m.act_max));
    c += 4;
  }
  for (; c < m.cols; ++c) {
    const int8_t* w = m.rhs + static_cast<size_t>(c) * d;
    const int8_t* p = l0;
    int32_t a = 0;
    for (int32_t i = 0; i < blocks; ++i, p += 16, w += 16) a = vmladavaq_s8(a, vldrbq_s8(p), vldrbq_s8(w));
    if (tail) a = vmladavaq_s8(a, vldrbq_z_s8(p, tail_p), vldrbq_z_s8(w, tail_p));
    a = static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(m.bias[c]));
    out[c] = requantize_s8(a, m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
  }
}

__attribute__((noinline)) void few_rows(const MatMultS8& m) {
  for (int32_t r = 0; r < m.rows; ++r)
    row_x4(m, m.lhs + static_cast<size_t>(r) * m.lhs_stride, m.out + static_cast<size_t>(r) * m.out_stride);
}

}  // namespace

void mat_mult_s8(const MatMultS8& m) {
  if (m.rows <= 0 || m.cols <= 0) return;
  if (m.depth <= 0) {
    // No products: every output is the requantized bias. (A DLSTP loop needs a count > 0.)
    for (int32_t r = 0; r < m.rows; ++r)
      for (int32_t c = 0; c < m.cols; ++c)
        m.out[static_cast<size_t>(r) * m.out_stride + c] =
            requantize_s8(m.bias[c], m.multiplier[c], m.shift[c], m.output_zp, m.act_min, m.act_max);
    return;
  }
  // Fewer than 3 rows take few_rows; else every column group of four.
  if (m.rows < 3) {
    few_rows(m);
    return;
  }
  const bool shallow = m.depth <= 16;
  BlockConstants c;
  c.depth = {m.depth, (m.depth + 15) & ~15};
  c.clamp = {m.act_min, m.act_max};
  c.zp_stride = {m.output_zp, m.out_stride};
  c.step = 3 * m.lhs_stride - c.depth.second;
  for (int32_t col = 0; col < m.cols; col += 4) {
    const int32_t count = m.cols - col < 4 ? m.cols - col : 4;
    // Every real column's shift <= -1 (the lanes past count read -1).
    const mve_pred16_t pred = vctp32q(static_cast<uint32_t>(count));
    const bool right = vmaxvq_s32(INT32_MIN, vpselq_s32(vldrwq_z_s32(m.shift + col, pred), vdupq_n_s32(-1), pred)) < 0;
    if (shallow) {
      if (count == 4 && right && m.depth == 16) shallow_right<16>(m, col);
      else if (count == 4 && right && m.depth == 8) shallow_right<8>(m, col);
      else if (count == 4) right ? shallow_group<true, true>(m, col, count) : shallow_group<false, true>(m, col, count);
      else right ? shallow_group<true, false>(m, col, count) : shallow_group<false, false>(m, col, count);
    } else if (count == 4 && right) {
      column_group_right(m, col, c);
    } else if (count == 4) {
      (m.depth & 15) == 0 ? column_group_any<true>(m, col) : column_group_any<false>(m, col);
    } else {
      right ? column_group<true, false>(m, col, count) : column_group<false, false>(m, col, count);
    }
  }
}

}  // namespace ember::kernels::arm

#endif  // EMBER_TIER == EMBER_TIER_MVE
