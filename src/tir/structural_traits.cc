// How each TIR node takes part in structural equality and hashing
// (ir/structural_equal.h): the fields compared, in order, and which of them
// define variables. TIR layer; read by StructuralEqual and StructuralHash.
//
// Definition points: PrimFunc params, buffers (their data variable and
// symbolic shape/strides/offset, defined where the buffer is first met: the
// buffer map, alloc_buffers, match_buffers, DeclBuffer), For loop variables,
// block iteration variables, Let/LetStmt variables, Allocate buffer
// variables. Children that define come before the children that use.
#include "ir/structural_equal.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

// ---- expressions --------------------------------------------------------------------

// Variables: only the dtype is compared; the name is free.
TESSERA_REGISTER_STRUCTURAL(VarNode).kind(SNodeKind::kVar).field("dtype", &VarNode::dtype);
TESSERA_REGISTER_STRUCTURAL(StringImmNode).field("dtype", &StringImmNode::dtype).field("value", &StringImmNode::value);
TESSERA_REGISTER_STRUCTURAL(CastNode).field("dtype", &CastNode::dtype).field("value", &CastNode::value);
// Add, Sub, ..., Or share this layout; the node type itself is compared first.
TESSERA_REGISTER_STRUCTURAL(BinaryOpNode)
    .field("dtype", &BinaryOpNode::dtype)
    .field("a", &BinaryOpNode::a)
    .field("b", &BinaryOpNode::b);
TESSERA_REGISTER_STRUCTURAL(NotNode).field("dtype", &NotNode::dtype).field("a", &NotNode::a);
TESSERA_REGISTER_STRUCTURAL(SelectNode)
    .field("dtype", &SelectNode::dtype)
    .field("condition", &SelectNode::condition)
    .field("true_value", &SelectNode::true_value)
    .field("false_value", &SelectNode::false_value);
TESSERA_REGISTER_STRUCTURAL(LetNode)
    .field("dtype", &LetNode::dtype)
    .def("var", &LetNode::var)
    .field("value", &LetNode::value)
    .field("body", &LetNode::body);
TESSERA_REGISTER_STRUCTURAL(RampNode)
    .field("dtype", &RampNode::dtype)
    .field("base", &RampNode::base)
    .field("stride", &RampNode::stride)
    .field("lanes", &RampNode::lanes);
TESSERA_REGISTER_STRUCTURAL(BroadcastNode)
    .field("dtype", &BroadcastNode::dtype)
    .field("value", &BroadcastNode::value)
    .field("lanes", &BroadcastNode::lanes);
TESSERA_REGISTER_STRUCTURAL(CallNode).field("dtype", &CallNode::dtype).field("op", &CallNode::op).field("args", &CallNode::args);
TESSERA_REGISTER_STRUCTURAL(IterVarNode)
    .field("dom", &IterVarNode::dom)
    .def("var", &IterVarNode::var)
    .field("iter_type", &IterVarNode::iter_type)
    .field("thread_tag", &IterVarNode::thread_tag);

// ---- buffers ----------------------------------------------------------------------------

// A buffer is compared by content where first met and by correspondence
// afterwards. Its name is NOT compared, as in TVM (BufferNode::SEqualReduce
// skips it): buffers, like variables, are identified by where they are
// defined. Storage scope, alignment and offset factor are compared (TVM
// compares the scope through the data variable's pointer type).
TESSERA_REGISTER_STRUCTURAL(BufferNode)
    .kind(SNodeKind::kGraph)
    .def("data", &BufferNode::data)
    .field("dtype", &BufferNode::dtype)
    .def("shape", &BufferNode::shape)
    .def("strides", &BufferNode::strides)
    .def("elem_offset", &BufferNode::elem_offset)
    .field("scope", &BufferNode::scope)
    .field("data_alignment", &BufferNode::data_alignment)
    .field("offset_factor", &BufferNode::offset_factor);
TESSERA_REGISTER_STRUCTURAL(BufferLoadNode)
    .field("dtype", &BufferLoadNode::dtype)
    .field("buffer", &BufferLoadNode::buffer)
    .field("indices", &BufferLoadNode::indices);
TESSERA_REGISTER_STRUCTURAL(BufferRegionNode).field("buffer", &BufferRegionNode::buffer).field("region", &BufferRegionNode::region);
TESSERA_REGISTER_STRUCTURAL(MatchBufferRegionNode)
    .def("buffer", &MatchBufferRegionNode::buffer)
    .field("source", &MatchBufferRegionNode::source);

// ---- statements -------------------------------------------------------------------------

TESSERA_REGISTER_STRUCTURAL(BufferStoreNode)
    .field("buffer", &BufferStoreNode::buffer)
    .field("value", &BufferStoreNode::value)
    .field("indices", &BufferStoreNode::indices);
TESSERA_REGISTER_STRUCTURAL(ForNode)
    .def("loop_var", &ForNode::loop_var)
    .field("min", &ForNode::min)
    .field("extent", &ForNode::extent)
    .getter("kind", [](const ForNode* n) { return static_cast<int>(n->kind); })
    .field("thread_binding", &ForNode::thread_binding)
    .field("annotations", &ForNode::annotations)
    .field("body", &ForNode::body);
TESSERA_REGISTER_STRUCTURAL(IfThenElseNode)
    .field("condition", &IfThenElseNode::condition)
    .field("then_case", &IfThenElseNode::then_case)
    .field("else_case", &IfThenElseNode::else_case);
TESSERA_REGISTER_STRUCTURAL(SeqStmtNode).field("seq", &SeqStmtNode::seq);
TESSERA_REGISTER_STRUCTURAL(EvaluateNode).field("value", &EvaluateNode::value);
TESSERA_REGISTER_STRUCTURAL(LetStmtNode)
    .def("var", &LetStmtNode::var)
    .field("value", &LetStmtNode::value)
    .field("body", &LetStmtNode::body);
TESSERA_REGISTER_STRUCTURAL(AttrStmtNode)
    .field("node", &AttrStmtNode::node)
    .field("attr_key", &AttrStmtNode::attr_key)
    .field("value", &AttrStmtNode::value)
    .field("body", &AttrStmtNode::body);
TESSERA_REGISTER_STRUCTURAL(AllocateNode)
    .def("buffer_var", &AllocateNode::buffer_var)
    .field("dtype", &AllocateNode::dtype)
    .field("extents", &AllocateNode::extents)
    .field("condition", &AllocateNode::condition)
    .field("annotations", &AllocateNode::annotations)
    .field("body", &AllocateNode::body);
TESSERA_REGISTER_STRUCTURAL(DeclBufferNode).def("buffer", &DeclBufferNode::buffer).field("body", &DeclBufferNode::body);
TESSERA_REGISTER_STRUCTURAL(WhileNode).field("condition", &WhileNode::condition).field("body", &WhileNode::body);
// Unlike TVM (whose BlockNode::SEqualReduce skips name_hint), the block
// name is compared: schedules look blocks up by name, so two programs whose
// blocks are named differently do not behave the same.
TESSERA_REGISTER_STRUCTURAL(BlockNode)
    .def("iter_vars", &BlockNode::iter_vars)
    .field("alloc_buffers", &BlockNode::alloc_buffers)
    .field("match_buffers", &BlockNode::match_buffers)
    .field("name_hint", &BlockNode::name_hint)
    .field("reads", &BlockNode::reads)
    .field("writes", &BlockNode::writes)
    .field("annotations", &BlockNode::annotations)
    .field("init", &BlockNode::init)
    .field("body", &BlockNode::body);
TESSERA_REGISTER_STRUCTURAL(BlockRealizeNode)
    .field("iter_values", &BlockRealizeNode::iter_values)
    .field("predicate", &BlockRealizeNode::predicate)
    .field("block", &BlockRealizeNode::block);

// ---- functions ----------------------------------------------------------------------------

TESSERA_REGISTER_STRUCTURAL(PrimFuncNode)
    .def("params", &PrimFuncNode::params)
    .field("buffer_map", &PrimFuncNode::buffer_map)
    .field("ret_type", &PrimFuncNode::ret_type)
    .field("attrs", &PrimFuncNode::attrs)
    .field("body", &PrimFuncNode::body);

}  // namespace tir
}  // namespace tessera
