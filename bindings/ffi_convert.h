// Conversion between Python objects and the runtime's Any values, and the
// table that maps object type indices to Python classes. Shared by every
// binding file; the Python side of the FFI boundary.
#pragma once

#include <nanobind/nanobind.h>

#include "runtime/any.h"
#include "runtime/packed_func.h"

namespace tessera::bindings {

namespace nb = nanobind;

// Python value -> Any. Lists/tuples become Arrays, callables PackedFuncs.
// Raises TypeError for values that cannot cross (naming their Python type).
Any FromPython(nb::handle h);
// Any -> Python value. Objects become instances of the most specific Python
// class registered for their type (see RegisterPyClass), Arrays lists.
nb::object ToPython(const Any& v);

// Makes `cls` (a subclass of tessera._core.Object) the Python class for
// objects whose type key is `type_key` and its subtypes without their own.
void RegisterPyClass(const std::string& type_key, nb::handle cls);

// Wraps a Python callable as a PackedFunc (calls take the GIL; Python
// exceptions become tessera::Error carrying the original exception).
PackedFunc WrapPyCallable(nb::handle callable);

// Converts the Python exception being handled into a tessera::Error.
[[noreturn]] void RethrowPythonErrorAsTessera(nb::python_error& e);

// Error kind <-> Python exception class table (filled by tessera.error).
void RegisterErrorClass(const std::string& kind, nb::handle cls);
// Class for `kind`, falling back to the "TVMError" class; null before registration.
nb::handle ErrorClassForKind(const std::string& kind);

// If `e` carries a Python exception, makes it the current Python error and
// returns true.
bool RestorePythonPayload(const Error& e);

}  // namespace tessera::bindings
