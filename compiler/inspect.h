//===- inspect.h - A program file as JSON, for `ember inspect` ------------===//

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ember::compiler {

/// Describes a program file: ops (op, kernel, inputs, outputs, source), memory (regions,
/// lower_bound_bytes, peak_op), inputs and outputs (name, shape, dtype, scale, zero_point,
/// layout), sizes. Checks the flatbuffers structure first; on failure returns "" and sets *error.
std::string inspect_json(const uint8_t* data, size_t size, std::string* error);

}  // namespace ember::compiler
