//===- passes_test.cc - Small graphs through single passes ----------------===//
//
// Each test builds a tiny graph as the front end would (aten names, schema attributes), runs
// passes and checks the graph that comes out, including the error cases.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "ember/compiler/kernel_table.h"
#include "ember/compiler/passes/pass_util.h"
#include "ember/compiler/passes/passes.h"
#include "ember/compiler/pipeline.h"

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

// The element order a chain of views gives: the source's flat index at each output position.
std::vector<uint8_t> moved_by(const Graph& g, int from, int to) {
  std::vector<uint8_t> bytes(static_cast<size_t>(g.tensors[from].num_elements()) * 4);
  for (size_t i = 0; i < bytes.size() / 4; ++i) std::memcpy(&bytes[4 * i], &i, 4);
  std::map<int, std::vector<uint8_t>> values{{from, bytes}};
  for (const Op& op : g.ops) {
    const std::vector<uint8_t>& in = values.at(op.inputs[0]);
    values[op.outputs[0]] = op.kind == "transpose"
                                ? permute_bytes(in, g.tensors[op.inputs[0]].shape, op.ints_attr("perm"), 4)
                                : in;
  }
  return values.at(to);
}

TEST(Cleanup, ChainsOfViewsBecomeOneTranspose) {
  // NHWC -> NCHW, a channel shuffle of 2 groups (view, transpose, view), NCHW -> NHWC: one
  // transpose of [.., 2, C/2] moves the same elements. kᵀ viewed as 3-D and transposed back: none.
  struct Case {
    std::vector<std::vector<int64_t>> shapes;  // of each tensor along the chain
    std::vector<std::vector<int64_t>> perms;   // empty: a reshape
    size_t transposes;                         // after cleanup
  };
  const Case cases[] = {
      {{{1, 5, 7, 8}, {1, 8, 5, 7}, {1, 2, 4, 5, 7}, {1, 4, 2, 5, 7}, {1, 8, 5, 7}, {1, 5, 7, 8}},
       {{0, 3, 1, 2}, {}, {0, 2, 1, 3, 4}, {}, {0, 2, 3, 1}}, 1},
      {{{1, 2, 6, 8}, {1, 2, 8, 6}, {2, 8, 6}, {2, 6, 8}}, {{0, 1, 3, 2}, {}, {0, 2, 1}}, 0},
  };
  for (const Case& c : cases) {
    Graph g;
    std::vector<int> t;
    for (const auto& shape : c.shapes) t.push_back(activation(g, "t" + std::to_string(t.size()), shape, DType::Int8));
    for (size_t i = 0; i < c.perms.size(); ++i)
      g.ops.push_back(c.perms[i].empty() ? Op{"reshape", {t[i]}, {t[i + 1]}, {}, ""}
                                         : Op{"transpose", {t[i]}, {t[i + 1]}, {{"perm", c.perms[i]}}, ""});
    g.inputs = {t.front()};
    g.outputs = {t.back()};
    const std::vector<uint8_t> want = moved_by(g, t.front(), t.back());
    Diagnostics diag;
    ASSERT_EQ(cleanup(g, host(), diag), Status::Success);
    EXPECT_EQ(moved_by(g, t.front(), t.back()), want);
    EXPECT_EQ(static_cast<size_t>(std::count_if(g.ops.begin(), g.ops.end(),
                                                [](const Op& op) { return op.kind == "transpose"; })),
              c.transposes);
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
