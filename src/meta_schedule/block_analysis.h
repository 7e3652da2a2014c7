// Block and loop queries the MetaSchedule schedule rules and postprocessors
// share (TVM's meta_schedule utils): the iterator type each loop carries for
// a block, trivial bindings, whether a block needs multi-level tiling or
// rfactor, spatial blocks and functions, and what a target offers (cores,
// vector width). Meta-schedule layer, on top of tir/schedule.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/reflection.h"
#include "target/target.h"
#include "target/target_kind.h"  // TargetNumCores, TargetVectorBits
#include "tir/schedule/schedule.h"

namespace tessera {
namespace meta_schedule {

// Annotation keys, spelled as TVM's (tir.attr / meta_schedule attrs).
inline constexpr const char* kTilingStructure = "meta_schedule.tiling_structure";
inline constexpr const char* kParallel = "meta_schedule.parallel";
inline constexpr const char* kVectorize = "meta_schedule.vectorize";
inline constexpr const char* kUnrollExplicit = "meta_schedule.unroll_explicit";
inline constexpr const char* kUnrollImplicit = "meta_schedule.unroll_implicit";
inline constexpr const char* kRandomComputeProducer = "meta_schedule.random_compute_producer";
inline constexpr const char* kInlineRule = "meta_schedule.inline_rule";
inline constexpr const char* kPragmaAutoUnrollMaxStep = "pragma_auto_unroll_max_step";
inline constexpr const char* kPragmaUnrollExplicit = "pragma_unroll_explicit";
inline constexpr const char* kCooperativeFetch = "meta_schedule.cooperative_fetch";

// Iterator type a loop carries for `block` (tir::kDataPar, tir::kCommReduce),
// from the block's bindings: a loop used only by spatial iterators (or by
// none) is spatial, only by reduction iterators a reduction loop; anything
// else is tir::kOpaque.
int LoopIterType(const tir::BlockRealizeNode* realize, const tir::ForNode* loop);
std::vector<int> LoopIterTypes(const tir::BlockLocation& loc);
// The iterator type of each of `loc`'s loops for every block under it (as
// TVM's GetLoopIterType of a loop): kDataPar only when the loop is spatial for
// all of them, so a producer compute_at'ed under a reduction loop (whose
// binding of that loop is spatial) does not make it parallelizable.
std::vector<int> LoopIterTypesUnder(const tir::BlockLocation& loc);
// Each iterator bound to exactly the loop variable of the loop at its position.
bool IsTrivialBinding(const tir::BlockLocation& loc);
bool IsSpatialBlock(const tir::BlockNode* block);
// Every block of the function is spatial.
bool IsSpatialPrimFunc(const tir::PrimFunc& func);
std::optional<int64_t> ConstExtent(const tir::ForNode* loop);
// Whether `stmt` is one statement (not a SeqStmt of several).
bool IsSingleStmt(const tir::Stmt& stmt);
bool HasAnnotation(const tir::BlockNode* block, const std::string& key);

// TVM's NeedsMultiLevelTiling: one write, some reads, not spatial, trivial
// binding, not tiled yet, and some spatial iterator unused by a read.
bool NeedsMultiLevelTiling(const tir::BlockLocation& loc);
// TVM's NeedsRFactorOrCrossThreadReduction (for the CPU: rfactor).
bool NeedsRFactor(const tir::Schedule& sch, const tir::BlockLocation& loc, int64_t max_parallel_extent,
                  int64_t max_parallel_basic);

// The block's loops reordered spatial first, then reduction (only when they
// are not already), and its reduction loops fused (TVM's
// ReorderAndFuseReductionLoops); returns the fused loop and sets
// *n_spatial. Used by AddRFactor and CrossThreadReduction.
tir::LoopRV ReorderAndFuseReductionLoops(const tir::Schedule& sch, const tir::BlockRV& block, size_t* n_spatial);

// Where a handle's block is (ScheduleError if it is gone).
tir::BlockLocation Locate(const tir::Schedule& sch, const tir::BlockRV& block);
bool IsRootBlock(const tir::Schedule& sch, const tir::BlockRV& block);

// TVM's AnalyzeReadWritePattern, the injective and ordered parts: each read
// index is a constant or `v (+/- c)` of a variable that alone indexes one
// write dimension. Unrecognized patterns (div/mod, products) count as neither.
void ReadWritePattern(const tir::BufferRegion& read, const tir::BufferRegion& write, bool* injective, bool* ordered);

}  // namespace meta_schedule
}  // namespace tessera
