// Ctrl-C during a kernel call. While a kernel runs (InterruptScope alive in
// some thread), SIGINT sets the flag TesseraInterruptRequested instead of
// running the process's handler; generated code polls it on the back-edges
// of while loops and stops with "KeyboardInterrupt: ...", and the call
// raises KeyboardInterrupt (also when the kernel finished despite the
// signal). Runtime layer; used by kernel_abi.cc, read by codegen_cpu.cc.
#pragma once

#include <csignal>

extern "C" {
// Nonzero once SIGINT arrived during a kernel call (polled by kernels).
extern volatile sig_atomic_t TesseraInterruptRequested;
}

namespace tessera {

// Installs the SIGINT handler for the duration of a kernel call (the first
// of concurrent calls installs it, the last restores the previous handler;
// an ignored SIGINT stays ignored). Outside any call SIGINT is the process's.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  // Whether SIGINT arrived since the outermost scope began.
  static bool Requested() { return TesseraInterruptRequested != 0; }
};

}  // namespace tessera
