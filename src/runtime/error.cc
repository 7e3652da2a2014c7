// Maps an error kind name to its C++ class (see error.h).
#include "runtime/error.h"

namespace tessera {

void ThrowErrorOfKind(const std::string& kind, const std::string& msg,
                      std::shared_ptr<ErrorPayload> payload) {
  if (kind == "ValueError") throw ValueError(msg, std::move(payload));
  if (kind == "TypeError") throw TypeError(msg, std::move(payload));
  if (kind == "IndexError") throw IndexError(msg, std::move(payload));
  if (kind == "KeyError") throw KeyError(msg, std::move(payload));
  if (kind == "AttributeError") throw AttributeError(msg, std::move(payload));
  if (kind == "NotImplementedError") throw NotImplementedError(msg, std::move(payload));
  if (kind == "RuntimeError") throw RuntimeError(msg, std::move(payload));
  if (kind == "OverflowError") throw OverflowError(msg, std::move(payload));
  if (kind == "MemoryError") throw MemoryError(msg, std::move(payload));
  if (kind == "InternalError") throw InternalError(msg, std::move(payload));
  throw Error(msg, kind, std::move(payload));
}

}  // namespace tessera
