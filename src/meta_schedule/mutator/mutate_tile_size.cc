// MutateTileSize: picks one SamplePerfectTile decision of the trace and moves
// a divisor of one tile to another tile, so the product (the loop extent) is
// kept and the innermost tile stays within the instruction's
// max_innermost_factor. As TVM's MutateTileSize. MetaSchedule layer.
#include "meta_schedule/mutator/mutator.h"

namespace tessera {
namespace meta_schedule {

class MutateTileSizeNode : public MutatorNode {
 public:
  std::string Name() const override { return "MutateTileSize"; }

  std::optional<tir::Trace> Apply(const tir::Trace& trace, TRandState* rand_state) const override {
    struct Site {
      tir::Instruction inst;
      std::vector<int64_t> tiles;
      int64_t max_inner;
    };
    std::vector<Site> sites;
    for (const auto& [inst, decision] : trace->decisions) {
      if (inst->kind->name != "SamplePerfectTile") continue;
      auto arr = decision.try_cast<Array<Any>>();
      if (!arr || arr->size() < 2) continue;
      Site site{inst, {}, 0};
      bool splittable = false;
      for (size_t i = 0; i < arr->size(); ++i) {
        site.tiles.push_back(arr->at_any(i).cast<int64_t>());
        splittable |= site.tiles.back() > 1;
      }
      if (inst->attrs.size() > 1) site.max_inner = inst->attrs.at_any(1).cast<int64_t>();
      if (splittable) sites.push_back(std::move(site));
    }
    // Visit the sites in a random order until one admits a move.
    while (!sites.empty()) {
      size_t pick = static_cast<size_t>(RandInt(rand_state, 0, static_cast<int64_t>(sites.size())));
      Site site = sites[pick];
      sites.erase(sites.begin() + static_cast<std::ptrdiff_t>(pick));
      if (auto moved = Move(site.tiles, site.max_inner, rand_state)) {
        std::vector<Any> out(moved->begin(), moved->end());
        return trace.WithDecision(site.inst, Any(Array<Any>(out)));
      }
    }
    return std::nullopt;
  }

  TESSERA_DECLARE_FINAL_OBJECT_INFO(MutateTileSizeNode, MutatorNode, "meta_schedule.MutateTileSize");

 private:
  // Tiles with a divisor d > 1 of tiles[x] moved to tiles[y] (x != y), drawn as
  // TVM does: a source tile larger than 1, another tile, a divisor; a move
  // that would make the innermost tile exceed max_inner is redrawn.
  static std::optional<std::vector<int64_t>> Move(const std::vector<int64_t>& tiles, int64_t max_inner,
                                                  TRandState* rand_state) {
    const int64_t n = static_cast<int64_t>(tiles.size());
    std::vector<int64_t> sources;
    for (int64_t i = 0; i < n; ++i) {
      if (tiles[i] > 1) sources.push_back(i);
    }
    // Whether any move is legal at all (else the redraws below could not end).
    bool any = false;
    for (int64_t x : sources) {
      for (int64_t y = 0; y < n && !any; ++y) {
        if (y == x) continue;
        if (y != n - 1 || max_inner <= 0) { any = true; break; }
        for (int64_t d = 2; d <= tiles[x]; ++d) {
          if (tiles[x] % d == 0 && tiles[y] * d <= max_inner) { any = true; break; }
        }
      }
    }
    if (!any) return std::nullopt;
    for (;;) {
      int64_t x = sources[static_cast<size_t>(RandInt(rand_state, 0, static_cast<int64_t>(sources.size())))];
      int64_t y = RandInt(rand_state, 0, n - 1);
      if (y >= x) ++y;
      std::vector<int64_t> divisors;
      for (int64_t d = 2; d <= tiles[x]; ++d) {
        if (tiles[x] % d == 0) divisors.push_back(d);
      }
      int64_t d = divisors[static_cast<size_t>(RandInt(rand_state, 0, static_cast<int64_t>(divisors.size())))];
      std::vector<int64_t> out = tiles;
      out[x] /= d;
      out[y] *= d;
      if (max_inner > 0 && out[n - 1] > max_inner) continue;
      return out;
    }
  }
};

TESSERA_REGISTER_OBJECT_TYPE(MutateTileSizeNode);
TESSERA_REGISTER_MUTATOR("MutateTileSize").set_body_typed([]() {
  return Mutator(ObjectPtr<Object>(make_object<MutateTileSizeNode>()));
});

}  // namespace meta_schedule
}  // namespace tessera
