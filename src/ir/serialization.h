// JSON serialization of IR (tvm.ir.save_json / tvm.ir.load_json), driven by
// each node type's registration (runtime/reflection.h): a node is its type
// key and its registered fields. Shared nodes (a variable used in many
// places, a buffer) are written once and keep their identity when loaded.
// IR layer; used by Python, trace/database storage and tests.
//
// Document: {"tessera_json": 1, "root": VALUE, "nodes": [NODE...]} where
//   NODE  = {"type_key": K, "fields": {name: VALUE}}  (registered node types)
//         | {"type_key": "runtime.Array", "items": [VALUE...]}
//         | {"type_key": "runtime.Map", "entries": [[VALUE, VALUE]...]}
//   VALUE = null | true | false | integer | "string" | {"float": x | "nan" | "inf" | "-inf"}
//         | {"dtype": "float32"} | {"node": index into nodes, pointing backwards}
#pragma once

#include <string>

#include "runtime/any.h"

namespace tessera {

// The JSON text of `value`. Raises ValueError naming the culprit for values
// that cannot be written (an object type with no registered fields or with
// computed fields, a device, a raw handle).
std::string SaveJSON(const Any& value);

// The value described by `json`. Raises ValueError naming the culprit on
// malformed JSON, an unknown type key, a missing or unknown field, or a
// field value of the wrong type.
Any LoadJSON(const std::string& json);

}  // namespace tessera
