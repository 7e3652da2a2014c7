"""Thread-bound reductions the cross-thread lowering cannot take (LowerCrossThreadReduction,
LowerThreadAllreduce): each must raise NotImplementedError naming the block or kernel, never compile into a
kernel whose threads race on the output (what happened before the lowering existed). Subprocess harness."""
from .harness import expect_error


def case(func_source, call):
    """Code for the harness: `func_source` (TVMScript text of f) parsed, then `call` on `mod`."""
    return f"""
m = tvm.script.from_source({func_source!r})
mod = m if isinstance(m, tvm.IRModule) else tvm.IRModule({{"main": m}})
{call}
"""


def test_update_that_is_not_a_reduction_is_refused():
    # B = B * 0.5 + A is not commutative over the threads: lowering it as a sum would be a wrong answer.
    expect_error(case("""
# from tvm.script import tir as T
@T.prim_func
def f(A: T.Buffer((4, 64), "float32"), B: T.Buffer((4,), "float32")):
    for i in T.thread_binding(4, thread="blockIdx.x"):
        for k in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] * T.float32(0.5) + A[vi, vk]
""", 'tvm.lower(mod)'), "NotImplementedError", "cross-thread reduction of block B")


# A copy C[i, k] = A[i, k] on threadIdx.x (64 threads), then the row sum B[i] over k: `loop` is "" to put B in C's
# thread loop, else the header of a loop of its own.
COPY_THEN_SUM = """
# from tvm.script import tir as T
@T.prim_func
def f(A: T.Buffer((4, 64), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4, 64), "float32")):
    for i in T.thread_binding(4, thread="blockIdx.x"):
        for k in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("C"):
                vi, vk = T.axis.remap("SS", [i, k])
                C[vi, vk] = A[vi, vk]
{loop}
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
"""


def test_statement_between_thread_loop_and_reduction_is_refused():
    expect_error(case(COPY_THEN_SUM.format(loop=""), "tvm.lower(mod)"), "NotImplementedError",
                 "block B: its reduction loop k is bound to threadIdx.x")


def test_reduction_narrower_than_the_launch_is_refused():
    # threads 48..63 of the launch would skip the barriers of the reduction over 48 threads
    loop = '        for k in T.thread_binding(48, thread="threadIdx.x"):'
    expect_error(case(COPY_THEN_SUM.format(loop=loop), 'tvm.build(mod, target="cuda")'), "NotImplementedError",
                 "its threadIdx.x loop is narrower than the launch's threadIdx.x")
