// The registry of function printers keyed by function node type (see
// script_printer.h): "tir.PrimFunc" registers itself; other dialects add
// theirs without touching the printer core.
#include <mutex>
#include <unordered_map>

#include "script/printer/script_printer.h"

namespace tessera {
namespace script {
namespace printer {

namespace {
std::mutex& RegistryMutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<std::string, FunctionPrinter>& FunctionPrinters() {
  static std::unordered_map<std::string, FunctionPrinter> printers;
  return printers;
}
}  // namespace

void RegisterFunctionPrinter(const std::string& type_key, FunctionPrinter printer) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  FunctionPrinters()[type_key] = std::move(printer);
}

std::optional<FunctionPrinter> FindFunctionPrinter(const std::string& type_key) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = FunctionPrinters().find(type_key);
  if (it == FunctionPrinters().end()) return std::nullopt;
  return it->second;
}

}  // namespace printer
}  // namespace script
}  // namespace tessera
