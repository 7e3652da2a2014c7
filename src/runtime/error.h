// Error types of the Tessera core and the macros that raise them.
// Lowest piece of the runtime layer: every other layer throws these. Each
// error carries a `kind` ("ValueError", "TypeError", "ParseError", ...) that
// the Python bindings map to the matching `tessera.error` class.
#pragma once

#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tessera {

// Something an error carries from a foreign runtime (e.g. the original
// Python exception object), so the error can be re-raised intact there.
struct ErrorPayload {
  virtual ~ErrorPayload() = default;
};

// Base of all errors raised by Tessera. `kind` names the Python exception
// class the error becomes; `payload` optionally keeps a foreign exception
// (e.g. the original Python exception object) so it can be re-raised intact
// when the error crosses back to the language it came from.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg, std::string kind = "TVMError",
                 std::shared_ptr<ErrorPayload> payload = nullptr)
      : std::runtime_error(msg), kind_(std::move(kind)), payload_(std::move(payload)) {}

  const std::string& kind() const { return kind_; }
  const std::shared_ptr<ErrorPayload>& payload() const { return payload_; }

 private:
  std::string kind_;
  std::shared_ptr<ErrorPayload> payload_;
};

// User-caused errors, one class per Pythonic category.
#define TESSERA_DEFINE_ERROR_KIND(Name, Kind)                                              \
  class Name : public Error {                                                             \
   public:                                                                                \
    explicit Name(const std::string& msg, std::shared_ptr<ErrorPayload> payload = nullptr)        \
        : Error(msg, Kind, std::move(payload)) {}                                         \
  };

TESSERA_DEFINE_ERROR_KIND(ValueError, "ValueError")
TESSERA_DEFINE_ERROR_KIND(TypeError, "TypeError")
TESSERA_DEFINE_ERROR_KIND(IndexError, "IndexError")
TESSERA_DEFINE_ERROR_KIND(KeyError, "KeyError")
TESSERA_DEFINE_ERROR_KIND(AttributeError, "AttributeError")
TESSERA_DEFINE_ERROR_KIND(NotImplementedError, "NotImplementedError")
TESSERA_DEFINE_ERROR_KIND(RuntimeError, "RuntimeError")
// A value does not fit its type (an argument too large for an int32 parameter).
TESSERA_DEFINE_ERROR_KIND(OverflowError, "OverflowError")
// An allocation that cannot be made (too large, or the system refused it).
TESSERA_DEFINE_ERROR_KIND(MemoryError, "MemoryError")
// A broken internal invariant: a bug in Tessera, never the user's fault.
TESSERA_DEFINE_ERROR_KIND(InternalError, "InternalError")

#undef TESSERA_DEFINE_ERROR_KIND

// Throws an Error whose class is chosen by `kind` (known kinds get their C++
// subclass so C++ callers can catch them by type).
[[noreturn]] void ThrowErrorOfKind(const std::string& kind, const std::string& msg,
                                   std::shared_ptr<ErrorPayload> payload = nullptr);

namespace detail {
// `Thrower<E>(...) & (stream << a << b)` builds the message, then throws.
// operator& binds looser than <<, so the whole message is formed first.
template <typename E>
struct Thrower {
  const char* file = nullptr;
  int line = 0;
  const char* cond = nullptr;
  [[noreturn]] void operator&(std::ostream& os) const {
    std::ostringstream msg;
    if (cond != nullptr) msg << "Check failed: (" << cond << ") at " << file << ":" << line << ": ";
    msg << static_cast<std::ostringstream&>(os).str();
    throw E(msg.str());
  }
};
}  // namespace detail
}  // namespace tessera

// Raise a user-facing error: TESSERA_THROW(ValueError) << "shape mismatch in " << name;
#define TESSERA_THROW(ErrorClass) \
  ::tessera::detail::Thrower<::tessera::ErrorClass>{} & std::ostringstream().flush()

// Internal invariant: raises InternalError with the failed condition and location.
#define TESSERA_ICHECK(cond)                                                         \
  if (cond) {                                                                        \
  } else                                                                             \
    ::tessera::detail::Thrower<::tessera::InternalError>{__FILE__, __LINE__, #cond} & \
        std::ostringstream().flush()

// User-input check: raises the given error class with the message when cond fails.
#define TESSERA_CHECK_OR_THROW(cond, ErrorClass) \
  if (cond) {                                    \
  } else                                         \
    TESSERA_THROW(ErrorClass)
