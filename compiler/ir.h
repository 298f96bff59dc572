//===- ir.h - Ember IR: the graph the compiler passes rewrite -------------===//
//
// The front end hands over a faithful copy of the exported aten graph: one Op per aten node
// (kind "aten.conv2d.default", tensor operands, scalar arguments as named attributes, the user's
// source location) and one Tensor per value (shape, dtype, constant bytes). Passes rewrite this
// graph in place until every op has a kernel; the serializer writes it out. Tensors are never
// erased while passes run (indices stay stable); unused ones are dropped at serialization.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ember::compiler {

enum class DType { Int8, Int32, Int64, Float32, Bool };

/// Stored order vs the model's: Nchw = model [N,C,H,W] stored [N,H,W,C]; Ncl = model [N,C,L]
/// stored [N,L,1,C] (1-D convs run as 2-D ones).
enum class Layout { AsModel, Nchw, Ncl };

const char* dtype_name(DType dtype);
size_t dtype_size(DType dtype);

/// real = scale * (q - zero_point); one entry per tensor or one per slice along `axis`.
struct Quant {
  std::vector<double> scale;
  std::vector<int32_t> zero_point;
  int axis = -1;

  bool per_tensor() const { return axis < 0; }
  bool operator==(const Quant& other) const;
};

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::Float32;
  std::optional<Quant> quant;
  bool is_constant = false;
  std::vector<uint8_t> data;  // constant bytes, row-major, little-endian
  Layout layout = Layout::AsModel;  // set by the layout pass

  int64_t num_elements() const;
  size_t num_bytes() const { return static_cast<size_t>(num_elements()) * dtype_size(dtype); }
  template <typename T> const T* as() const { return reinterpret_cast<const T*>(data.data()); }
  template <typename T> T* as() { return reinterpret_cast<T*>(data.data()); }
};

using Attr = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

struct Op {
  std::string kind;                  // aten name until legalize, then an Ember op name
  std::vector<int> inputs;           // tensor indices; -1 for an absent optional operand
  std::vector<int> outputs;
  std::map<std::string, Attr> attrs;
  std::string source;                // "aten.conv2d.default at model.py:42 (features.0)"

  // Filled by select_kernel.
  int kernel = -1;
  std::string kernel_reason;         // why this kernel (e.g. why a portable fallback)
  std::vector<int32_t> ints;
  std::vector<float> floats;

  // Filled by plan_memory: write the output rows last-first (the output overlaps the upper end
  // of the input it consumes; compiler/in_place.h).
  bool rows_bottom_up = false;

  bool has(const std::string& key) const { return attrs.count(key) != 0; }
  int64_t i(const std::string& key) const;
  double f(const std::string& key) const;  // accepts an int attribute too
  const std::string& s(const std::string& key) const;
  const std::vector<int64_t>& ints_attr(const std::string& key) const;
  const std::vector<double>& floats_attr(const std::string& key) const;
};

/// Where one memory region's buffers go (filled by plan_memory).
struct RegionPlan {
  std::string name;
  uint64_t capacity = 0;
  uint64_t size = 0;
};

/// One NPU partition of the graph as it is after `cleanup`, compiled by Vela (python/ember/npu.py
/// chooses the ops, ember.tosa writes them as TOSA, ember.vela compiles that): the delegate_npu
/// pass replaces its ops with one ethos_u op (kernels/kernels.def).
struct NpuPartition {
  std::vector<int> ops;      // op indices after cleanup, ascending
  std::vector<int> inputs;   // the partition's inputs and outputs (tensors), in the TOSA graph's order
  std::vector<int> outputs;
  std::vector<int64_t> input_offsets;   // byte offsets in the scratch, per input and output
  std::vector<int64_t> output_offsets;
  std::vector<uint8_t> command_stream;  // Vela's COP1 container
  std::vector<uint8_t> weights;         // the NPU's region 0
  std::vector<uint8_t> tosa;            // the partition's TOSA graph (host runs); may be empty
  int64_t scratch_bytes = 0;            // region 1
  int64_t fast_scratch_bytes = 0;       // region 2, 0 = none
  std::string note;                     // for `ember inspect`: the NPU, op count and Vela's estimate
};

/// A tensor whose bytes lie inside another's, at a byte offset (an NPU partition's inputs and
/// outputs inside its scratch).
struct Window {
  int source = -1;
  uint64_t offset = 0;
};

struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  std::vector<int> inputs;
  std::vector<int> outputs;
  bool float_io = false;  // keep float model inputs/outputs (quantize/dequantize on the device)

  // Memory plan, filled by plan_memory: per tensor (region, offset); -1 region = unplanned.
  std::vector<RegionPlan> regions;
  std::vector<int> tensor_region;
  std::vector<uint64_t> tensor_offset;
  uint64_t lower_bound = 0;
  int peak_op = -1;

  // NPU partitions to delegate (set before compiling), and the windows delegate_npu (outputs) and
  // plan_memory (inputs placed in the scratch) make, by tensor.
  std::vector<NpuPartition> npu_partitions;
  std::map<int, Window> windows;
  /// Why each op left on the CPU of an NPU target stays there, by op index after cleanup
  /// (python/ember/npu.py); delegate_npu moves it into the op's attrs.
  std::map<int, std::string> cpu_reasons;

  int add_tensor(Tensor tensor);
  /// A fresh activation tensor like `like` (dtype, quant, layout; its shape unless one is
  /// given), named after it.
  int add_tensor_like(int like, const std::string& suffix);
  int add_tensor_like(int like, const std::string& suffix, std::vector<int64_t> shape);
  /// Raw bytes: an int8 tensor [bytes] named `name` (a kernel's scratch, an NPU's command stream).
  int add_bytes(const std::string& name, int64_t bytes);
  /// Ops reading tensor `t`, by index into `ops`.
  std::vector<int> users(int t) const;
  /// The op writing tensor `t`, or -1 for inputs and constants.
  int producer(int t) const;
  bool is_graph_output(int t) const;
  /// Replaces every read of `from` (ops and graph outputs) with `to`.
  void replace_uses(int from, int to);
  /// Removes ops whose outputs nobody reads (graph outputs are read).
  void remove_dead_ops();
  /// Removes the ops whose index is marked in `erased` (same length as `ops`), keeping order.
  void erase_ops(const std::vector<bool>& erased);
};

/// Shape helpers.
int64_t num_elements(const std::vector<int64_t>& shape);
std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace ember::compiler
