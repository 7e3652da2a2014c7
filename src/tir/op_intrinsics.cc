// Intrinsic ops of TVM's TIR that Tessera represents and prints but does not
// lower itself (tensor cores, PTX, packed-call ABI, profiling, assumptions):
// one registration each, TIR layer beside op.cc. Two attributes tell the
// TVMScript parser and printer how to write a call:
//   TScriptDtypeFirst  (int 1): the script form takes the result dtype first
//                               (T.ptx_ldmatrix("float16", ...)), or as dtype=;
//   TScriptResultDtype (string): the dtype of every call (T.tvm_mma_sync(...) is
//                               a handle), so the script form does not carry it;
//   TScriptResultArg   (int i):  the dtype of operand i (T.tvm_warp_shuffle(mask, v, ...)).
// Ops with neither attribute take the dtype of their first operand.
#include "ir/op.h"

namespace tessera {
namespace tir {

namespace {
constexpr const char* kDtypeFirst = "TScriptDtypeFirst";
constexpr const char* kResult = "TScriptResultDtype";
}  // namespace

// ---- tensor cores (wmma fragments) ------------------------------------------------
TESSERA_REGISTER_OP("tir.tvm_fill_fragment").set_num_inputs(6).set_attr(kResult, String("handle"))
    .describe("(fragment, m, n, k, index, value): fill a wmma fragment");
TESSERA_REGISTER_OP("tir.tvm_load_matrix_sync").set_num_inputs(8).set_attr(kResult, String("handle"))
    .describe("(fragment, m, n, k, index, buffer_ptr, stride, layout): load a wmma fragment");
TESSERA_REGISTER_OP("tir.tvm_store_matrix_sync").set_num_inputs(8).set_attr(kResult, String("handle"))
    .describe("(fragment, m, n, k, index, buffer_ptr, stride, layout): store a wmma fragment");
TESSERA_REGISTER_OP("tir.tvm_mma_sync").set_num_inputs(8).set_attr(kResult, String("handle"))
    .describe("(d, d_index, a, a_index, b, b_index, c, c_index): d = a * b + c on wmma fragments");
TESSERA_REGISTER_OP("tir.tvm_bmma_sync").set_num_inputs(8).set_attr(kResult, String("handle"))
    .describe("binary tvm_mma_sync");

// ---- PTX ----------------------------------------------------------------------------
TESSERA_REGISTER_OP("tir.ptx_mma").set_num_inputs(-1).set_attr(kDtypeFirst, int64_t{1})
    .describe("PTX mma.sync (shape, layouts, dtypes, operand pointers and offsets)");
TESSERA_REGISTER_OP("tir.ptx_mma_sp").set_num_inputs(-1).set_attr(kDtypeFirst, int64_t{1})
    .describe("PTX sparse mma.sp");
TESSERA_REGISTER_OP("tir.ptx_ldmatrix").set_num_inputs(7).set_attr(kDtypeFirst, int64_t{1})
    .describe("(trans, num, type, local_ptr, local_offset, smem_ptr, smem_offset): PTX ldmatrix");
TESSERA_REGISTER_OP("tir.ptx_cp_async").set_num_inputs(-1).set_attr(kDtypeFirst, int64_t{1})
    .describe("(dst, dst_offset, src, src_offset, bytes[, predicate]): PTX cp.async");
TESSERA_REGISTER_OP("tir.ptx_cp_async_bulk").set_num_inputs(-1).set_attr(kDtypeFirst, int64_t{1})
    .describe("PTX cp.async.bulk");
TESSERA_REGISTER_OP("tir.ptx_commit_group").set_num_inputs(0).set_attr(kResult, String("void"))
    .describe("PTX cp.async.commit_group");
TESSERA_REGISTER_OP("tir.ptx_wait_group").set_num_inputs(1).set_attr(kResult, String("void"))
    .describe("(n): PTX cp.async.wait_group");
TESSERA_REGISTER_OP("tir.ptx_cp_async_barrier").set_num_inputs(1).set_attr(kResult, String("void"));
TESSERA_REGISTER_OP("tir.ptx_init_barrier_thread_count").set_num_inputs(2).set_attr(kResult, String("void"));
TESSERA_REGISTER_OP("tir.ptx_arrive_barrier").set_num_inputs(1).set_attr(kResult, String("void"));
TESSERA_REGISTER_OP("tir.ptx_arrive_barrier_expect_tx").set_num_inputs(2).set_attr(kResult, String("void"));
TESSERA_REGISTER_OP("tir.ptx_wait_barrier").set_num_inputs(1).set_attr(kResult, String("void"));
TESSERA_REGISTER_OP("tir.create_barriers").set_num_inputs(1).set_attr(kResult, String("void"));
TESSERA_REGISTER_OP("tir.mma_store").set_num_inputs(6).set_attr(kDtypeFirst, int64_t{1})
    .describe("(m, n, dst_ptr, src_ptr, src_offset, dst_stride): store an mma accumulator");
TESSERA_REGISTER_OP("tir.mma_fill").set_num_inputs(3).set_attr(kDtypeFirst, int64_t{1})
    .describe("(local_size, local_ptr, offset): zero an mma accumulator");

// ---- matched regions (LowerOpaqueBlock -> FlattenBuffer) -------------------------------
// A match_buffer's element offset, strides and data, kept as element accesses at the region's corners until
// FlattenBuffer resolves them, so that CompactBufferAllocation sees (and rewrites) the region a tensor intrinsic
// touches through a pointer.
TESSERA_REGISTER_OP("tir.tessera_region_offset").set_num_inputs(2)
    .describe("(buf[min corner], buf[max corner]): the flat element offset of the min corner (FlattenBuffer)");
TESSERA_REGISTER_OP("tir.tessera_region_data").set_num_inputs(2)
    .describe("(buf[min corner], buf[max corner]): buf's data pointer (FlattenBuffer)");

// ---- warp-level (cross-thread reduction) ------------------------------------------------
TESSERA_REGISTER_OP("tir.tvm_warp_activemask").set_num_inputs(0).set_attr(kResult, String("uint32"))
    .describe("the mask of the active threads of the warp");
TESSERA_REGISTER_OP("tir.tvm_warp_shuffle").set_num_inputs(5).set_attr("TScriptResultArg", int64_t{1})
    .describe("(mask, value, lane, width, warp_size): value of another lane");
TESSERA_REGISTER_OP("tir.tvm_warp_shuffle_up").set_num_inputs(5).set_attr("TScriptResultArg", int64_t{1})
    .describe("(mask, value, delta, width, warp_size): value of a lower lane");
TESSERA_REGISTER_OP("tir.tvm_warp_shuffle_down").set_num_inputs(5).set_attr("TScriptResultArg", int64_t{1})
    .describe("(mask, value, delta, width, warp_size): value of a higher lane");

// ---- packed-call ABI -------------------------------------------------------------------
TESSERA_REGISTER_OP("tir.tvm_stack_alloca").set_num_inputs(2).set_attr(kResult, String("handle"))
    .describe("(type, count): stack space for packed-call arguments");
TESSERA_REGISTER_OP("tir.tvm_stack_make_shape").set_num_inputs(-1).set_attr(kResult, String("handle"))
    .describe("(dims...): a shape array on the stack");
TESSERA_REGISTER_OP("tir.tvm_stack_make_array").set_num_inputs(6).set_attr(kResult, String("handle"))
    .describe("(data, shape, strides, ndim, dtype_hint, elem_offset): a DLTensor on the stack");
TESSERA_REGISTER_OP("tir.tvm_struct_get").set_num_inputs(3).set_attr(kDtypeFirst, int64_t{1})
    .describe("(handle, index, field): read a field of an ABI struct");
TESSERA_REGISTER_OP("tir.tvm_struct_set").set_num_inputs(4).set_attr(kResult, String("int32"))
    .describe("(handle, index, field, value): write a field of an ABI struct");
TESSERA_REGISTER_OP("tir.tvm_throw_last_error").set_num_inputs(0).set_attr(kResult, String("int32"));
TESSERA_REGISTER_OP("tir.tvm_check_return").set_num_inputs(3).set_attr(kResult, String("int32"))
    .describe("(expected, error_code, nested_call)");
TESSERA_REGISTER_OP("tir.tvm_thread_invariant").set_num_inputs(1).describe("(cond): a thread-invariant condition");
TESSERA_REGISTER_OP("tir.tvm_tuple").set_num_inputs(-1).set_attr(kResult, String("handle"))
    .describe("a tuple of values (an attribute's payload)");
TESSERA_REGISTER_OP("tir.call_cpacked").set_num_inputs(-1).set_attr(kResult, String("int32"));
TESSERA_REGISTER_OP("tir.call_packed_lowered").set_num_inputs(-1).set_attr(kResult, String("int32"));
TESSERA_REGISTER_OP("tir.call_cpacked_lowered").set_num_inputs(-1).set_attr(kResult, String("int32"));
TESSERA_REGISTER_OP("tir.call_intrin").set_num_inputs(-1).set_attr(kDtypeFirst, int64_t{1});
TESSERA_REGISTER_OP("tir.isnullptr").set_num_inputs(1).set_attr(kResult, String("bool"));
TESSERA_REGISTER_OP("tir.lookup_param").set_num_inputs(1).set_attr(kResult, String("handle"));
TESSERA_REGISTER_OP("tir.TVMBackendAllocWorkspace").set_num_inputs(5).set_attr(kResult, String("handle"));
TESSERA_REGISTER_OP("tir.TVMBackendFreeWorkspace").set_num_inputs(3).set_attr(kResult, String("int32"));

// ---- profiling, assumptions, vectors -------------------------------------------------
TESSERA_REGISTER_OP("tir.start_profile_intrinsic").set_num_inputs(1).set_attr(kResult, String("handle"))
    .describe("(id): start of a profiled region");
TESSERA_REGISTER_OP("tir.end_profile_intrinsic").set_num_inputs(1).set_attr(kResult, String("handle"))
    .describe("(id): end of a profiled region");
TESSERA_REGISTER_OP("tir.assume").set_num_inputs(1).set_attr(kResult, String("bool"))
    .describe("(cond): the condition may be assumed true");
TESSERA_REGISTER_OP("tir.undef").set_num_inputs(0).set_attr(kResult, String("int32"));
TESSERA_REGISTER_OP("tir.vscale").set_num_inputs(0).set_attr(kResult, String("int32"))
    .describe("the scalable vector multiple (SVE)");
TESSERA_REGISTER_OP("tir.clz").set_num_inputs(1).describe("count leading zeros");
TESSERA_REGISTER_OP("tir.q_multiply_shift").set_num_inputs(4).describe("(x, y, q, s): fixed-point multiply");
TESSERA_REGISTER_OP("tir.q_multiply_shift_per_axis").set_num_inputs(7);
TESSERA_REGISTER_OP("tir.vectorlow").set_num_inputs(1).set_attr(kDtypeFirst, int64_t{1});
TESSERA_REGISTER_OP("tir.vectorhigh").set_num_inputs(1).set_attr(kDtypeFirst, int64_t{1});
TESSERA_REGISTER_OP("tir.vectorcombine").set_num_inputs(2).set_attr(kDtypeFirst, int64_t{1});
TESSERA_REGISTER_OP("tir.get_active_lane_mask").set_num_inputs(2).set_attr(kDtypeFirst, int64_t{1});
TESSERA_REGISTER_OP("tir.dp4a").set_num_inputs(3).set_attr(kDtypeFirst, int64_t{1});

}  // namespace tir
}  // namespace tessera
