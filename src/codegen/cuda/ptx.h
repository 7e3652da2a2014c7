// Inline PTX for the tensor-core builtins of TIR (tir.ptx_mma, tir.ptx_ldmatrix)
// and the mma accumulator helpers (tir.mma_store, tir.mma_fill): each returns
// CUDA C statements given the operand expressions CodeGenCUDA printed. Shapes
// and types follow PTX's mma.sync m16n8k16 (fp16/bf16 inputs, fp32 or fp16
// accumulators). Codegen layer, used by codegen_cuda.cc only.
#pragma once

#include <string>

namespace tessera {
namespace codegen {

struct PTXMMAOperands {
  std::string shape, a_layout, b_layout, a_dtype, b_dtype, c_dtype;  // "m16n8k16", "row", "col", "fp16", ...
  std::string a, b, c;  // element pointers (`A + a_index`) of the fragments
  bool saturate = false;
};

// `asm volatile("mma.sync.aligned...")` accumulating into c. Raises NotImplementedError naming what is not
// supported (shapes other than m16n8k16, layouts other than row.col, other types).
std::string PTXMMA(const PTXMMAOperands& op);

// ldmatrix.sync.aligned.m8n8.x<num>[.trans].shared.b16 into the 32-bit registers at `local` from the shared
// address of `smem`. Raises NotImplementedError for num not in {1, 2, 4} or a type other than ".b16".
std::string PTXLdMatrix(bool trans, int num, const std::string& type, const std::string& local, const std::string& smem);

// Stores the m x n accumulator fragment (m16n8 tiles side by side; m*n/32 values per thread, row-major tiles)
// at `src` to `dst` (row stride `stride` elements), as `c_type` values.
std::string MMAStore(int m, int n, const std::string& c_type, const std::string& dst, const std::string& src,
                     const std::string& stride);

// Zeroes `size` accumulator values at `ptr`.
std::string MMAFill(int size, const std::string& c_type, const std::string& ptr);

}  // namespace codegen
}  // namespace tessera
