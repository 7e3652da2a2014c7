// The CPU host part of C code generation (see codegen_c_host.h).
#include "codegen/source/codegen_c_host.h"

#include <algorithm>
#include <cctype>

#include "codegen/parallel_task.h"
#include "codegen/split_host_device.h"
#include "tir/transform/make_packed_api.h"

namespace tessera {
namespace codegen {

using namespace tir;  // NOLINT

CodeGenCHost::CodeGenCHost(const Target& target) : CodeGenC(target) {}

void CodeGenCHost::PrintPrelude(std::ostream& os) {
  CodeGenC::PrintPrelude(os);
  // The runtime's entry points (runtime/kernel_abi.h, runtime/interrupt.h).
  os << "extern void TesseraSetLastError(const char* msg);\n"
     << "extern void TesseraSetIndexError(const char* what, int64_t index, int64_t extent);\n"
     << "extern int32_t TesseraParallelFor(int32_t (*task)(int32_t, void*), void* data, int32_t num_tasks);\n"
     << "extern void* TesseraWorkspaceAlloc(int64_t nbytes);\n"
     << "extern void TesseraWorkspaceFree(void* ptr);\n"
     << "extern volatile int TesseraInterruptRequested;\n"
     << "extern int32_t TesseraLaunchKernel(const char* name, int64_t gx, int64_t gy, int64_t gz, int64_t bx,\n"
     << "                                   int64_t by, int64_t bz, int64_t dyn_shmem, void** args, int32_t nargs);\n\n";
}

FunctionInfo CodeGenCHost::AddFunction(const std::string& name, const PrimFunc& func) {
  BeginFunction(name);
  std::string ident;
  for (char ch : KernelSymbol(name)) ident += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  c_name_ = ident;
  for (int k = 1; !function_names_.insert(c_name_).second; ++k) c_name_ = ident + "_" + std::to_string(k);
  bool noalias = false;
  if (auto a = func->attrs.Get("tir.noalias")) noalias = a->try_cast<bool>().value_or(false);
  PackedAPI api = GetPackedAPI(name, func);  // recorded by tir.transform.MakePackedAPI
  const FunctionInfo& info = api.info;
  std::ostringstream body;
  stream_ = &body;
  // Unpack each slot of the kernel ABI into a typed local.
  for (size_t i = 0; i < func->params.size(); ++i) {
    const std::string slot = "args[" + std::to_string(i) + "]";
    if (const Buffer& buf = api.buffers[i]; buf.defined()) {
      CheckBufferDtype(buf->name, buf->dtype);
      std::string st = StorageType(buf->dtype);
      std::string var = FreshName(info.params[i].name);
      std::string ptr = info.params[i].alignment > 1  // the call guarantees it (kernel_abi.cc)
                            ? "__builtin_assume_aligned(" + slot + ", " + std::to_string(info.params[i].alignment) + ")"
                            : slot;
      Line(st + "* " + (noalias ? "restrict " : "") + var + " = (" + st + "*)" + ptr + ";");
      buffers_[buf->data.get()] = BufferInfo{var, buf->dtype};
      continue;
    }
    const Var& param = func->params[i];
    DataType t = param.dtype();
    std::string value = t.is_float() || t.is_bfloat16() ? "*(double*)" + slot : "*(int64_t*)" + slot;
    Line(ValueType(t) + " " + BindVar(param) + " = " + Cast(value, t.is_float() || t.is_bfloat16() ? DataType::Float(64)
                                                                                                      : DataType::Int(64), t) +
         ";");
  }
  for (size_t k = 0; k < api.sym_vars.size(); ++k) {
    const Var& v = api.sym_vars[k];
    std::string slot = "*(int64_t*)args[" + std::to_string(func->params.size() + k) + "]";
    Line(ValueType(v.dtype()) + " " + BindVar(v) + " = " + Cast(slot, DataType::Int(64), v.dtype()) + ";");
  }
  VisitStmt(func->body);
  Line("return 0;");
  // The exported symbol is KernelSymbol(name) even when `name` is no C
  // identifier ("f.x"): the C name carries it as an assembler label.
  const std::string symbol = KernelSymbol(name);
  std::string prototype = "int32_t " + c_name_ + "(void** args)";
  if (c_name_ != symbol) AddDeclaration(prototype + " __asm__(" + Quote(symbol) + ");");
  AddDeclaration(prototype + " {\n" + body.str() + "}\n");
  stream_ = nullptr;
  return info;
}

void CodeGenCHost::EmitParallelFor(const ForNode* op) {
  // The loop body becomes `static int32_t task(int32_t index, void* closure)`
  // reading the values it uses from a closure struct the caller fills.
  std::vector<const VarNode*> captured =
      ParallelTaskCaptures(op, bound_check_, [&](const VarNode* v) { return var_names_.count(v) > 0; });
  const std::string task = c_name_ + "_parallel_" + std::to_string(task_counter_++);
  std::string fields;    // struct members
  std::string values;    // the initializer
  std::string unpack;    // locals of the task
  for (const VarNode* v : captured) {
    std::string type;
    std::string cname;
    if (auto b = buffers_.find(v); b != buffers_.end()) {
      type = StorageType(b->second.dtype) + "*";
      cname = b->second.name;
    } else {
      cname = LookupVar(v);
      type = ValueType(v->dtype);
    }
    fields += "  " + type + " " + cname + ";\n";
    values += (values.empty() ? "" : ", ") + cname;
    unpack += "  " + type + " " + cname + " = _c->" + cname + ";\n";
  }
  if (fields.empty()) fields = "  int unused;\n", values = "0";
  std::string extent = VisitExpr(op->extent);
  std::string closure = FreshName("closure");
  std::string rc = FreshName("rc");
  Line("{");
  ++indent_;
  Line("struct " + task + "_closure " + closure + " = {" + values + "};");
  Line("int32_t " + rc + " = TesseraParallelFor(" + task + ", &" + closure + ", (int32_t)(" + extent + "));");
  std::string frees;
  for (auto it = live_workspaces_.rbegin(); it != live_workspaces_.rend(); ++it) frees += WorkspaceFree(*it) + " ";
  Line("if (" + rc + " != 0) { " + frees + "return " + rc + "; }");
  --indent_;
  Line("}");

  // The task, emitted before the enclosing function.
  std::ostream* saved_stream = stream_;
  int saved_indent = indent_;
  auto saved_workspaces = std::move(live_workspaces_);  // the task frees none of the caller's
  live_workspaces_.clear();
  std::ostringstream task_body;
  stream_ = &task_body;
  indent_ = 1;
  std::string index = FreshName("task");
  std::string type = ValueType(op->loop_var.dtype());
  std::string min = VisitExpr(op->min);
  Line(type + " " + BindVar(op->loop_var) + " = " + min + " + (" + type + ")" + index + ";");
  VisitStmt(op->body);
  Line("return 0;");
  var_names_.erase(op->loop_var.get());
  stream_ = saved_stream;
  indent_ = saved_indent;
  live_workspaces_ = std::move(saved_workspaces);
  AddDeclaration("struct " + task + "_closure {\n" + fields + "};\n" + "static int32_t " + task + "(int32_t " + index +
                 ", void* _closure) {\n  struct " + task + "_closure* _c = (struct " + task + "_closure*)_closure;\n" +
                 unpack + task_body.str() + "}\n");
}

void CodeGenCHost::VisitStmt_(const EvaluateNode* op) {
  const auto* call = op->value.as<CallNode>();
  if (call == nullptr || !IsLaunchKernel(call)) return CodeGenC::VisitStmt_(op);
  // tessera_launch_kernel(name, gx, gy, gz, bx, by, bz, dyn_shmem, args...):
  // each argument's value in a local whose address the launch takes.
  LaunchKernelCall launch = ParseLaunchKernel(call, func_name_);
  Line("{");
  ++indent_;
  std::string slots;
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const PrimExpr& a = launch.args[i];
    std::string type;
    std::string value;
    if (const auto* v = a.as<VarNode>(); v != nullptr && buffers_.count(v)) {
      type = "void*";
      value = "(void*)" + buffers_.at(v).name;
    } else if (a.dtype().is_handle()) {
      type = "void*";
      value = VisitExpr(a);
    } else {  // the kernel reads the value as it is stored (bfloat16 as 16 bits, bool as a byte)
      type = StorageType(a.dtype());
      value = ToStorage(VisitExpr(a), a.dtype());
    }
    std::string local = FreshName("karg");
    Line(type + " " + local + " = " + value + ";");
    slots += (slots.empty() ? "&" : ", &") + local;
  }
  std::string args = FreshName("kargs");
  Line("void* " + args + "[] = {" + (slots.empty() ? "0" : slots) + "};");
  std::string dims;
  for (const PrimExpr& e : launch.dims) dims += "(int64_t)(" + VisitExpr(e) + "), ";
  std::string rc = FreshName("rc");
  Line("int32_t " + rc + " = TesseraLaunchKernel(" + Quote(launch.kernel) + ", " + dims + args + ", " +
       std::to_string(launch.args.size()) + ");");
  std::string frees;
  for (auto it = live_workspaces_.rbegin(); it != live_workspaces_.rend(); ++it) frees += WorkspaceFree(*it) + " ";
  Line("if (" + rc + " != 0) { " + frees + "return " + rc + "; }");
  --indent_;
  Line("}");
}

std::string CodeGenCHost::WorkspaceAlloc(const std::string& bytes) { return "TesseraWorkspaceAlloc(" + bytes + ")"; }

std::string CodeGenCHost::WorkspaceFree(const std::string& ptr) { return "TesseraWorkspaceFree(" + ptr + ");"; }

std::string CodeGenCHost::FreeLiveWorkspaces() {
  std::string out;
  for (auto it = live_workspaces_.rbegin(); it != live_workspaces_.rend(); ++it) out += WorkspaceFree(*it) + " ";
  return out;
}

std::string CodeGenCHost::RaiseStmt(const std::string& message) {
  // Kernels return nonzero after recording the message (runtime/kernel_abi.h).
  return "{ TesseraSetLastError(" + Quote(message) + "); " + FreeLiveWorkspaces() + "return -1; }";
}

std::string CodeGenCHost::RaiseIndexStmt(const std::string& what, const std::string& index, const std::string& extent) {
  return "{ TesseraSetIndexError(" + Quote(what) + ", " + index + ", " + extent + "); " + FreeLiveWorkspaces() +
         "return -1; }";
}

void CodeGenCHost::EmitWhileBackEdgeCheck() {
  Line("if (TesseraInterruptRequested) " +
       RaiseStmt("KeyboardInterrupt: a while loop of function " + func_name_ + " was interrupted"));
}

}  // namespace codegen
}  // namespace tessera
