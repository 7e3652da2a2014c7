// Target string parsing (see target.h).
#include "target/target.h"

#include <sstream>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {

Target::Target(const std::string& spec) {
  std::istringstream is(spec);
  std::string tok;
  auto n = make_object<TargetNode>();
  if (!(is >> tok)) TESSERA_THROW(ValueError) << "empty target string";
  if (tok != "llvm" && tok != "cuda" && tok != "c" && tok != "nvptx") {
    TESSERA_THROW(ValueError) << "unknown target kind '" << tok << "' (Tessera supports 'llvm' and 'cuda')";
  }
  n->kind = tok == "nvptx" ? "cuda" : tok;
  n->keys = n->kind == "cuda" ? std::vector<std::string>{"cuda", "gpu"} : std::vector<std::string>{"cpu"};
  while (is >> tok) {
    size_t dashes = tok.rfind("--", 0) == 0 ? 2 : tok.rfind('-', 0) == 0 ? 1 : 0;
    if (dashes == 0) TESSERA_THROW(ValueError) << "target option '" << tok << "' must start with '-'";
    std::string body = tok.substr(dashes);
    size_t eq = body.find('=');
    std::string key = body.substr(0, eq);
    if (eq == std::string::npos) {
      n->attrs.Set(key, true);
      continue;
    }
    std::string value = body.substr(eq + 1);
    bool is_int = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    if (is_int) n->attrs.Set(key, static_cast<int64_t>(std::stoll(value))); else n->attrs.Set(key, value);
  }
  if (auto cores = n->attrs.Get("num-cores")) {
    TESSERA_CHECK_OR_THROW(cores->try_cast<int64_t>() && cores->cast<int64_t>() > 0, ValueError)
        << "target option --num-cores must be a positive integer";
  }
  n->str = spec;
  data_ = std::move(n);
}

std::optional<std::string> Target::GetStr(const std::string& key) const {
  auto v = get()->attrs.Get(key);
  if (!v) return std::nullopt;
  return v->try_cast<std::string>();
}

std::optional<int64_t> Target::GetInt(const std::string& key) const {
  auto v = get()->attrs.Get(key);
  if (!v) return std::nullopt;
  return v->try_cast<int64_t>();
}

TESSERA_REGISTER_OBJECT_TYPE(TargetNode);
TESSERA_REGISTER_REFLECTION(TargetNode)
    .def_ro("kind_name", &TargetNode::kind)
    .def_ro("attrs", &TargetNode::attrs)
    .def_getter("keys", [](const TargetNode* n) { return Array<String>(n->keys.begin(), n->keys.end()); })
    .def_ro("str", &TargetNode::str);
TESSERA_REGISTER_GLOBAL("target.Target").set_body_typed([](std::string spec) { return Target(spec); });

}  // namespace tessera
