// ArgBinder: binds a TVMScript builtin call's positional and keyword
// arguments (CallArgs) to the builtin's parameter names, reporting too many
// arguments, unknown or repeated keywords and missing required ones as
// ParseErrors at the argument, through the dialect builder's Error. Parser
// core; used by the builtins of each dialect (parser/tir, parser/relax).
#pragma once

#include <string>
#include <vector>

#include "runtime/error.h"
#include "script/parser/core/dialect.h"

namespace tessera {
namespace script {

template <typename Builder>
class ArgBinder {
 public:
  ArgBinder(Builder& b, const CallArgs& c, std::vector<std::string> params, size_t required)
      : c_(c), params_(std::move(params)), vals_(params_.size()), pos_(params_.size()) {
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (i >= params_.size()) {
        b.Error(c.arg_pos[i], c.func + "() takes at most " + std::to_string(params_.size()) + " positional argument" +
                                  (params_.size() == 1 ? "" : "s") + " but " + std::to_string(c.args.size()) +
                                  " were given");
      }
      vals_[i] = &c.args[i];
      pos_[i] = c.arg_pos[i];
    }
    for (size_t k = 0; k < c.kwargs.size(); ++k) {
      size_t i = Index(c.kwargs[k].first);
      if (i == params_.size()) {
        b.Error(c.kwarg_pos[k], c.func + "() got an unexpected keyword argument '" + c.kwargs[k].first + "'");
      }
      if (vals_[i] != nullptr) b.Error(c.kwarg_pos[k], c.func + "() got multiple values for argument '" + params_[i] + "'");
      vals_[i] = &c.kwargs[k].second;
      pos_[i] = c.kwarg_pos[k];
    }
    for (size_t i = 0; i < required; ++i) {
      if (vals_[i] == nullptr) b.Error(c.node->pos, c.func + "() is missing the required argument '" + params_[i] + "'");
    }
  }
  // Present and not None.
  bool has(const std::string& name) const {
    const Any* v = vals_[Checked(name)];
    return v != nullptr && !v->is_none();
  }
  const Any& get(const std::string& name) const {
    static const Any none;
    const Any* v = vals_[Checked(name)];
    return v ? *v : none;
  }
  Pos pos(const std::string& name) const {
    size_t i = Checked(name);
    return vals_[i] ? pos_[i] : c_.node->pos;
  }

 private:
  // The parameter's index; params_.size() for an unknown name.
  size_t Index(const std::string& name) const {
    for (size_t i = 0; i < params_.size(); ++i)
      if (params_[i] == name) return i;
    return params_.size();
  }
  // The index of a parameter the builtin itself names (a bug otherwise).
  size_t Checked(const std::string& name) const {
    size_t i = Index(name);
    TESSERA_ICHECK(i < params_.size()) << c_.func << "(): no parameter named " << name;
    return i;
  }
  const CallArgs& c_;
  std::vector<std::string> params_;
  std::vector<const Any*> vals_;
  std::vector<Pos> pos_;
};

}  // namespace script
}  // namespace tessera
