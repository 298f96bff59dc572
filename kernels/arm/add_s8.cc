//===- add_s8.cc - Optimized int8 addition: checks, broadcast walk --------===//
//
// Tier-independent: the checks, the rescale tables, and the broadcast walk; each innermost run
// of the broadcast (kernels/arm/elementwise.h) goes to the tier's add_s8_run or, with the
// tables, add_s8_run_tables.

#include "ember/kernels/arm/add_s8.h"

#include "ember/kernels/arm/elementwise.h"
#include "ember/kernels/arm/primitives_scalar.h"
#include "ember/kernels/portable/op_check.h"

namespace ember::kernels::arm {
namespace {

constexpr size_t kTableA = 2, kTableB = 3;

AddParamsS8 params(const int32_t* i) {
  return AddParamsS8{i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], i[8], i[9], i[10], i[11]};
}

bool has_tables(const rt::OpContext& c) { return c.num_inputs > kTableA; }

// The 32-bit form the kernels' own loops use (primitives_scalar.h; equal to the portable
// multiply_by_quantized_multiplier for these ranges): the load's check recomputes 512 entries
// per op, and this form takes less than half the portable one's instructions.
int32_t rescaled(int32_t q, int32_t zp, int32_t left_shift, int32_t multiplier, int32_t shift) {
  return scale_input_s32((q - zp) * (1 << left_shift), multiplier, shift);
}

// The table in `t` equals add_s8_rescale_table's, entry for entry (computed one at a time: a
// copy would put 1 KB on the load's stack).
bool same_table(const rt::TensorView& t, int32_t zp, int32_t left_shift, int32_t multiplier, int32_t shift) {
  const int32_t* got = t.as<const int32_t>();
  for (int32_t q = -128; q < 128; ++q)
    if (got[static_cast<uint8_t>(q)] != rescaled(q, zp, left_shift, multiplier, shift)) return false;
  return true;
}

}  // namespace

void add_s8_rescale_table(int32_t zp, int32_t left_shift, int32_t multiplier, int32_t shift, int32_t* table) {
  for (int32_t q = -128; q < 128; ++q) table[static_cast<uint8_t>(q)] = rescaled(q, zp, left_shift, multiplier, shift);
}

// The portable check (2 or 4 inputs); then the tables' shapes and values, recomputed: they hold
// what the portable kernel computes, and so every sum of two entries fits in int32.
rt::Status check_add_s8(const rt::OpContext& c) {
  EMBER_RETURN_IF_ERROR(kernels::check_add_s8(c));
  if (!has_tables(c)) return rt::Status::Ok;
  const rt::TensorView& ta = c.in(kTableA);
  const rt::TensorView& tb = c.in(kTableB);
  EMBER_KCHECK(is_vector(ta, DType::Int32, kRescaleTableSize) && is_vector(tb, DType::Int32, kRescaleTableSize),
               BadShape);
  EMBER_KCHECK(ta.constant && ta.data != nullptr && tb.constant && tb.data != nullptr, BadOpSignature);
  const AddParamsS8 p = params(c.ints);
  EMBER_KCHECK(same_table(ta, p.a_zp, p.left_shift, p.a_multiplier, p.a_shift) &&
                   same_table(tb, p.b_zp, p.left_shift, p.b_multiplier, p.b_shift),
               BadQuantization);
  return rt::Status::Ok;
}

rt::Status run_add_s8(const rt::OpContext& c) {
  Broadcast bc;
  broadcast_views(c.in(0), c.in(1), c.out(0), &bc);
  const AddParamsS8 p = params(c.ints);
  const int8_t* a = c.in(0).as<const int8_t>();
  const int8_t* b = c.in(1).as<const int8_t>();
  int8_t* out = c.out(0).as<int8_t>();
  const int32_t* ta = has_tables(c) ? c.in(kTableA).as<const int32_t>() : nullptr;
  const int32_t* tb = has_tables(c) ? c.in(kTableB).as<const int32_t>() : nullptr;
  for_each_elementwise_run(bc, [&](size_t o, size_t ia, int32_t a_step, size_t ib, int32_t b_step, int32_t n) {
    if (ta != nullptr && a_step != 0 && b_step != 0) add_s8_run_tables(p, ta, a + ia, tb, b + ib, out + o, n);
    else add_s8_run(p, a + ia, a_step, b + ib, b_step, out + o, n);
  });
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
