// The SIGINT handler installed during kernel calls (see interrupt.h).
#include "runtime/interrupt.h"

#include <mutex>

extern "C" {
volatile sig_atomic_t TesseraInterruptRequested = 0;
}

namespace tessera {

namespace {

std::mutex scope_mutex;
int active_scopes = 0;   // guarded by scope_mutex
bool installed = false;  // guarded by scope_mutex
struct sigaction previous_action;

void OnInterrupt(int) { TesseraInterruptRequested = 1; }

}  // namespace

InterruptScope::InterruptScope() {
  std::lock_guard<std::mutex> lock(scope_mutex);
  if (active_scopes++ > 0) return;
  TesseraInterruptRequested = 0;
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) return;
  struct sigaction ours {};
  ours.sa_handler = OnInterrupt;
  sigemptyset(&ours.sa_mask);
  installed = sigaction(SIGINT, &ours, &previous_action) == 0;
}

InterruptScope::~InterruptScope() {
  std::lock_guard<std::mutex> lock(scope_mutex);
  if (--active_scopes > 0) return;
  if (installed) sigaction(SIGINT, &previous_action, nullptr);
  installed = false;
}

}  // namespace tessera
