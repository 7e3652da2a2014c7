@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    """unterminated
