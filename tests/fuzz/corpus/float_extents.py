@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in T.grid(T.float32(1)):
        with T.block("b"):
            vi = T.axis.spatial(T.float32(2), i)
