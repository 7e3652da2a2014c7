// Target string parsing (see target.h): the kind and each option are checked
// against the kind's registration (target_kind.h): unknown options, values
// of the wrong type and, through the kind's parser hook, values the
// toolchain does not know (an LLVM CPU or feature) raise ValueError naming
// the culprit.
#include "target/target.h"

#include <algorithm>
#include <set>

#include <sstream>

#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "target/tag.h"
#include "target/target_kind.h"

namespace tessera {
namespace {

std::string JoinNames(const std::vector<std::string>& names, const std::string& prefix) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + prefix + n;
  return out.empty() ? "none" : out;
}

Any ParseOptionValue(const std::string& kind, const std::string& key, const std::string& value, bool has_value,
                     TargetOptionType type) {
  switch (type) {
    case TargetOptionType::kBool:
      if (!has_value || value == "true" || value == "1") return true;
      if (value == "false" || value == "0") return false;
      TESSERA_THROW(ValueError) << "target option -" << key << " of kind '" << kind
                                << "' takes true or false, not '" << value << "'";
    case TargetOptionType::kInt: {
      bool ok = has_value && !value.empty();
      size_t start = ok && value[0] == '-' ? 1 : 0;
      ok = ok && value.size() > start && value.find_first_not_of("0123456789", start) == std::string::npos &&
           value.size() - start <= 18;
      if (!ok) {
        TESSERA_THROW(ValueError) << "target option -" << key << " of kind '" << kind << "' takes an integer, not '"
                                  << (has_value ? value : std::string("(no value)")) << "'";
      }
      return static_cast<int64_t>(std::stoll(value));
    }
    case TargetOptionType::kString:
      if (!has_value || value.empty()) {
        TESSERA_THROW(ValueError) << "target option -" << key << " of kind '" << kind << "' needs a value (-" << key
                                  << "=...)";
      }
      return value;
  }
  TESSERA_THROW(InternalError) << "unhandled target option type";
}

// A tag's target string: its kind, the tag's options the rest of `spec`
// does not give, then the rest of `spec` (options after a tag override it).
std::string ExpandTag(const TargetTagInfo& tag, const std::vector<std::string>& words) {
  std::set<std::string> given;
  for (const std::string& w : words) {
    size_t dashes = w.rfind("--", 0) == 0 ? 2 : w.rfind('-', 0) == 0 ? 1 : 0;
    if (dashes != 0) given.insert(w.substr(dashes, w.find('=') == std::string::npos ? std::string::npos
                                                                                     : w.find('=') - dashes));
  }
  std::string out = tag.kind;
  for (const auto& [key, value] : tag.options) {
    if (given.count(key)) continue;
    if (auto s = value.try_cast<std::string>()) out += " -" + key + "=" + *s;
    else out += " -" + key + "=" + std::to_string(value.cast<int64_t>());
  }
  for (const std::string& w : words) out += " " + w;
  return out;
}

}  // namespace

Target::Target(const std::string& spec) {
  std::istringstream is(spec);
  std::string tok;
  auto n = make_object<TargetNode>();
  if (!(is >> tok)) TESSERA_THROW(ValueError) << "empty target string";
  if (FindTargetKind(tok) == nullptr) {
    if (const TargetTagInfo* tag = FindTargetTag(tok)) {
      std::vector<std::string> rest;
      std::string w;
      while (is >> w) rest.push_back(w);
      // The tag is not kept: the target is its kind and options (its string parses
      // back to an equal target).
      data_ = Target(ExpandTag(*tag, rest)).data_;
      return;
    }
  }
  const TargetKindInfo* kind = FindTargetKind(tok);
  if (kind == nullptr) {
    TESSERA_THROW(ValueError) << "unknown target kind '" << tok << "' (known kinds: "
                              << JoinNames(ListTargetKinds(), "")
                              << (tok.find('/') != std::string::npos ? "; tvm.target.list_tags() lists the tags"
                                                                       : "")
                              << ")";
  }
  n->kind = kind->name;
  n->keys = kind->default_keys;
  std::vector<std::string> valid;
  for (const auto& kv : kind->options) valid.push_back(kv.first);
  std::vector<std::string> words;
  while (is >> tok) words.push_back(tok);
  std::string canonical = n->kind;  // the spec with "-key value" written "-key=value"
  for (size_t w = 0; w < words.size(); ++w) {
    tok = words[w];
    size_t dashes = tok.rfind("--", 0) == 0 ? 2 : tok.rfind('-', 0) == 0 ? 1 : 0;
    if (dashes == 0) TESSERA_THROW(ValueError) << "target option '" << tok << "' must start with '-'";
    std::string body = tok.substr(dashes);
    size_t eq = body.find('=');
    std::string key = body.substr(0, eq);
    auto opt = kind->options.find(key);
    if (opt == kind->options.end()) {
      TESSERA_THROW(ValueError) << "unknown option -" << key << " for target kind '" << n->kind
                                << "' (valid options: " << JoinNames(valid, "-") << ")";
    }
    if (n->attrs.count(key)) TESSERA_THROW(ValueError) << "target option -" << key << " is given twice";
    bool has_value = eq != std::string::npos;
    std::string value = has_value ? body.substr(eq + 1) : "";
    // "-key value" as well as "-key=value" (as TVM accepts): the next word is
    // the value unless it is the next option; a bool flag takes only true/false.
    if (!has_value && w + 1 < words.size()) {
      const std::string& next = words[w + 1];
      const bool negative_int = opt->second == TargetOptionType::kInt && next.size() > 1 && next[0] == '-' &&
                                next.find_first_not_of("0123456789", 1) == std::string::npos;
      const bool takes = opt->second == TargetOptionType::kBool
                             ? (next == "true" || next == "false" || next == "0" || next == "1")
                             : (next[0] != '-' || negative_int);
      if (takes) {
        value = next;
        has_value = true;
        ++w;
      }
    }
    n->attrs.Set(key, ParseOptionValue(n->kind, key, value, has_value, opt->second));
    canonical += " " + tok.substr(0, dashes) + key + (has_value ? "=" + value : "");
  }
  if (auto cores = n->attrs.Get("num-cores")) {
    TESSERA_CHECK_OR_THROW(cores->cast<int64_t>() > 0, ValueError)
        << "target option --num-cores must be a positive integer";
  }
  for (const auto& [key, value] : kind->option_defaults) {
    if (!n->attrs.count(key)) n->attrs.Set(key, value);
  }
  n->str = canonical;
  if (kind->parser) kind->parser(n.get());
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

bool Target::GetBool(const std::string& key) const {
  auto v = get()->attrs.Get(key);
  if (!v) return false;
  return v->try_cast<bool>().value_or(false);
}

Target DefaultHostTarget() {
  return Target(Registry::Get("target.build.llvm").has_value() ? "llvm" : "c");
}

TESSERA_REGISTER_OBJECT_TYPE(TargetNode);
TESSERA_REGISTER_NODE(TargetNode)
    .field("kind_name", &TargetNode::kind)
    .field("attrs", &TargetNode::attrs)
    .getter("keys", [](const TargetNode* n) { return Array<String>(n->keys.begin(), n->keys.end()); })
    .field("str", &TargetNode::str)
    .field("host", &TargetNode::host);
TESSERA_REGISTER_GLOBAL("target.DefaultHost").set_body_typed([]() { return DefaultHostTarget(); });
TESSERA_REGISTER_GLOBAL("target.Target").set_body_typed([](std::string spec) { return Target(spec); });
// A target with its host (TVMScript's T.target("cuda", host="llvm")); for a
// CPU target the host must be the target itself, as Python's Target checks.
TESSERA_REGISTER_GLOBAL("target.TargetWithHost").set_body_typed([](std::string spec, std::string host_spec) {
  Target target(spec);
  Target host(host_spec);
  bool is_cpu = std::find(target->keys.begin(), target->keys.end(), "cpu") != target->keys.end();
  TESSERA_CHECK_OR_THROW(!is_cpu || host->str == target->str, ValueError)
      << "target host '" << host->str << "' differs from the CPU target '" << target->str
      << "': for CPU targets the host is the target itself";
  TargetNode* n = const_cast<TargetNode*>(target.get());  // fresh, not shared yet
  n->host = host;
  return target;
});
TESSERA_REGISTER_GLOBAL("target.TargetGetHost").set_body_typed([](Target t) { return t->host; });

}  // namespace tessera
