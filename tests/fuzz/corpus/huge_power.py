@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = (-1) ** 9223372036854775807
