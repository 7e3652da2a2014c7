// sample_partitioned_tile (TVM's): samples n perfect tile factors of a loop
// whose inner part (the factors from partition_pos on) multiplies to a
// multiple of innerpart_factor; a recorded decision is replayed, repaired as
// TVM does when the loop's extent changed. Its instruction kind
// ("SamplePartitionedTile", pure, with the decision), the Schedule method and
// the FFI entry. TIR schedule layer.
#include <string>
#include <vector>

#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

const char* kPrim = "sample_partitioned_tile";

int64_t InnerProduct(const std::vector<int64_t>& tile, int64_t pos) {
  int64_t prod = 1;
  for (size_t i = pos; i < tile.size(); ++i) prod *= tile[i];
  return prod;
}

// A perfect tiling drawn by sending each prime factor of `extent` to a random slot.
std::vector<int64_t> RandomPerfectTile(const Schedule& sch, int64_t extent, int64_t n) {
  std::vector<int64_t> tile(n, 1);
  int64_t rest = extent;
  for (int64_t p = 2; p * p <= rest; ++p) {
    while (rest % p == 0) {
      tile[sch.NextRandom() % n] *= p;
      rest /= p;
    }
  }
  if (rest > 1) tile[sch.NextRandom() % n] *= rest;
  return tile;
}

Array<Var> SamplePartitionedTile(const Schedule& sch, const LoopRV& loop, int64_t n, int64_t partition_pos,
                                 int64_t innerpart_factor, const std::optional<Array<Any>>& decision) {
  LoopLocation loc = sch.LocateLoop(loop, kPrim);
  PrimFunc f = sch.FuncOf(sch->loops.at(loop.get()).func);
  const std::string lname = "loop " + loc.loop->loop_var->name_hint;
  if (n < 2 || n > 64) ThrowScheduleError(kPrim, "n must be in [2, 64], got " + std::to_string(n), f);
  if (partition_pos < 0 || partition_pos >= n) {
    ThrowScheduleError(kPrim, "partition_pos " + std::to_string(partition_pos) + " is out of range [0, " +
                                  std::to_string(n) + ")",
                       f);
  }
  if (innerpart_factor < 1) {
    ThrowScheduleError(kPrim, "innerpart_factor must be positive, got " + std::to_string(innerpart_factor), f);
  }
  const int64_t* ext = AsConstInt(loc.loop->extent);
  // (TVM returns [-1, 1, ...] here, which split cannot use; Tessera refuses.)
  if (ext == nullptr) ThrowScheduleError(kPrim, lname + " has a symbolic extent", f, {loc.loop});
  const int64_t extent = *ext;
  if (extent < 1) ThrowScheduleError(kPrim, lname + "'s extent is not positive", f, {loc.loop});
  if (extent % innerpart_factor != 0) {
    ThrowScheduleError(kPrim, "innerpart_factor " + std::to_string(innerpart_factor) + " does not divide the extent " +
                                  std::to_string(extent) + " of " + lname,
                       f, {loc.loop});
  }
  // The fallback: (extent / f, 1, ..., f at partition_pos, ..., 1).
  auto trivial = [&]() {
    std::vector<int64_t> t(n, 1);
    t[0] = extent / innerpart_factor;
    t[partition_pos] *= innerpart_factor;
    return t;
  };
  std::vector<int64_t> result;
  if (decision && !decision->empty()) {
    for (const Any& a : decision->to_vector()) {
      const auto* imm = a.as<IntImmNode>();
      result.push_back(imm ? imm->value : a.cast<int64_t>());
      TESSERA_CHECK_OR_THROW(result.back() >= 1, ValueError)
          << kPrim << ": decision factor " << result.back() << " is not positive";
    }
    TESSERA_CHECK_OR_THROW(static_cast<int64_t>(result.size()) == n, ValueError)
        << kPrim << ": the decision has " << result.size() << " factors, n is " << n;
    if (InnerProduct(result, partition_pos) % innerpart_factor != 0) {
      result = trivial();
    } else {  // keep the decision, repaired into a perfect tiling from the inside out
      int64_t len = extent;
      for (int64_t i = n - 1; i > 0; --i) {
        if (len % result[i] != 0) result[i] = len;
        len /= result[i];
      }
      result[0] = len;
      if (InnerProduct(result, partition_pos) % innerpart_factor != 0) result = trivial();
    }
  } else {
    result = trivial();
    for (int attempt = 0; attempt < 256; ++attempt) {
      std::vector<int64_t> t = RandomPerfectTile(sch, extent, n);
      if (InnerProduct(t, partition_pos) % innerpart_factor == 0) {
        result = t;
        break;
      }
    }
  }
  std::vector<Var> vars;
  std::vector<Any> outs, dec;
  for (int64_t v : result) {
    Var rv("v", DataType::Int(64));
    sch.self()->values[rv.get()] = v;
    vars.push_back(rv);
    outs.push_back(rv);
    dec.push_back(v);
  }
  sch.Record("SamplePartitionedTile", {loop}, {n, partition_pos, innerpart_factor}, Array<Any>(outs),
             Any(Array<Any>(dec)));
  return Array<Var>(vars);
}

}  // namespace

TESSERA_REGISTER_INST_KIND("SamplePartitionedTile")
    .set_is_pure(true)
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision& d) {
      return AsOutputs(SamplePartitionedTile(sch, in.at_any(0).cast<LoopRV>(), attrs.at_any(0).cast<int64_t>(),
                                             attrs.at_any(1).cast<int64_t>(), attrs.at_any(2).cast<int64_t>(),
                                             d ? std::optional<Array<Any>>(d->cast<Array<Any>>()) : std::nullopt));
    })
    .set_as_python(PythonCall("sample_partitioned_tile", {"loop"}, {"n", "partition_pos", "innerpart_factor"},
                              /*returns_list=*/true));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SamplePartitionedTile")
    .set_body_typed([](Schedule s, LoopRV l, int64_t n, int64_t pos, int64_t factor,
                       std::optional<Array<Any>> decision) { return SamplePartitionedTile(s, l, n, pos, factor, decision); });

}  // namespace tir
}  // namespace tessera
