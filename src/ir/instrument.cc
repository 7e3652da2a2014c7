// PassTimingInstrument (see instrument.h).
#include "ir/instrument.h"

#include <chrono>
#include <iomanip>
#include <memory>
#include <sstream>
#include <vector>

#include "runtime/registry.h"

namespace tessera {
namespace instrument {
namespace {

using Clock = std::chrono::steady_clock;

struct PassProfile {
  std::string name;
  Clock::time_point start;
  Clock::duration duration{0};
  std::vector<std::unique_ptr<PassProfile>> children;
};

struct ProfileState {
  PassProfile root;                // children: top-level passes
  std::vector<PassProfile*> open;  // passes started and not finished
  void Clear() {
    root.children.clear();
    open.clear();
  }
};

ProfileState& ThreadProfile() {
  thread_local ProfileState state;
  return state;
}

int64_t Micros(Clock::duration d) { return std::chrono::duration_cast<std::chrono::microseconds>(d).count(); }

void Render(const PassProfile& p, const PassProfile& parent, Clock::duration total, int depth, std::ostream& os) {
  Clock::duration children{0};
  for (const auto& c : p.children) children += c->duration;
  auto pct = [](Clock::duration a, Clock::duration b) {
    return b.count() > 0 ? 100.0 * static_cast<double>(a.count()) / static_cast<double>(b.count()) : 100.0;
  };
  os << std::string(2 * depth, ' ') << p.name << ": " << Micros(p.duration) << "us [" << Micros(p.duration - children)
     << "us] (" << std::fixed << std::setprecision(2) << pct(p.duration, total) << "%; "
     << pct(p.duration, parent.duration) << "%)\n";
  for (const auto& c : p.children) Render(*c, p, total, depth + 1, os);
}

}  // namespace

transform::PassInstrument PassTimingInstrument() {
  PackedFunc clear([](PackedArgs) -> Any {
    ThreadProfile().Clear();
    return Any();
  });
  PackedFunc before([](PackedArgs args) -> Any {
    ProfileState& s = ThreadProfile();
    PassProfile* parent = s.open.empty() ? &s.root : s.open.back();
    auto p = std::make_unique<PassProfile>();
    p->name = args[1].cast<transform::PassInfo>()->name;
    p->start = Clock::now();
    s.open.push_back(p.get());
    parent->children.push_back(std::move(p));
    return Any();
  });
  PackedFunc after([](PackedArgs args) -> Any {
    ProfileState& s = ThreadProfile();
    if (s.open.empty()) return Any();
    PassProfile* p = s.open.back();
    s.open.pop_back();
    p->duration = Clock::now() - p->start;
    return Any();
  });
  return transform::PassInstrument("PassTimingInstrument", clear, clear, PackedFunc(), before, after);
}

std::string RenderPassProfiles() {
  ProfileState& s = ThreadProfile();
  Clock::duration total{0};
  for (const auto& c : s.root.children) total += c->duration;
  PassProfile top;
  top.duration = total;
  std::ostringstream os;
  for (const auto& c : s.root.children) Render(*c, top, total, 0, os);
  return os.str();
}

TESSERA_REGISTER_GLOBAL("instrument.MakePassTimingInstrument").set_body_typed([]() { return PassTimingInstrument(); });
TESSERA_REGISTER_GLOBAL("instrument.RenderTimePassProfiles").set_body_typed([]() { return RenderPassProfiles(); });

}  // namespace instrument
}  // namespace tessera
