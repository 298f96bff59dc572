//===- status.cc - Names of the runtime's status codes -------------------===//
//
// One short, stable name per code, for logs and host tools (`ember run` prints it). A switch
// with no default lets -Wswitch flag a code added to status.h without a name here.

#include "runtime/status.h"

namespace ember::rt {

const char* to_string(Status status) {
  switch (status) {
    case Status::Ok: return "ok";
    case Status::Truncated: return "truncated program file";
    case Status::BadIdentity: return "bad file identifier or schema version";
    case Status::Misaligned: return "misaligned buffer or data";
    case Status::BadStructure: return "corrupt flatbuffers structure";
    case Status::UnknownKind: return "unknown dtype, storage or kernel id";
    case Status::MissingField: return "required field missing";
    case Status::BadIndex: return "index out of range";
    case Status::BadShape: return "bad tensor shape";
    case Status::SizeOverflow: return "size arithmetic overflows 32 bits";
    case Status::DataOutOfBounds: return "constant data out of bounds";
    case Status::BadOpSignature: return "bad op signature";
    case Status::BadOpParameter: return "bad op parameter";
    case Status::BadQuantization: return "bad quantization parameters";
    case Status::BadGraph: return "invalid op order";
    case Status::BadPlan: return "invalid memory plan";
    case Status::ArenaTooSmall: return "memory region too small";
    case Status::RuntimeIndex: return "index out of range at run time";
    case Status::ShapeMismatch: return "tensor size mismatch";
    case Status::InvalidState: return "call in invalid state";
    case Status::KernelNotLinked: return "kernel not linked in this build";
    case Status::Internal: return "internal error";
  }
  return "unknown status";
}

}  // namespace ember::rt
