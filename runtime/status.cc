//===- status.cc - Names of the runtime's status codes -------------------===//
//
// One short phrase per code (runtime/status.def), for logs and host tools.

#include "ember/runtime/status.h"

namespace ember::rt {

const char* to_string(Status status) {
  switch (status) {
#define EMBER_STATUS(name, value, id, message) \
  case Status::name:                           \
    return message;
#include "ember/runtime/status.def"
#undef EMBER_STATUS
  }
  return "unknown status";
}

}  // namespace ember::rt
