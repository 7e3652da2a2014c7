// Text of any IR value built from its node registration (runtime/
// reflection.h): constants by value, named nodes as Type(name), other nodes
// as type_key(field=value, ...) over the fields structural equality
// compares. IR layer; the fallback of mismatch messages and of printers for
// objects they have no syntax for (annotation values, attributes).
#pragma once

#include <string>

#include "runtime/any.h"

namespace tessera {

// `depth` bounds the nesting shown; deeper parts print as "...".
std::string ReprByFields(const Any& value, int depth = 4);

}  // namespace tessera
