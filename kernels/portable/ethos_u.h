//===- ethos_u.h - An Ethos-U NPU partition ---------------------*- C++ -*-===//
//
// The ethos_u kernel (kernels.def) hands one NPU partition to the platform's ember_npu_invoke
// (runtime/ember.h), which runs it on the NPU through Arm's driver (targets/npu/ethosu_glue.c),
// on the TOSA reference model (the host), or reports that the build has no NPU (the default).
//
// Its command stream is Vela's raw output, the container the driver reads: the word "COP1",
// then driver actions, each a word whose low byte is the action: 1 the optimizer's
// configuration (two words follow: the NPU's CONFIG and ID registers as Vela compiled for),
// 2 the command stream (its length in words is bits 16..31, bits 8..15 above them; the stream
// follows, 16-byte aligned), 5 no operation. The check at load accepts exactly one
// configuration, then exactly one command stream, NOPs anywhere, nothing else (the driver's
// register and SHRAM dumps are debugging actions), and a configuration whose product and MACs
// per cycle are the op's (ints[0]): a program compiled for an Ethos-U85 is refused before it
// reaches an Ethos-U55. The driver checks the configuration against the hardware itself.
//
// At run time the partition's inputs are in the scratch already when the planner put them there
// (the usual case: the op before writes straight into the NPU's input); one that is elsewhere
// is moved in first. The outputs are views of the scratch: the ops after read them in place.

#pragma once

#include <stdint.h>

namespace ember::kernels {

/// ints[0] for an accelerator: its product (0 Ethos-U55, 1 U65, 2 U85) and log2 of its MACs per
/// cycle, as the container's configuration word has them (bits 28..31 and 0..3).
constexpr int32_t npu_code(int product, int macs_log2) { return product << 4 | macs_log2; }

}  // namespace ember::kernels
