//===- status.h - Error codes of the Ember runtime ------------------------===//
//
// Every runtime entry point returns a Status; nothing aborts. Codes are grouped by kind: the
// program file is malformed (one code per class of malformation, so a caller can tell a
// truncated download from a tampered file), the caller passed something wrong, the program
// needs what this build lacks, or memory is short.

#pragma once

#include <stdint.h>

namespace ember::rt {

enum class Status : uint8_t {
  /// Success.
  Ok = 0,

  // Malformed program file ------------------------------------------------------------------
  /// Shorter than a header, or a size field runs past the end of the file.
  Truncated = 1,
  /// Wrong file identifier or unsupported schema version.
  BadIdentity = 2,
  /// The file or its constant data is not aligned as the format requires.
  Misaligned = 3,
  /// The flatbuffers structure is invalid (offsets, nesting, string/vector bounds).
  BadStructure = 4,
  /// An enum value (dtype, storage, kernel id) this runtime does not know.
  UnknownKind = 5,
  /// A required field is absent.
  MissingField = 6,
  /// A tensor, region or operand index is out of range.
  BadIndex = 7,
  /// A shape has a negative dimension or too many dimensions, or disagrees with an op.
  BadShape = 8,
  /// A size computation overflows 32-bit arithmetic.
  SizeOverflow = 9,
  /// A constant's bytes run past the file's constant data.
  DataOutOfBounds = 10,
  /// An op has the wrong number or dtype of operands or parameters.
  BadOpSignature = 11,
  /// An op parameter is out of its valid range (stride 0, shift out of range, ...).
  BadOpParameter = 12,
  /// Quantization parameters are missing, mis-sized or out of range.
  BadQuantization = 13,
  /// The op order is not a valid schedule (a tensor read before it is written, written twice,
  /// ...).
  BadGraph = 14,
  /// The memory plan is unsound: a buffer runs past its region, a view does not sit on its
  /// source, or two buffers that are live at the same op overlap.
  BadPlan = 15,

  // Caller errors -----------------------------------------------------------------------------
  /// A memory region is smaller than the program's plan needs.
  ArenaTooSmall = 20,
  /// An index met at run time is out of range: an input, output or op index passed to the
  /// executor, or an index read from tensor data (gather, embedding).
  RuntimeIndex = 21,
  /// A tensor handed in has the wrong shape, dtype or byte size.
  ShapeMismatch = 22,
  /// A call made in the wrong state (run before load, ...).
  InvalidState = 23,

  // Build limits ------------------------------------------------------------------------------
  /// The program uses a kernel that is not linked into this build.
  KernelNotLinked = 30,

  /// A kernel met a case the compiler should have ruled out.
  Internal = 40,
};

/// A short English name of `status`, for logs and host tools.
const char* to_string(Status status);

}  // namespace ember::rt

#define EMBER_RETURN_IF_ERROR(expr)                       \
  do {                                                    \
    const ::ember::rt::Status ember_status_ = (expr);     \
    if (ember_status_ != ::ember::rt::Status::Ok) return ember_status_; \
  } while (0)
