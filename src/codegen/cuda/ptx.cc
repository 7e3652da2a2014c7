// Inline PTX text for the tensor-core builtins (see ptx.h).
#include "codegen/cuda/ptx.h"

#include <sstream>

#include "runtime/error.h"

namespace tessera {
namespace codegen {
namespace {

std::string PTXType(const std::string& t) {
  if (t == "fp16" || t == "float16") return "f16";
  if (t == "bf16" || t == "bfloat16") return "bf16";
  if (t == "fp32" || t == "float32") return "f32";
  TESSERA_THROW(NotImplementedError) << "ptx_mma: operand type \"" << t << "\" is not supported (fp16, bf16, fp32)";
}

// "{%first, ..., %(first+n-1)}"
std::string Regs(int first, int n) {
  std::string out = "{";
  for (int i = 0; i < n; ++i) out += (i ? ", %" : "%") + std::to_string(first + i);
  return out + "}";
}

}  // namespace

std::string PTXMMA(const PTXMMAOperands& op) {
  TESSERA_CHECK_OR_THROW(op.shape == "m16n8k16", NotImplementedError)
      << "ptx_mma: shape " << op.shape << " is not supported (m16n8k16)";
  TESSERA_CHECK_OR_THROW(op.a_layout == "row" && op.b_layout == "col", NotImplementedError)
      << "ptx_mma: layouts " << op.a_layout << "." << op.b_layout << " are not supported (m16n8k16 takes row.col)";
  std::string at = PTXType(op.a_dtype), bt = PTXType(op.b_dtype), ct = PTXType(op.c_dtype);
  TESSERA_CHECK_OR_THROW(at == bt && at != "f32", NotImplementedError)
      << "ptx_mma: A and B must both be fp16 or both bf16, got " << op.a_dtype << " and " << op.b_dtype;
  TESSERA_CHECK_OR_THROW(ct == "f32" || (ct == "f16" && at == "f16"), NotImplementedError)
      << "ptx_mma: accumulator " << op.c_dtype << " with " << op.a_dtype << " inputs is not supported";
  // Per thread: A 4 x b32, B 2 x b32, C/D 4 x f32 (or 2 x b32 of f16 pairs).
  const bool f32acc = ct == "f32";
  const int nc = f32acc ? 4 : 2;
  std::ostringstream os;
  os << "{\n"
     << "  unsigned* tsr_a = (unsigned*)(" << op.a << ");\n"
     << "  unsigned* tsr_b = (unsigned*)(" << op.b << ");\n"
     << "  " << (f32acc ? "float" : "unsigned") << "* tsr_c = (" << (f32acc ? "float" : "unsigned") << "*)(" << op.c
     << ");\n"
     << "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col" << (op.saturate && f32acc ? ".satfinite" : "") << "." << ct
     << "." << at << "." << bt << "." << ct << " " << Regs(0, nc) << ", " << Regs(nc, 4) << ", " << Regs(nc + 4, 2)
     << ", " << Regs(0, nc) << ";\\n\"\n    : ";
  for (int i = 0; i < nc; ++i) os << (i ? ", " : "") << "\"+" << (f32acc ? "f" : "r") << "\"(tsr_c[" << i << "])";
  os << "\n    : ";
  for (int i = 0; i < 4; ++i) os << (i ? ", " : "") << "\"r\"(tsr_a[" << i << "])";
  for (int i = 0; i < 2; ++i) os << ", \"r\"(tsr_b[" << i << "])";
  os << ");\n}";
  return os.str();
}

std::string PTXLdMatrix(bool trans, int num, const std::string& type, const std::string& local, const std::string& smem) {
  TESSERA_CHECK_OR_THROW(num == 1 || num == 2 || num == 4, NotImplementedError)
      << "ptx_ldmatrix: " << num << " matrices (ldmatrix loads 1, 2 or 4)";
  TESSERA_CHECK_OR_THROW(type == ".b16", NotImplementedError) << "ptx_ldmatrix: type " << type << " (only .b16)";
  std::ostringstream os;
  os << "{\n"
     << "  unsigned tsr_addr = (unsigned)__cvta_generic_to_shared((const void*)(" << smem << "));\n"
     << "  unsigned* tsr_r = (unsigned*)(" << local << ");\n"
     << "  asm volatile(\"ldmatrix.sync.aligned.m8n8.x" << num << (trans ? ".trans" : "") << ".shared.b16 "
     << Regs(0, num) << ", [%" << num << "];\\n\"\n    : ";
  for (int i = 0; i < num; ++i) os << (i ? ", " : "") << "\"=r\"(tsr_r[" << i << "])";
  os << "\n    : \"r\"(tsr_addr));\n}";
  return os.str();
}

std::string MMAStore(int m, int n, const std::string& c_type, const std::string& dst, const std::string& src,
                     const std::string& stride) {
  TESSERA_CHECK_OR_THROW(m == 16 && n > 0 && n % 8 == 0, NotImplementedError)
      << "mma_store: a " << m << "x" << n << " accumulator (m16 by a multiple of n8)";
  // m16n8 accumulator layout: value r (0..3) of a tile sits at row lane/4 + 8*(r/2), column 2*(lane%4) + r%2.
  std::ostringstream os;
  os << "{\n"
     << "  unsigned tsr_lane;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(tsr_lane));\n"
     << "  " << c_type << "* tsr_dst = (" << c_type << "*)(" << dst << ");\n"
     << "  " << c_type << "* tsr_src = (" << c_type << "*)(" << src << ");\n"
     << "  for (int tsr_i = 0; tsr_i < " << m * n / 32 << "; ++tsr_i) {\n"
     << "    int tsr_row = (int)(tsr_lane / 4) + 8 * ((tsr_i % 4) / 2);\n"
     << "    int tsr_col = 8 * (tsr_i / 4) + 2 * (int)(tsr_lane % 4) + tsr_i % 2;\n"
     << "    tsr_dst[tsr_row * (" << stride << ") + tsr_col] = tsr_src[tsr_i];\n"
     << "  }\n}";
  return os.str();
}

std::string MMAFill(int size, const std::string& c_type, const std::string& ptr) {
  std::ostringstream os;
  os << "{\n  " << c_type << "* tsr_p = (" << c_type << "*)(" << ptr << ");\n"
     << "  for (int tsr_i = 0; tsr_i < " << size << "; ++tsr_i) tsr_p[tsr_i] = (" << c_type << ")0;\n}";
  return os.str();
}

}  // namespace codegen
}  // namespace tessera
