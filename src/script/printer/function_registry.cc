// The registry of function printers keyed by function node type (see
// script_printer.h): "tir.PrimFunc" registers itself; other dialects add
// theirs without touching the printer core; likewise printers of other
// nodes (fragments) such as Relax expressions.
#include <mutex>
#include <unordered_map>
#include <vector>

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
std::vector<FragmentPrinter>& FragmentPrinters() {
  static std::vector<FragmentPrinter> printers;
  return printers;
}
}  // namespace

void RegisterFragmentPrinter(FragmentPrinter printer) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  FragmentPrinters().push_back(std::move(printer));
}

std::optional<std::string> PrintRegisteredFragment(const ObjectRef& node, PrinterContext* ctx) {
  std::vector<FragmentPrinter> printers;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    printers = FragmentPrinters();
  }
  for (const FragmentPrinter& p : printers) {
    if (std::optional<std::string> text = p(node, ctx)) return text;
  }
  return std::nullopt;
}

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
