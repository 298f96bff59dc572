//===- passes_test.cc - Small graphs through single passes ----------------===//
//
// Each test builds a tiny graph as the front end would (aten names, schema attributes), runs
// passes and checks the graph that comes out, including the error cases.

#include <gtest/gtest.h>

#include <cstring>

#include "compiler/kernel_table.h"
#include "compiler/passes/pass_util.h"
#include "compiler/passes/passes.h"
#include "compiler/pipeline.h"

namespace ember::compiler {
namespace {

int activation(Graph& g, const std::string& name, std::vector<int64_t> shape, DType dtype = DType::Float32) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = dtype;
  return g.add_tensor(std::move(t));
}

Target host() { return find_target("host"); }

TEST(Legalize, RejectsUnknownOpNamingItAndItsSource) {
  Graph g;
  const int x = activation(g, "x", {1, 4});
  const int y = activation(g, "y", {1, 4});
  g.inputs = {x};
  g.outputs = {y};
  g.ops.push_back(Op{"aten.erfinv.default", {x}, {y}, {}, "aten.erfinv.default at model.py:12 (head)"});
  Diagnostics diag;
  EXPECT_EQ(legalize(g, host(), diag), Status::Failure);
  const std::string text = diag.str();
  EXPECT_NE(text.find("aten.erfinv.default"), std::string::npos) << text;
  EXPECT_NE(text.find("model.py:12"), std::string::npos) << text;
}

TEST(Legalize, ConvGetsExplicitPaddingAndAliasesDisappear) {
  Graph g;
  const int x = activation(g, "x", {1, 3, 8, 8});
  const int w = add_constant_f32(g, "w", {4, 3, 3, 3}, std::vector<float>(108, 0.5f));
  const int c = activation(g, "c", {1, 4, 8, 8});
  const int y = activation(g, "y", {1, 4, 8, 8});
  g.inputs = {x};
  g.outputs = {y};
  g.ops.push_back(Op{"aten.conv2d.default", {x, w, -1},  {c},
                     {{"stride", std::vector<int64_t>{1, 1}}, {"padding", std::vector<int64_t>{1}}}, ""});
  g.ops.push_back(Op{"aten.clone.default", {c}, {y}, {}, ""});
  Diagnostics diag;
  ASSERT_EQ(legalize(g, host(), diag), Status::Success) << diag.str();
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].kind, "conv");
  EXPECT_EQ(g.ops[0].ints_attr("padding"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(g.outputs[0], c);
}

TEST(Legalize, RsubScalarBecomesSubWithTheNumberAsFirstOperand) {
  // 1 - x exports as aten.rsub.Scalar(x, other=1): the number arrives as an attribute.
  Graph g;
  const int x = activation(g, "x", {1, 4});
  const int y = activation(g, "y", {1, 4});
  g.inputs = {x};
  g.outputs = {y};
  g.ops.push_back(Op{"aten.rsub.Scalar", {x}, {y}, {{"other", int64_t{1}}, {"alpha", int64_t{1}}}, ""});
  Diagnostics diag;
  ASSERT_EQ(legalize(g, host(), diag), Status::Success) << diag.str();
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].kind, "sub");
  ASSERT_EQ(g.ops[0].inputs.size(), 2u);
  const Tensor& one = g.tensors[g.ops[0].inputs[0]];
  ASSERT_TRUE(one.is_constant);
  EXPECT_EQ(one.as<float>()[0], 1.0f);
  EXPECT_EQ(g.ops[0].inputs[1], x);
}

TEST(FuseActivation, ReluBecomesConvBounds) {
  Graph g;
  const int x = activation(g, "x", {1, 2});
  const int w = add_constant_f32(g, "w", {2, 2}, {1, 0, 0, 1});
  const int l = activation(g, "l", {1, 2});
  const int y = activation(g, "y", {1, 2});
  g.inputs = {x};
  g.outputs = {y};
  g.ops.push_back(Op{"linear", {x, w, -1}, {l}, {}, ""});
  g.ops.push_back(Op{"clamp", {l}, {y}, {{"min", 0.0}, {"max", 6.0}}, ""});
  Diagnostics diag;
  ASSERT_EQ(fuse_activation(g, host(), diag), Status::Success);
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].f("act_min"), 0.0);
  EXPECT_EQ(g.ops[0].f("act_max"), 6.0);
  EXPECT_EQ(g.ops[0].outputs[0], y);
}

TEST(Layout, ConvWeightsBecomeOhwiAndActivationsNhwc) {
  Graph g;
  const int x = activation(g, "x", {1, 2, 4, 4});
  std::vector<float> w(3 * 2 * 1 * 2);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);  // [O=3, I=2, 1, 2]
  const int wt = add_constant_f32(g, "w", {3, 2, 1, 2}, w);
  const int y = activation(g, "y", {1, 3, 4, 3});
  g.inputs = {x};
  g.outputs = {y};
  g.ops.push_back(Op{"conv", {x, wt, -1}, {y},
                     {{"stride", std::vector<int64_t>{1, 1}}, {"dilation", std::vector<int64_t>{1, 1}},
                      {"padding", std::vector<int64_t>{0, 0, 0, 0}}, {"groups", int64_t{1}}, {"rank", int64_t{4}}}, ""});
  Diagnostics diag;
  ASSERT_EQ(layout(g, host(), diag), Status::Success) << diag.str();
  EXPECT_EQ(g.tensors[x].shape, (std::vector<int64_t>{1, 4, 4, 2}));
  EXPECT_EQ(g.tensors[x].layout, Layout::Nchw);
  const Tensor& ohwi = g.tensors[g.ops[0].inputs[1]];
  EXPECT_EQ(ohwi.shape, (std::vector<int64_t>{3, 1, 2, 2}));
  // w[o][i][0][kw] moves to [o][0][kw][i]: element (o=1, kw=1, i=0) was at 1*4 + 0*2 + 1 = 5.
  EXPECT_EQ(ohwi.as<float>()[1 * 4 + 1 * 2 + 0], 5.0f);
}

// A selected int8 depthwise op (1x3x3x8 filter, NHWC 1x4x4x8), as pack_weights sees it.
Op depthwise_op(Graph& g, std::vector<int8_t> filter) {
  const int x = activation(g, "x", {1, 4, 4, 8}, DType::Int8);
  const int w = add_constant_i8(g, "w", {1, 3, 3, 8}, filter);
  const int m = add_constant_i32(g, "m", {8}, std::vector<int32_t>(8, 1 << 30));
  const int sh = add_constant_i32(g, "sh", {8}, std::vector<int32_t>(8, -1));
  const int y = activation(g, "y", {1, 4, 4, 8}, DType::Int8);
  Op op{"depthwise", {x, w, -1, m, sh}, {y}, {}, "aten.conv2d.default at model.py:7 (dw)"};
  op.kernel = kernel_id("depthwise_conv2d_s8");
  op.ints = {1, 1, 1, 1, 1, 1, 3, -2, -128, 127};
  return op;
}

TEST(PackWeights, MveDepthwiseFilterHoldingMinus128RunsThePortableKernel) {
  std::vector<int8_t> filter(72, 5);
  for (const char* target : {"cortex-m55", "cortex-m4"}) {
    for (const int8_t low : {int8_t{-127}, int8_t{-128}}) {
      Graph g;
      filter[40] = low;
      g.ops.push_back(depthwise_op(g, filter));
      Diagnostics diag;
      ASSERT_EQ(pack_weights(g, find_target(target), diag), Status::Success);
      const Op& op = g.ops[0];
      const bool mve_refuses = low == -128 && std::string(target) == "cortex-m55";
      if (mve_refuses) {
        EXPECT_EQ(op.kernel_reason, "portable kernel: a weight of -128 (the mve kernel takes [-127, 127])");
        EXPECT_EQ(op.inputs.size(), 5u);  // no folded bias: the optimized entry runs the portable kernel
      } else {
        EXPECT_EQ(op.kernel_reason, std::string(target) == "cortex-m55" ? "mve kernel (depthwise 3x3)"
                                                                        : "dsp kernel (depthwise 3x3)");
        EXPECT_EQ(op.inputs.size(), 6u);
        // The strip, as scratch: MVE's 768 bytes; DSP's ring of 3 rows of 4 + 2 pixels, 8 bytes each.
        ASSERT_EQ(op.outputs.size(), 2u);
        EXPECT_EQ(g.tensors[op.outputs[1]].shape,
                  std::vector<int64_t>{std::string(target) == "cortex-m55" ? 768 : 3 * 6 * 8});
      }
    }
  }
}

TEST(PackWeights, DepthwiseStripScratchPerCore) {
  // 1x4x4x8, 3x3, stride 1, padding 1: a ring of 3 rows of 4 + 2 pixels. DSP pixels are 8
  // bytes, the Cortex-M3's 4; the Cortex-M0 runs the listed taps and gets none.
  const std::pair<const char*, int64_t> cases[] = {
      {"cortex-m55", 768}, {"cortex-m4", 3 * 6 * 8}, {"cortex-m3", 3 * 6 * 4}, {"cortex-m0", 0}};
  for (const auto& [target, bytes] : cases) {
    Graph g;
    g.ops.push_back(depthwise_op(g, std::vector<int8_t>(72, 5)));
    Diagnostics diag;
    ASSERT_EQ(pack_weights(g, find_target(target), diag), Status::Success);
    const Op& op = g.ops[0];
    ASSERT_EQ(op.outputs.size(), bytes > 0 ? 2u : 1u) << target;
    if (bytes > 0) {
      EXPECT_EQ(g.tensors[op.outputs[1]].shape, std::vector<int64_t>{bytes}) << target;
    }
  }
}

TEST(Pipeline, ModelOutputThatIsAViewOfAnInputIsRejected) {
  Graph g;
  const int x = activation(g, "x", {1, 4});
  const int y = activation(g, "y", {4});
  g.inputs = {x};
  g.outputs = {y};
  g.ops.push_back(Op{"aten.view.default", {x}, {y}, {{"size", std::vector<int64_t>{4}}}, ""});
  const CompileResult r = compile(g, host(), {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("is a view of input"), std::string::npos) << r.diagnostics;
}

}  // namespace
}  // namespace ember::compiler
