//===- ember_ext.cc - Python bindings of the compiler and host runtime ----===//
//
// The front end (python/ember/frontend.py) builds a compiler::Graph through `Graph`, then
// calls `compile`. `Runtime` runs a program file with the device runtime on the host.
// Python stays a thin layer: no graph logic lives on this side.

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "ember/compiler/inspect.h"
#include "ember/compiler/op_info.h"
#include "ember/compiler/pipeline.h"
#include "ember/compiler/target.h"
#include "host_runtime.h"
#include "ember/kernels/kernel_info.h"
#include "ember/kernels/kernel_table.h"
#include "ember/runtime/ember.h"

namespace nb = nanobind;
using namespace ember;

namespace {

compiler::DType parse_dtype(const std::string& name) {
  if (name == "int8") return compiler::DType::Int8;
  if (name == "int32") return compiler::DType::Int32;
  if (name == "int64") return compiler::DType::Int64;
  if (name == "float32") return compiler::DType::Float32;
  if (name == "bool") return compiler::DType::Bool;
  throw std::invalid_argument("unsupported dtype " + name);
}

compiler::Attr to_attr(const nb::handle& value) {
  if (nb::isinstance<nb::bool_>(value)) return static_cast<int64_t>(nb::cast<bool>(value));
  if (nb::isinstance<nb::int_>(value)) return nb::cast<int64_t>(value);
  if (nb::isinstance<nb::float_>(value)) return nb::cast<double>(value);
  if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
  if (nb::isinstance<nb::list>(value) || nb::isinstance<nb::tuple>(value)) {
    bool any_float = false;
    for (nb::handle item : value) any_float |= nb::isinstance<nb::float_>(item);
    if (any_float) {
      std::vector<double> v;
      for (nb::handle item : value) v.push_back(nb::cast<double>(item));
      return v;
    }
    std::vector<int64_t> v;
    for (nb::handle item : value) v.push_back(nb::cast<int64_t>(item));
    return v;
  }
  throw std::invalid_argument("unsupported attribute value " + nb::cast<std::string>(nb::str(value)));
}

struct PyGraph {
  compiler::Graph graph;

  int add_tensor(const std::string& name, const std::vector<int64_t>& shape, const std::string& dtype,
                 nb::object data) {
    compiler::Tensor t;
    t.name = name;
    t.shape = shape;
    t.dtype = parse_dtype(dtype);
    if (!data.is_none()) {
      const nb::bytes bytes = nb::cast<nb::bytes>(data);
      if (bytes.size() != t.num_bytes()) throw std::invalid_argument("constant " + name + ": byte size mismatch");
      t.is_constant = true;
      t.data.assign(static_cast<const uint8_t*>(bytes.data()), static_cast<const uint8_t*>(bytes.data()) + bytes.size());
    }
    return graph.add_tensor(std::move(t));
  }

  void add_op(const std::string& kind, const std::vector<int>& inputs, const std::vector<int>& outputs,
              const nb::dict& attrs, const std::string& source) {
    compiler::Op op;
    op.kind = kind;
    op.inputs = inputs;
    op.outputs = outputs;
    op.source = source;
    for (auto [key, value] : attrs) op.attrs[nb::cast<std::string>(key)] = to_attr(value);
    graph.ops.push_back(std::move(op));
  }

  // The NPU partitions Vela compiled (compiler::NpuPartition; dicts with its fields, bytes for
  // the byte vectors) and why the other ops stay on the CPU ({op index: reason}).
  void set_npu(const nb::list& partitions, const std::map<int, std::string>& cpu_reasons) {
    auto bytes = [](const nb::handle& b) {
      const nb::bytes v = nb::cast<nb::bytes>(b);
      return std::vector<uint8_t>(static_cast<const uint8_t*>(v.data()), static_cast<const uint8_t*>(v.data()) + v.size());
    };
    graph.npu_partitions.clear();
    for (nb::handle h : partitions) {
      const nb::dict d = nb::cast<nb::dict>(h);
      compiler::NpuPartition p;
      p.ops = nb::cast<std::vector<int>>(d["ops"]);
      p.inputs = nb::cast<std::vector<int>>(d["inputs"]);
      p.outputs = nb::cast<std::vector<int>>(d["outputs"]);
      p.input_offsets = nb::cast<std::vector<int64_t>>(d["input_offsets"]);
      p.output_offsets = nb::cast<std::vector<int64_t>>(d["output_offsets"]);
      p.command_stream = bytes(d["command_stream"]);
      p.weights = bytes(d["weights"]);
      p.tosa = bytes(d["tosa"]);
      p.scratch_bytes = nb::cast<int64_t>(d["scratch_bytes"]);
      p.fast_scratch_bytes = nb::cast<int64_t>(d["fast_scratch_bytes"]);
      p.note = nb::cast<std::string>(d["note"]);
      graph.npu_partitions.push_back(std::move(p));
    }
    graph.cpu_reasons = cpu_reasons;
  }
};

// The host has no NPU: an NPU partition runs on the TOSA reference model, through the Python
// function ember.npu_reference.run_reference (set_npu_reference; None: no NPU, as the runtime's
// default). Called
// by the runtime with the GIL held (Runtime.run keeps it). A reference, not a static object:
// no destructor runs at interpreter exit.
PyObject* g_npu_reference = nullptr;
std::string g_npu_error;  // why the last reference run failed, for the run's message

extern "C" ember_status ember_npu_invoke(const ember_npu_job* job) {
  if (g_npu_reference == nullptr) return EMBER_STATUS_NpuUnavailable;
  if (job->tosa == nullptr) {
    g_npu_error = "the program was compiled without its NPU partitions' TOSA graphs (npu_reference=False)";
    return EMBER_STATUS_NpuUnavailable;
  }
  uint8_t* scratch = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(job->base_addrs[1]));
  const size_t size = job->base_addr_sizes[1];
  try {
    const std::vector<int32_t> ins(job->input_offsets, job->input_offsets + job->num_inputs);
    const std::vector<int32_t> outs(job->output_offsets, job->output_offsets + job->num_outputs);
    nb::object result = nb::borrow(g_npu_reference)(nb::bytes(job->tosa, job->tosa_size), nb::bytes(scratch, size), ins, outs);
    const auto outputs = nb::cast<std::vector<nb::bytes>>(result);
    if (outputs.size() != outs.size()) return EMBER_STATUS_NpuFailed;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (static_cast<size_t>(outs[i]) + outputs[i].size() > size) return EMBER_STATUS_NpuFailed;
      std::memcpy(scratch + outs[i], outputs[i].data(), outputs[i].size());
    }
    return EMBER_STATUS_Ok;
  } catch (const nb::python_error& e) {
    g_npu_error = nb::str(e.value()).c_str();
    return EMBER_STATUS_NpuFailed;
  }
}

// A stable identifier per code for Python (the runtime's to_string is prose).
std::string status_name(rt::Status s) {
  switch (s) {
#define EMBER_STATUS(name, value, id, message) \
  case rt::Status::name:                       \
    return id;
#include "ember/runtime/status.def"
#undef EMBER_STATUS
  }
  return "unknown";
}

kernels::Tier parse_tier(const std::string& name) {
  for (kernels::Tier t : {kernels::Tier::Portable, kernels::Tier::Scalar, kernels::Tier::Dsp, kernels::Tier::Mve})
    if (name == kernels::tier_name(t)) return t;
  throw std::invalid_argument("unknown tier " + name + " (portable, scalar, dsp, mve or auto)");
}

kernels::Tier file_tier(const std::string& file) {
  const std::string target = host::program_target(file);
  for (const std::string& name : compiler::target_names())
    if (name == target) return compiler::find_target(name).tier;
  return kernels::Tier::Mve;
}

// compiler::Graph as Python values (lower_to_ir).
nb::dict ir_to_python(const compiler::Graph& g) {
  static const char* kLayouts[] = {"as_model", "nchw", "ncl"};
  nb::list tensors, ops;
  for (const compiler::Tensor& t : g.tensors) {
    nb::dict row;
    row["name"] = t.name;
    row["shape"] = t.shape;
    row["dtype"] = compiler::dtype_name(t.dtype);
    row["layout"] = kLayouts[static_cast<int>(t.layout)];
    if (t.quant) {
      nb::dict q;
      q["scale"] = t.quant->scale;
      q["zero_point"] = t.quant->zero_point;
      q["axis"] = t.quant->axis;
      row["quant"] = q;
    } else {
      row["quant"] = nb::none();
    }
    row["data"] = t.is_constant ? nb::object(nb::bytes(reinterpret_cast<const char*>(t.data.data()), t.data.size()))
                                : nb::none();
    tensors.append(row);
  }
  for (const compiler::Op& op : g.ops) {
    nb::dict row, attrs;
    row["kind"] = op.kind;
    row["inputs"] = op.inputs;
    row["outputs"] = op.outputs;
    for (const auto& [key, value] : op.attrs)
      std::visit([&, k = key.c_str()](const auto& v) { attrs[k] = v; }, value);
    row["attrs"] = attrs;
    row["source"] = op.source;
    ops.append(row);
  }
  nb::dict out;
  out["tensors"] = tensors;
  out["ops"] = ops;
  out["inputs"] = g.inputs;
  out["outputs"] = g.outputs;
  return out;
}

}  // namespace

NB_MODULE(_ember, m) {
  m.doc() = "Ember compiler and host runtime";
  m.attr("SCHEMA_VERSION") = ember::rt::kSchemaVersion;  // what the compiler writes and the runtime reads

  nb::class_<PyGraph>(m, "Graph")
      .def(nb::init<>())
      .def("add_tensor", &PyGraph::add_tensor, nb::arg("name"), nb::arg("shape"), nb::arg("dtype"),
           nb::arg("data") = nb::none())
      .def("add_op", &PyGraph::add_op)
      .def("set_npu", &PyGraph::set_npu, nb::arg("partitions"), nb::arg("cpu_reasons"))
      .def("set_io", [](PyGraph& g, std::vector<int> inputs, std::vector<int> outputs, bool float_io) {
        g.graph.inputs = std::move(inputs);
        g.graph.outputs = std::move(outputs);
        g.graph.float_io = float_io;
      })
      .def("__str__", [](const PyGraph& g) { return compiler::print_ir(g.graph); });

  // -> (ok, program bytes, diagnostics, IR dumps). The graph is copied; it can be compiled again.
  // memory: "" or a spec such as "DTCM=64K,SRAM=256K"; plan: simple, default or smallest;
  // ram_budget: total arena bytes, 0 = none (compiler/target.h).
  m.def("compile", [](const PyGraph& g, const std::string& target, std::vector<std::string> print_ir_after,
                      const std::string& memory, const std::string& plan, uint64_t ram_budget) {
    compiler::CompileOptions options{std::move(print_ir_after)};
    compiler::Target t = compiler::find_target(target);
    if (!memory.empty()) compiler::override_capacities(t, memory);
    t.memory.mode = compiler::parse_plan_mode(plan);
    t.memory.ram_budget = ram_budget;
    compiler::CompileResult r = compiler::compile(g.graph, t, options);
    nb::bytes program(reinterpret_cast<const char*>(r.program.data()), r.program.size());
    return nb::make_tuple(r.ok, program, r.diagnostics, r.ir_dumps);
  }, nb::arg("graph"), nb::arg("target"), nb::arg("print_ir_after"), nb::arg("memory") = "",
     nb::arg("plan") = "default", nb::arg("ram_budget") = 0);
  // The graph after pass `stop_after`, as native values: {"tensors": [{name, shape, dtype, quant
  // (None or {scale, zero_point, axis}), layout, data (bytes of a constant, else None)}], "ops":
  // [{kind, inputs, outputs, attrs, source}], "inputs", "outputs"}. Raises ValueError with the
  // diagnostics when a pass before it fails.
  m.def("lower_to_ir", [](const PyGraph& g, const std::string& target, const std::string& stop_after) {
    compiler::CompileOptions options;
    options.stop_after = stop_after;
    compiler::CompileResult r = compiler::compile(g.graph, compiler::find_target(target), options);
    if (!r.ok) throw std::invalid_argument(r.diagnostics);
    return ir_to_python(r.graph);
  }, nb::arg("graph"), nb::arg("target"), nb::arg("stop_after"));
  m.def("set_npu_reference", [](nb::object fn) {
    Py_XDECREF(g_npu_reference);
    g_npu_reference = fn.is_none() ? nullptr : fn.release().ptr();
  }, nb::arg("fn").none());
  m.def("target_names", &compiler::target_names);
  // targets/targets.def, row by row, as the compiler reads it.
  m.def("targets", [] {
    nb::list rows;
    for (const std::string& name : compiler::target_names()) {
      if (name.find('+') != std::string::npos) continue;  // a CPU's row lists its NPUs
      const compiler::Target t = compiler::find_target(name);
      nb::list regions;
      for (const compiler::MemoryRegion& r : t.regions) regions.append(nb::make_tuple(r.name, r.capacity));
      nb::dict row;
      row["name"] = t.name, row["tier"] = kernels::tier_name(t.tier), row["mcpu"] = t.mcpu;
      row["qemu_board"] = t.qemu_board, row["regions"] = regions;
      row["flash"] = nb::make_tuple(t.flash.name, t.flash.capacity);
      row["board_dir"] = t.board_dir, row["cpu_flags"] = t.cpu_flags;
      nb::list npus;
      for (const compiler::Npu& n : t.npus) npus.append(nb::make_tuple(n.accelerator, n.region));
      row["npus"] = npus;
      rows.append(row);
    }
    return rows;
  });
  // kernels/kernels.def, row by row (index = kernel id).
  m.def("kernels", [] {
    nb::list rows;
    for (size_t id = 0; id < kernels::kernel_count(); ++id) {
      const kernels::KernelInfo& k = *kernels::kernel_info(id);
      nb::list tiers;
      for (kernels::Tier t : {kernels::Tier::Scalar, kernels::Tier::Dsp, kernels::Tier::Mve})
        if (k.optimized_on(t)) tiers.append(kernels::tier_name(t));
      nb::dict row;
      row["name"] = k.name, row["inputs"] = k.inputs, row["outputs"] = k.outputs;
      row["ints"] = k.ints, row["floats"] = k.floats;
      row["optimized"] = tiers;
      row["moves_bytes"] = k.moves_bytes();
      rows.append(row);
    }
    return rows;
  });
  // compiler/ops.def, row by row.
  m.def("ops", [] {
    size_t count = 0;
    const compiler::OpInfo* ops = compiler::op_table(&count);
    nb::list rows;
    for (size_t i = 0; i < count; ++i) {
      nb::list traits;
      for (const auto& t : compiler::kOpTraitNames)
        if (ops[i].is(t.trait)) traits.append(t.name);
      nb::dict row;
      row["kind"] = ops[i].kind, row["traits"] = traits, row["aten"] = ops[i].aten;
      row["kernels"] = ops[i].kernels;
      rows.append(row);
    }
    return rows;
  });
  // compiler/aten_ops.def, row by row.
  m.def("aten_ops", [] {
    nb::list rows;
    auto add = [&](const char* aten, const char* how, const char* op, const char* note) {
      nb::dict row;
      row["aten"] = aten, row["how"] = how, row["op"] = op, row["note"] = note;
      rows.append(row);
    };
#define EMBER_ATEN(aten, how, op, note) add(aten, #how, op, note);
#include "ember/compiler/aten_ops.def"
#undef EMBER_ATEN
    return rows;
  });
  // {id: (value, message)} for every status code (runtime/status.def).
  m.def("status_codes", [] {
    nb::dict codes;
#define EMBER_STATUS(name, value, id, message) codes[id] = nb::make_tuple(value, message);
#include "ember/runtime/status.def"
#undef EMBER_STATUS
    return codes;
  });
  m.def("inspect_json", [](nb::bytes file) {
    std::string error;
    std::string json = compiler::inspect_json(static_cast<const uint8_t*>(file.data()), file.size(), &error);
    if (json.empty()) throw std::invalid_argument(error);
    return json;
  });

  // tier: "auto" (the tier of the target the file names; a file naming none is held to the
  // Helium tier's checks, the strictest), or "portable", "scalar", "dsp", "mve". fold: the host
  // tools' folded-bias check, which devices do not run.
  nb::class_<host::HostRuntime>(m, "Runtime")
      .def("__init__", [](host::HostRuntime* self, nb::bytes data, const std::string& tier, bool fold) {
        const std::string file(static_cast<const char*>(data.data()), data.size());
        new (self) host::HostRuntime(file, tier == "auto" ? file_tier(file) : parse_tier(tier), fold);
      }, nb::arg("file"), nb::arg("tier") = "auto", nb::arg("fold") = true)
      .def_prop_ro("status", [](const host::HostRuntime& r) { return status_name(r.status()); })
      .def_prop_ro("message", [](const host::HostRuntime&) { return host::last_runtime_message(); })
      .def_prop_ro("status_code", [](const host::HostRuntime& r) { return static_cast<int>(r.status()); })
      .def("region_sizes", [](const host::HostRuntime& r) {
        std::vector<size_t> sizes;
        for (size_t i = 0; i < r.program().num_regions(); ++i) sizes.push_back(r.program().region_size(i));
        return sizes;
      })
      .def("rebind", [](host::HostRuntime& r, const std::vector<size_t>& sizes) { return status_name(r.rebind(sizes)); })
      // The executor's own calls, for tests of its run-time index checks.
      .def("run_op", [](host::HostRuntime& r, size_t index) {
        const rt::Status bound = r.bind();
        return status_name(bound != rt::Status::Ok ? bound : r.executor().run_op(index));
      })
      .def("set_input", [](host::HostRuntime& r, size_t index, nb::bytes data) {
        const rt::Status bound = r.bind();
        return status_name(bound != rt::Status::Ok ? bound : r.executor().set_input(index, data.data(), data.size()));
      })
      .def_prop_ro("num_ops", [](const host::HostRuntime& r) { return r.program().num_ops(); })
      // -> (status name, [output bytes])
      .def("run", [](host::HostRuntime& r, const std::vector<nb::bytes>& inputs) {
        std::vector<std::string> in, out;
        for (const auto& b : inputs) in.emplace_back(static_cast<const char*>(b.data()), b.size());
        g_npu_error.clear();
        const rt::Status s = r.run(in, &out);
        std::vector<nb::bytes> result;
        for (const auto& o : out) result.emplace_back(o.data(), o.size());
        std::string message = s == rt::Status::Ok ? std::string() : host::last_runtime_message();
        if (!g_npu_error.empty()) message += ": " + g_npu_error;
        return std::make_tuple(status_name(s), result, message);
      });
}
