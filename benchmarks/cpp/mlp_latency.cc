// The MLP benchmark's C++ side (benchmarks/mlp.py runs it): loads a library
// exported from a relax.build executable (main(x: [1, 784]) -> [1, 10], the
// weights bound), with libtessera_runtime only, runs main on the input read
// from a raw float32 file, writes the logits to a raw file (checked by the
// Python side against NumPy) and prints the per-call latency of main from C++.
// Usage: mlp_latency LIB.so INPUT.f32 OUTPUT.f32 [CALLS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/registry.h"

using namespace tessera;  // NOLINT

namespace {

std::vector<float> ReadFloats(const std::string& path, size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::vector<float> v(count);
  if (!in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(float)))) {
    throw std::runtime_error(path + ": expected " + std::to_string(count) + " float32 values");
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::cerr << "usage: mlp_latency LIB.so INPUT.f32 OUTPUT.f32 [CALLS]\n";
    return 2;
  }
  try {
    const int calls = argc == 5 ? std::stoi(argv[4]) : 20000;
    if (calls <= 0) throw std::invalid_argument("CALLS must be positive, got " + std::to_string(calls));
    Module exec = LoadModuleFromFile(argv[1]);
    Module vm = Registry::GetOrThrow("vm.CreateVirtualMachine")(exec, CPU()).cast<Module>();
    PackedFunc main_fn = vm.GetFunctionOrThrow("main");

    std::vector<float> x = ReadFloats(argv[2], 784);
    NDArray input = NDArray::Empty({1, 784}, DataType::Float(32), CPU());
    input.CopyFromBytes(x.data(), x.size() * sizeof(float));
    NDArray out = main_fn(input).cast<NDArray>();
    std::vector<float> y(10);
    out.CopyToBytes(y.data(), y.size() * sizeof(float));
    std::ofstream(argv[3], std::ios::binary).write(reinterpret_cast<const char*>(y.data()), y.size() * sizeof(float));

    // Rounds of `calls / 10` calls each; the median round is reported.
    Any arg(input);
    const int per_round = std::max(1, calls / 10);
    for (int i = 0; i < per_round; ++i) main_fn.CallPacked(PackedArgs(&arg, 1));
    std::vector<double> rounds;
    for (int r = 0; r < 10; ++r) {
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < per_round; ++i) main_fn.CallPacked(PackedArgs(&arg, 1));
      rounds.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                       per_round);
    }
    std::sort(rounds.begin(), rounds.end());
    std::printf("main(x) from C++: %.3f us per call (median of 10 rounds of %d)\n", rounds[5], per_round);
  } catch (const std::exception& e) {
    std::cerr << "mlp_latency failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
