//===- status.h - Error codes of the Ember runtime ------------------------===//
//
// Every runtime entry point returns a Status; nothing aborts. The codes, their numbers, ids
// and messages are declared once, in runtime/status.def.

#pragma once

#include <stdint.h>

namespace ember::rt {

enum class Status : uint8_t {
#define EMBER_STATUS(name, value, id, message) name = value,
#include "ember/runtime/status.def"
#undef EMBER_STATUS
};

/// A short English name of `status`, for logs and host tools.
const char* to_string(Status status);

}  // namespace ember::rt

#define EMBER_RETURN_IF_ERROR(expr)                       \
  do {                                                    \
    const ::ember::rt::Status ember_status_ = (expr);     \
    if (ember_status_ != ::ember::rt::Status::Ok) return ember_status_; \
  } while (0)
