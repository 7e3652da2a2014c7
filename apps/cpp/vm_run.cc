// Deployment without the compiler: loads a library exported from a VM
// executable (apps/cpp/vm_export.cc, or Executable.export_library in
// Python) with libtessera_runtime alone, runs "main" on an input and checks
// the result, shows that a bad input raises, and times the VM's dispatch of
// a no-op function. Usage: vm_run LIB.so
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/registry.h"

using namespace tessera;  // NOLINT

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: vm_run LIB.so\n";
    return 2;
  }
  try {
    Module exec = LoadModuleFromFile(argv[1]);
    Module vm = Registry::GetOrThrow("vm.CreateVirtualMachine")(exec, CPU()).cast<Module>();
    PackedFunc main_fn = vm.GetFunctionOrThrow("main");

    std::vector<float> x(16), y(16);
    for (int i = 0; i < 16; ++i) x[i] = 0.5f * static_cast<float>(i) - 3.0f;
    NDArray input = NDArray::Empty({16}, DataType::Float(32), CPU());
    input.CopyFromBytes(x.data(), x.size() * sizeof(float));
    NDArray out = main_fn(input).cast<NDArray>();
    out.CopyToBytes(y.data(), y.size() * sizeof(float));
    for (int i = 0; i < 16; ++i) {
      if (std::fabs(y[i] - (2 * x[i] + 1)) > 1e-6f) {
        std::cerr << "wrong result at " << i << ": " << y[i] << " != " << 2 * x[i] + 1 << "\n";
        return 1;
      }
    }
    std::cout << "main(x) = 2 * x + 1: ok (y[3] = " << y[3] << ")\n";

    try {
      main_fn(NDArray::Empty({15}, DataType::Float(32), CPU()));
      std::cerr << "a wrong shape was accepted\n";
      return 1;
    } catch (const ValueError& e) {
      std::cout << "bad input refused: " << e.what() << "\n";
    }

    PackedFunc noop = vm.GetFunctionOrThrow("noop");
    Any arg(input);
    const int n = 1000000;
    for (int i = 0; i < 1000; ++i) noop.CallPacked(PackedArgs(&arg, 1));
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) noop.CallPacked(PackedArgs(&arg, 1));
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / n;
    auto start2 = std::chrono::steady_clock::now();
    for (int i = 0; i < n / 10; ++i) main_fn.CallPacked(PackedArgs(&arg, 1));
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start2).count() / (n / 10);
    std::printf("VM dispatch (no-op function, from C++): %.1f ns per call; main (checks + kernel): %.3f us per call\n", ns, us);
  } catch (const std::exception& e) {
    std::cerr << "vm_run failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
