// The Mutator base (mutator.h): the shared random helpers, trace editing
// helpers and the FFI entries every mutator shares (apply, initialize,
// name). Mutators themselves are in mutate_*.cc. MetaSchedule layer.
#include "meta_schedule/mutator/mutator.h"

#include <chrono>

namespace tessera {
namespace meta_schedule {

uint64_t RandNext(TRandState* state) {
  uint64_t z = static_cast<uint64_t>(*state) + 0x9E3779B97F4A7C15ull;
  *state = static_cast<TRandState>(z);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t RandInt(TRandState* state, int64_t lo, int64_t hi) {
  TESSERA_CHECK_OR_THROW(hi > lo, ValueError) << "RandInt: empty range [" << lo << ", " << hi << ")";
  return lo + static_cast<int64_t>(RandNext(state) % static_cast<uint64_t>(hi - lo));
}

double RandUniform(TRandState* state) { return static_cast<double>(RandNext(state) >> 11) * 0x1.0p-53; }

int64_t RandWeighted(TRandState* state, const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) {
    TESSERA_CHECK_OR_THROW(w >= 0, ValueError) << "a sampling weight is negative: " << w;
    total += w;
  }
  TESSERA_CHECK_OR_THROW(total > 0, ValueError) << "every sampling weight is zero";
  double x = RandUniform(state) * total;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (x < weights[i]) return static_cast<int64_t>(i);
    x -= weights[i];
  }
  for (size_t i = weights.size(); i-- > 0;) {
    if (weights[i] > 0) return static_cast<int64_t>(i);
  }
  return 0;
}

TRandState RandStateFromSeed(int64_t seed) {
  if (seed == -1) seed = std::chrono::steady_clock::now().time_since_epoch().count();
  TESSERA_CHECK_OR_THROW(seed >= 0, ValueError) << "rand_state must be -1 (random) or non-negative, got " << seed;
  return static_cast<TRandState>(seed);
}

std::optional<tir::Trace> MutatorNode::Apply(const tir::Trace&, TRandState*) const {
  TESSERA_THROW(NotImplementedError) << "Mutator is an interface: use MutateTileSize, MutateParallel, "
                                        "MutateUnroll or MutateComputeLocation";
}

const IRModule& MutatorModule(const MutatorNode* m) {
  TESSERA_CHECK_OR_THROW(m->mod.defined(), ValueError)
      << m->Name() << " needs the task's module: call its _initialize_with_tune_context(context) first";
  return m->mod;
}

tir::Trace ReplaceInstruction(const tir::Trace& trace, size_t index, const tir::Instruction& inst) {
  tir::Trace out = tir::Trace::Empty();
  auto* n = const_cast<tir::TraceNode*>(out.get());
  n->insts = trace->insts;
  tir::Instruction old = n->insts.at(index);
  n->insts[index] = inst;
  for (const auto& [i, d] : trace->decisions) n->decisions.emplace_back(i.same_as(old) ? inst : i, d);
  return out;
}

tir::Trace TracePrefix(const tir::Trace& trace, size_t count) {
  tir::Trace out = tir::Trace::Empty();
  auto* n = const_cast<tir::TraceNode*>(out.get());
  n->insts.assign(trace->insts.begin(), trace->insts.begin() + static_cast<std::ptrdiff_t>(count));
  for (const auto& [i, d] : trace->decisions) {
    for (const auto& kept : n->insts) {
      if (kept.same_as(i)) {
        n->decisions.emplace_back(i, d);
        break;
      }
    }
  }
  return out;
}

std::optional<tir::Trace> RepickCategorical(const tir::Trace& trace, TRandState* rand_state,
                                            const std::function<bool(const tir::Instruction&)>& is_site) {
  std::vector<std::pair<tir::Instruction, int64_t>> sites;
  for (const auto& [inst, decision] : trace->decisions) {
    if (inst->kind->name != "SampleCategorical" || inst->outputs.size() != 1) continue;
    if (inst->attrs.at_any(0).cast<Array<Any>>().size() < 2 || !is_site(inst)) continue;
    sites.emplace_back(inst, decision.cast<int64_t>());
  }
  if (sites.empty()) return std::nullopt;
  const auto& [inst, current] = sites[static_cast<size_t>(RandInt(rand_state, 0, static_cast<int64_t>(sites.size())))];
  Array<Any> probs = inst->attrs.at_any(1).cast<Array<Any>>();
  std::vector<double> weights;
  for (size_t i = 0; i < probs.size(); ++i) {
    weights.push_back(static_cast<int64_t>(i) == current ? 0.0 : probs.at_any(i).cast<double>());
  }
  double total = 0;
  for (double w : weights) total += w;
  if (total <= 0) return std::nullopt;  // every other candidate has probability 0
  return trace.WithDecision(inst, Any(RandWeighted(rand_state, weights)));
}

std::optional<tir::Schedule> TryReplay(const IRModule& mod, const tir::Trace& trace) {
  tir::Schedule sch(mod, 1);
  try {
    sch.ApplyTrace(trace, /*remove_postproc=*/false);
  } catch (const Error&) {
    return std::nullopt;
  }
  return sch;
}

TESSERA_REGISTER_OBJECT_TYPE(MutatorNode);

// ---- FFI shared by every mutator -------------------------------------------------
TESSERA_REGISTER_GLOBAL("meta_schedule.MutatorApply").set_body_typed([](Mutator m, tir::Trace trace, int64_t seed) -> Any {
  TRandState state = RandStateFromSeed(seed);
  std::optional<tir::Trace> out = m->Apply(trace, &state);
  if (!out) return Any();
  return Any(*out);
});
// Applies with a caller-held state and returns [trace or None, new state], so
// a Python search draws a reproducible sequence from one seed.
TESSERA_REGISTER_GLOBAL("meta_schedule.MutatorApplyWithState")
    .set_body_typed([](Mutator m, tir::Trace trace, int64_t state) -> Array<Any> {
      TRandState s = state;
      std::optional<tir::Trace> out = m->Apply(trace, &s);
      return Array<Any>{out ? Any(*out) : Any(), Any(static_cast<int64_t>(s))};
    });
TESSERA_REGISTER_GLOBAL("meta_schedule.MutatorInitializeWithTuneContext")
    .set_body_typed([](Mutator m, IRModule mod, int64_t num_cores) {
      TESSERA_CHECK_OR_THROW(num_cores >= 1, ValueError) << "num_cores must be at least 1, got " << num_cores;
      const_cast<MutatorNode*>(m.get())->InitializeWithTuneContext(mod, num_cores);
    });
// A copy with the same settings, not yet initialized with a task.
TESSERA_REGISTER_GLOBAL("meta_schedule.MutatorClone").set_body_typed([](Mutator m) {
  Mutator copy(ObjectPtr<Object>(m->CloneImpl()));
  const_cast<MutatorNode*>(copy.get())->mod = IRModule();
  return copy;
});
TESSERA_REGISTER_GLOBAL("meta_schedule.MutatorName").set_body_typed([](Mutator m) { return m->Name(); });

}  // namespace meta_schedule
}  // namespace tessera
