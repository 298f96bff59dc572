//===- log.cc - Default (silent) platform log hook -----------------------===//
//
// The weak default keeps the runtime linkable with no board support at all; a port overrides
// ember_platform_log by defining it in any object file of the firmware.

#include "ember/runtime/log.h"

extern "C" EMBER_WEAK void ember_platform_log(const char* fmt, va_list args) {
  (void)fmt;
  (void)args;
}

namespace ember::rt::internal {

void log_message(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  ember_platform_log(fmt, args);
  va_end(args);
}

}  // namespace ember::rt::internal
