// Mutator (`tvm.meta_schedule.mutator.Mutator`): proposes a variant of a
// tuning candidate's trace (another sampling decision, another annotation
// value) for the evolutionary search. Each mutator lives in its own file
// here and registers itself with TESSERA_REGISTER_MUTATOR; the random
// helpers below are shared by all. MetaSchedule layer (above tir/schedule).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "runtime/registry.h"
#include "tir/schedule/schedule.h"

namespace tessera {
namespace meta_schedule {

// TVM's TRandState: a seed that the mutator advances in place.
using TRandState = int64_t;

// Deterministic random draws advancing `*state` (splitmix64 steps).
uint64_t RandNext(TRandState* state);
// Uniform integer in [lo, hi) (hi > lo).
int64_t RandInt(TRandState* state, int64_t lo, int64_t hi);
// Uniform double in [0, 1).
double RandUniform(TRandState* state);
// An index drawn with the (non-negative, not all zero) weights.
int64_t RandWeighted(TRandState* state, const std::vector<double>& weights);
// The state for a user's seed (-1: a random one).
TRandState RandStateFromSeed(int64_t seed);

class MutatorNode : public Object {
 public:
  // Set by InitializeWithTuneContext: the task's module and core count.
  IRModule mod;
  int64_t num_cores = 1;

  virtual ~MutatorNode() = default;
  virtual void InitializeWithTuneContext(const IRModule& m, int64_t cores) {
    mod = m;
    num_cores = cores;
  }
  // A mutated copy of `trace`, or nullopt when this mutator finds nothing
  // to change in it. The result is not replayed; the caller replays it and
  // drops it if it does not apply.
  virtual std::optional<tir::Trace> Apply(const tir::Trace& trace, TRandState* rand_state) const;
  virtual std::string Name() const { return "Mutator"; }
  TESSERA_DECLARE_OBJECT_INFO(MutatorNode, Object, "meta_schedule.Mutator");
};

class Mutator : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Mutator, ObjectRef, MutatorNode);
};

// Helpers for mutator files.
// The module the mutator works on (ValueError before InitializeWithTuneContext).
const IRModule& MutatorModule(const MutatorNode* m);
// A trace with instruction `index` replaced by `inst` (decisions keyed on the new one).
tir::Trace ReplaceInstruction(const tir::Trace& trace, size_t index, const tir::Instruction& inst);
// The first `count` instructions of `trace` with their decisions.
tir::Trace TracePrefix(const tir::Trace& trace, size_t count);
// Replays `trace` on a fresh schedule of `mod`; nullopt if it does not apply.
std::optional<tir::Schedule> TryReplay(const IRModule& mod, const tir::Trace& trace);

// Re-picks the decision of one SampleCategorical of `trace` (with at least two
// candidates, a single output and `is_site(inst)`), chosen uniformly: another
// candidate drawn with the instruction's probabilities (the current one
// excluded). nullopt when there is no such instruction or no other candidate
// has a positive probability. MutateUnroll and MutateThreadBinding use it.
std::optional<tir::Trace> RepickCategorical(const tir::Trace& trace, TRandState* rand_state,
                                            const std::function<bool(const tir::Instruction&)>& is_site);

// Registers the FFI constructor "meta_schedule.Mutator<Name>" (called with
// the constructor's Python arguments as a typed lambda).
#define TESSERA_REGISTER_MUTATOR(Name) TESSERA_REGISTER_GLOBAL("meta_schedule.Mutator" Name)

}  // namespace meta_schedule
}  // namespace tessera
