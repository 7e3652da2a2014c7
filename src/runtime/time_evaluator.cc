// Timing of a function (rt_mod.time_evaluator): runs it `number` times per
// repeat, `repeat` times, growing `number` until a repeat lasts at least
// min_repeat_ms; returns the seconds per call of each repeat, timed with the
// device's events where it has them (CUDA), else the host clock around a
// device synchronization. Runtime layer.
#include <chrono>

#include "runtime/array.h"
#include "runtime/device_api.h"
#include "runtime/registry.h"

namespace tessera {
namespace {

Array<double> TimeFunction(PackedFunc f, PackedArgs args, Device dev, int number, int repeat, int min_repeat_ms) {
  TESSERA_CHECK_OR_THROW(number >= 1 && repeat >= 1, ValueError)
      << "time_evaluator needs number >= 1 and repeat >= 1 (got number=" << number << ", repeat=" << repeat << ")";
  DeviceAPI* api = DeviceAPI::Get(dev);
  f.CallPacked(args);  // warm-up (first-call costs are not measured)
  api->Sync(dev);
  std::vector<double> results;
  for (int r = 0; r < repeat; ++r) {
    double seconds = 0;
    for (;;) {
      auto run = [&]() {
        for (int i = 0; i < number; ++i) f.CallPacked(args);
      };
      // On the device's own clock when it has one (CUDA events), else the host's around a Sync.
      if (std::optional<double> on_device = api->TimeOnDevice(dev, run)) {
        seconds = *on_device;
      } else {
        auto start = std::chrono::steady_clock::now();
        run();
        api->Sync(dev);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      if (seconds * 1000.0 >= min_repeat_ms || min_repeat_ms <= 0) break;
      double scale = seconds > 0 ? (min_repeat_ms / 1000.0) / seconds * 1.618 : 10.0;
      number = static_cast<int>(std::min(1e9, std::max(number * scale, number + 1.0)));
    }
    results.push_back(seconds / number);
  }
  return Array<double>(results);
}

// runtime.TimeEvaluate(f, dev, number, repeat, min_repeat_ms, *args)
TESSERA_REGISTER_GLOBAL("runtime.TimeEvaluate").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() >= 5, TypeError) << "runtime.TimeEvaluate(f, dev, number, repeat, min_repeat_ms, *args)";
  return TimeFunction(args[0].cast<PackedFunc>(), PackedArgs(args.data() + 5, args.size() - 5),
                      args[1].cast<Device>(), args[2].cast<int>(), args[3].cast<int>(), args[4].cast<int>());
});

}  // namespace
}  // namespace tessera
