// TVMScript parser entry points and their global-function registration
// (see parser.h): tokenize, parse to the Python-subset AST, evaluate it with
// the dialect-neutral evaluator (core/) and the registered dialects (ir/,
// tir/) into IR.
#include "script/parser/parser.h"

#include "runtime/registry.h"
#include "script/parser/core/evaluator.h"
#include "script/parser/ir/module_builder.h"
#include "script/parser/python_parser.h"

namespace tessera {
namespace script {

ObjectRef ParseTVMScript(const std::string& source, const std::string& filename, int line_offset,
                         std::optional<PackedFunc> resolver) {
  SourceFile file(source, filename, line_offset);
  ast::Module module = ParsePython(file);
  NameResolver resolve;
  if (resolver && resolver->defined()) {
    PackedFunc f = *resolver;
    resolve = [f](const std::string& name) -> std::optional<Any> {
      try {
        return f(String(name));
      } catch (const Error& e) {
        if (e.kind() == "KeyError") return std::nullopt;
        throw;
      }
    };
  }
  Evaluator ev(file, resolve);
  return BuildScript(ev, module);
}

TESSERA_REGISTER_GLOBAL("script.ParseTIR").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() >= 1 && args.size() <= 4, TypeError)
      << "script.ParseTIR(source, filename=\"<string>\", line_offset=0, resolver=None) got " << args.size()
      << " arguments";
  std::string source = args[0].cast<std::string>();
  std::string filename = args.size() > 1 && !args[1].is_none() ? args[1].cast<std::string>() : "<string>";
  int line_offset = args.size() > 2 && !args[2].is_none() ? args[2].cast<int>() : 0;
  std::optional<PackedFunc> resolver;
  if (args.size() > 3 && !args[3].is_none()) resolver = args[3].cast<PackedFunc>();
  return ParseTVMScript(source, filename, line_offset, resolver);
});

}  // namespace script
}  // namespace tessera
