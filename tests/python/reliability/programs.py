"""TVMScript programs shared by the reliability tests, as Python code that
defines them through tvm.script.from_source (every case runs in its own
`python -c` subprocess, where decorated functions have no source file)."""

_MATMUL_SRC = '''
@T.prim_func
def matmul(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (64, 64), "float32")
    B = T.match_buffer(b, (64, 64), "float32")
    C = T.match_buffer(c, (64, 64), "float32")
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
'''


def _define(name, src):
    return f"\nimport tessera as tvm\n{name} = tvm.script.from_source({src!r})\n"


# Defines `matmul`: C = A @ B (64 x 64 x 64), one block "C" with loops i, j, k.
MATMUL = _define("matmul", _MATMUL_SRC)


def loop_of_extent(extent):
    """Defines `f`: one loop of ``extent`` over one block "B"."""
    return _define("f", f'''
@T.prim_func
def f(a: T.handle):
    A = T.match_buffer(a, ({extent},), "float32")
    for i in range({extent}):
        with T.block("B"):
            vi = T.axis.spatial({extent}, i)
            A[vi] = T.float32(1)
''')


def scalar_program(dtype):
    """Defines `f(a, n)`: writes the scalar ``n`` (of ``dtype``) into A[0] (int64)."""
    return _define("f", f'''
@T.prim_func
def f(a: T.handle, n: T.{dtype}):
    A = T.match_buffer(a, (1,), "int64")
    A[0] = T.Cast("int64", n)
''')


def float_scalar_program(dtype):
    """Defines `f(a, n)`: writes the scalar ``n`` (of float ``dtype``) into A[0] (float64)."""
    return _define("f", f'''
@T.prim_func
def f(a: T.handle, n: T.{dtype}):
    A = T.match_buffer(a, (1,), "float64")
    A[0] = T.Cast("float64", n)
''')
