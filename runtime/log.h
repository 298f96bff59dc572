//===- log.h - Error messages through a weak platform hook ---------------===//
//
// The runtime never calls printf. A failed check formats nothing itself: it hands the format
// string and arguments to `ember_platform_log`, a weak function the board support may define
// (for example with vprintf to a UART, or to stderr on the host). The default does nothing.
// Building with EMBER_NO_LOG removes the messages and their strings entirely, so a size build
// pays only for the status codes, which stay.
//
// Formats use <inttypes.h> macros (PRIu32, PRId32) and 32-bit arguments: counts are cast to
// uint32_t, which is exact for everything a verified program holds.

#pragma once

#include <inttypes.h>
#include <stdarg.h>

#include "ember/runtime/status.h"

#if defined(__GNUC__) || defined(__clang__)
#define EMBER_WEAK __attribute__((weak))
#define EMBER_NOINLINE __attribute__((noinline))
#define EMBER_ALWAYS_INLINE inline __attribute__((always_inline))
#define EMBER_PRINTF_FORMAT(fmt_index, first_arg) \
  __attribute__((format(printf, fmt_index, first_arg)))
#else
#define EMBER_WEAK
#define EMBER_NOINLINE
#define EMBER_ALWAYS_INLINE inline
#define EMBER_PRINTF_FORMAT(fmt_index, first_arg)
#endif

extern "C" {
/// Platform hook: receives one message (no trailing newline) in printf form. Weak; the
/// runtime's default discards it. Must not call back into the runtime.
void ember_platform_log(const char* fmt, va_list args);
}

namespace ember::rt::internal {
/// Forwards to ember_platform_log. Use through EMBER_LOG, never directly.
void log_message(const char* fmt, ...) EMBER_PRINTF_FORMAT(1, 2);
}  // namespace ember::rt::internal

#ifdef EMBER_NO_LOG
// A dead call rather than nothing: arguments stay "used" and format-checked, while the
// compiler drops the call and its strings (constant-false branch, removed even at -O0).
#define EMBER_LOG(fmt, ...)                                                \
  do {                                                                     \
    if (false) ::ember::rt::internal::log_message(fmt, ##__VA_ARGS__);     \
  } while (0)
#else
#define EMBER_LOG(fmt, ...) ::ember::rt::internal::log_message(fmt, ##__VA_ARGS__)
#endif

/// Logs and returns `status` from the enclosing function when `cond` is false. The condition is
/// always evaluated: only the message compiles out, never the check.
#define EMBER_CHECK_OR_RETURN(cond, status, fmt, ...) \
  do {                                                \
    if (!(cond)) {                                    \
      EMBER_LOG(fmt, ##__VA_ARGS__);                  \
      return (status);                                \
    }                                                 \
  } while (0)
