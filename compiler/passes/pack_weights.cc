//===- pack_weights.cc - Per-tier preparation for the optimized kernels ---===//
//
// For a target with an optimized tier (Scalar, DSP, MVE), each int8 conv, depthwise conv and
// linear op gets what kernels/arm/ expects, computed here rather than on the device:
//   - input 5, the folded bias: bias - input_zp * sum(filter row) per output channel
//     (kernels/arm/fold.h; the kernel's load-time check recomputes and compares it);
//   - for conv2d_s8 on its im2col path, and on the DSP tier also a pointwise conv of depth
//     8, 16, 24 or more (its shallow table or packed rows), output 1, a scratch tensor of
//     conv2d_s8_scratch_bytes(shape, geometry, tier, least) bytes, which the memory planner
//     places like any buffer live during that op only (least: for RAM-bound plans);
//   - for depthwise_conv2d_s8 on the DSP and MVE tiers and the Cortex-M3, output 1, the
//     kernel's strip, depthwise_conv2d_s8_scratch_bytes(shape, geometry, tier, least) bytes,
//     with the expanded window rows of a depth multiplier above 1 in front (on the Cortex-M0
//     those rows only).
// Each batch_matmul_s8 gets output 1, its scratch (kernels/arm/batch_matmul_s8.h).
// Each add_s8 of at least kTablesFrom output elements gets inputs 2 and 3, its operands' rescale
// tables (kernels/arm/add_s8.h: 1 KB of constants each, so small adds go without).
// Every op's kernel_reason (the program's kernel_note, shown by `ember inspect`) records the
// path its optimized kernel takes, or why it runs the portable one (a depthwise filter holding
// -128 on the MVE tier, whose paired int16 taps need [-127, 127], gets no folded bias and so
// runs the portable kernel). Host (Portable) programs are left unchanged. Weights keep their
// OHWI / 1HWC / [O, K] layout: every tier's inner loop reads them as they are.

#include "ember/compiler/kernel_table.h"
#include "ember/compiler/passes/pass_util.h"
#include "ember/compiler/passes/passes.h"
#include "ember/kernels/arm/add_s8.h"
#include "ember/kernels/arm/batch_matmul_s8.h"
#include "ember/kernels/arm/conv2d_s8.h"
#include "ember/kernels/arm/depthwise_conv2d_s8.h"
#include "ember/kernels/arm/fold.h"

namespace ember::compiler {
namespace {

int32_t dim(const Tensor& t, size_t i) { return static_cast<int32_t>(t.shape.at(i)); }

// add_s8's rescale tables cost 2 KB of flash per op and 512 recomputed entries at load, and save
// about 1.7 instructions per element on the M55 and 25 on the M4 (ic's adds): below this many
// output elements the op rescales each element instead. A judgement, not a measured break-even.
constexpr int64_t kTablesFrom = 1024;

// Appends op's output 1, an int8 buffer of `bytes` only its kernel reads and writes.
void add_scratch(Graph& g, Op& op, size_t bytes) {
  op.outputs.push_back(g.add_bytes(g.tensors[op.outputs[0]].name + "_scratch", static_cast<int64_t>(bytes)));
}

}  // namespace

Status pack_weights(Graph& g, const Target& target, Diagnostics&) {
  const kernels::Tier tier = target.tier;
  if (tier == kernels::Tier::Portable) return Status::Success;
  const int conv = kernel_id("conv2d_s8"), dw = kernel_id("depthwise_conv2d_s8"),
            fc = kernel_id("fully_connected_s8"), add = kernel_id("add_s8"), bmm = kernel_id("batch_matmul_s8");
  const std::string tier_word = std::string(kernels::tier_name(tier));
  for (Op& op : g.ops) {
    if (op.kernel < 0 || op.kind == "ethos_u") continue;  // a view; an NPU partition keeps its note
    if (kernels::kernel_info(op.kernel)->moves_bytes()) {
      op.kernel_reason = "portable kernel (moves bytes only; the same on every tier)";
      continue;
    }
    if (!kernel_info(op.kernel)->optimized_on(tier)) {
      if (op.kernel_reason.rfind("float:", 0) != 0)  // a float op keeps why it is float
        op.kernel_reason = "portable kernel: no " + tier_word + " kernel for " + std::string(kernel_info(op.kernel)->name);
      continue;
    }
    op.kernel_reason = tier_word + " kernel";
    if (op.kernel == bmm) {
      if (op.outputs.size() == 1)
        add_scratch(g, op, kernels::arm::batch_matmul_s8_scratch_bytes(dim(g.tensors[op.inputs[1]], 1)));
      op.kernel_reason = tier_word + " kernel (matrix product of two activations)";
      continue;
    }
    if (op.kernel == add && op.inputs.size() == 2 && op.ints.size() == 12 && op.ints[0] >= 0 && op.ints[0] <= 22 &&
        g.tensors[op.outputs[0]].num_elements() >= kTablesFrom) {
      // ints: left_shift, a_zp, a_multiplier, a_shift, b_zp, b_multiplier, b_shift, ...
      const std::vector<int32_t>& i = op.ints;
      std::vector<int32_t> ta(kernels::arm::kRescaleTableSize), tb(kernels::arm::kRescaleTableSize);
      kernels::arm::add_s8_rescale_table(i[1], i[0], i[2], i[3], ta.data());
      kernels::arm::add_s8_rescale_table(i[4], i[0], i[5], i[6], tb.data());
      const std::string name = g.tensors[op.outputs[0]].name;
      const int a = add_constant_i32(g, name + "_rescale_a", {kernels::arm::kRescaleTableSize}, ta);
      const int b = add_constant_i32(g, name + "_rescale_b", {kernels::arm::kRescaleTableSize}, tb);
      op.inputs.push_back(a);
      op.inputs.push_back(b);
      op.kernel_reason = tier_word + " kernel (rescale tables)";
    }
    if (op.kernel != conv && op.kernel != dw && op.kernel != fc) continue;
    if (op.inputs.size() != 5 || op.outputs.size() != 1) continue;  // already prepared
    const Tensor& filter = g.tensors[op.inputs[1]];
    if (!filter.is_constant || (op.inputs[2] >= 0 && !g.tensors[op.inputs[2]].is_constant)) {
      op.kernel_reason = "portable kernel: weights are not constants";
      continue;
    }
    const int8_t* w = filter.as<int8_t>();
    const int32_t* bias = op.inputs[2] >= 0 ? g.tensors[op.inputs[2]].as<int32_t>() : nullptr;
    const int32_t input_zp = op.kernel == fc ? op.ints.at(0) : op.ints.at(6);
    std::vector<int32_t> folded;
    if (op.kernel == dw) {
      const int32_t taps = dim(filter, 1) * dim(filter, 2), o = dim(filter, 3);
      // Without the folded bias the op runs the portable kernel (and the device check, which
      // refuses such a filter for the tier's kernel, accepts it).
      if (!kernels::arm::depthwise_conv2d_s8_takes_filter(w, static_cast<size_t>(filter.num_elements()), tier)) {
        op.kernel_reason = "portable kernel: a weight of -128 (the " + tier_word + " kernel takes [-127, 127])";
        continue;
      }
      for (int32_t c = 0; c < o; ++c) folded.push_back(kernels::arm::folded_bias_depthwise(w, taps, o, bias, input_zp, c));
      const int32_t multiplier = o / dim(g.tensors[op.inputs[0]], 3);
      op.kernel_reason = tier_word + " kernel (depthwise" + (dim(filter, 1) == 3 && dim(filter, 2) == 3 ? " 3x3" : "") +
                         (multiplier > 1 ? ", depth multiplier " + std::to_string(multiplier) + ": rows expanded)" : ")");
    } else {
      const int32_t o = dim(filter, 0);
      const int32_t k = static_cast<int32_t>(filter.num_elements() / o);
      for (int32_t c = 0; c < o; ++c) folded.push_back(kernels::arm::folded_bias_rows(w, k, bias, input_zp, c));
      op.kernel_reason = tier_word + " kernel (matrix product)";
    }
    // Shapes first: adding tensors below may move g.tensors.
    const Tensor& in = g.tensors[op.inputs[0]];
    const Tensor& out = g.tensors[op.outputs[0]];
    const std::string name = out.name;
    kernels::Conv2dShape s{};
    kernels::Conv2dGeometry geo{};
    if (op.kernel == conv || op.kernel == dw) {
      s = {dim(in, 0),  dim(in, 1),  dim(in, 2),     dim(in, 3),     dim(out, 1),
           dim(out, 2), dim(out, 3), dim(filter, 1), dim(filter, 2), dim(filter, 3)};
      geo = {op.ints.at(0), op.ints.at(1), op.ints.at(2), op.ints.at(3), op.ints.at(4), op.ints.at(5)};
    }
    op.inputs.push_back(add_constant_i32(g, name + "_folded_bias", {static_cast<int64_t>(folded.size())}, folded));
    if (op.kernel == fc) continue;
    // A RAM-bound plan (smallest, or any plan under a RAM budget, which may escalate to it)
    // takes the least scratch: im2col blocks of the fewest rows, no depthwise bands; the others
    // the fastest (kernels/arm/mat_mult_s8.h, depthwise_conv2d_s8.h).
    const bool least = target.memory.mode == PlanMode::Smallest || target.memory.ram_budget > 0;
    size_t scratch = 0;
    if (op.kernel == dw) {
      // The expanded rows of a depth multiplier above 1, then the strip of the tier's kernel.
      // On the scalar tier only the Cortex-M3 has the strip (Cortex-M3 assembly): the
      // Cortex-M0 (Armv6-M) runs the listed taps and gets the expanded rows only.
      const bool armv6m = target.mcpu.rfind("cortex-m0", 0) == 0;
      scratch = armv6m ? kernels::arm::depthwise_expanded_bytes(s)
                       : kernels::arm::depthwise_conv2d_s8_scratch_bytes(s, geo, tier, least);
    } else {
      using kernels::arm::Conv2dPath;
      switch (kernels::arm::conv2d_s8_path(s, geo)) {
        case Conv2dPath::Portable: op.kernel_reason = "portable kernel: grouped convolution"; break;
        case Conv2dPath::Pointwise: op.kernel_reason = tier_word + " kernel (pointwise)"; break;
        case Conv2dPath::Im2col: op.kernel_reason = tier_word + " kernel (im2col)"; break;
      }
      scratch = kernels::arm::conv2d_s8_scratch_bytes(s, geo, tier, least);
    }
    if (scratch > 0) add_scratch(g, op, scratch);
  }
  // On an NPU target, why an op stays on the CPU comes first (delegate_npu).
  for (Op& op : g.ops)
    if (op.has("npu_why")) op.kernel_reason = "CPU, not NPU (" + op.s("npu_why") + "): " + op.kernel_reason;
  return Status::Success;
}

}  // namespace ember::compiler
