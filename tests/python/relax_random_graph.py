"""Random small Relax graphs with their NumPy oracle, for the relax.build fuzz
target (tests/fuzz/fuzz_relax_build.py) and property tests: a sequence of ops
(elementwise unary, broadcasting binary, reductions, layout changes, matmul,
softmax) over one or two float32 inputs, built with a BlockBuilder, each op's
expected value computed by NumPy alongside. Every generated graph is valid:
any error building or running it, or any difference from NumPy, is a bug."""
import numpy as np

import tessera as tvm
from tessera import relax


def _sinfo(shape):
    return relax.TensorStructInfo(list(shape), "float32")


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _unary(choose, bb, v, x):
    name, rop, fn = [
        ("relu", relax.op.nn.relu, lambda a: np.maximum(a, 0)),
        ("exp", lambda e: relax.op.exp(relax.op.multiply(e, relax.const(0.25, "float32"))), lambda a: np.exp(a * 0.25)),
        ("negative", relax.op.negative, np.negative),
        ("sigmoid", relax.op.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
        ("tanh", relax.op.tanh, np.tanh),
        ("abs", relax.op.abs, np.abs),
    ][choose(6)]
    return bb.emit(rop(v)), fn(x).astype("float32"), name


_BINARY = [("add", relax.op.add, np.add), ("subtract", relax.op.subtract, np.subtract),
           ("multiply", relax.op.multiply, np.multiply), ("maximum", relax.op.maximum, np.maximum),
           ("minimum", relax.op.minimum, np.minimum)]


def _broadcast_partner(choose, shape):
    """A shape that broadcasts with ``shape``: a suffix of it with some dims set to 1."""
    keep = choose(len(shape) + 1)
    suffix = list(shape[len(shape) - keep:])
    return tuple(1 if (d > 1 and choose(3) == 0) else d for d in suffix)


def random_graph(choose, max_ops=5):
    """Builds a random graph. ``choose(n)`` returns an int in [0, n) (from
    random.Random or a fuzzer's bytes). Returns (IRModule, inputs as NumPy
    arrays, expected output, description of the ops)."""
    rng = np.random.default_rng(choose(1 << 16))
    rank = choose(4)
    shape = tuple(1 + choose(5) for _ in range(rank))
    x0 = rng.standard_normal(shape).astype("float32")
    params = [relax.Var("x0", _sinfo(shape))]
    inputs = [x0]
    bb = relax.BlockBuilder()
    ops = []
    with bb.function("main"):  # parameters given at the end: binary ops add inputs
        with bb.dataflow():
            v, x = params[0], x0
            for _ in range(1 + choose(max_ops)):
                kind = choose(8)
                if kind <= 1:
                    v, x, name = _unary(choose, bb, v, x)
                elif kind <= 3:
                    name, rop, fn = _BINARY[choose(len(_BINARY))]
                    if choose(2) == 0:  # a constant operand
                        pshape = _broadcast_partner(choose, x.shape)
                        c = rng.standard_normal(pshape).astype("float32")
                        other = relax.const(c, "float32")
                    else:  # a new input
                        pshape = _broadcast_partner(choose, x.shape)
                        c = rng.standard_normal(pshape).astype("float32")
                        other = relax.Var(f"x{len(params)}", _sinfo(pshape))
                        params.append(other)
                        inputs.append(c)
                    if choose(2):
                        v, x = bb.emit(rop(v, other)), fn(x, c).astype("float32")
                    else:
                        v, x = bb.emit(rop(other, v)), fn(c, x).astype("float32")
                elif kind == 4 and x.ndim >= 1:
                    axis = choose(x.ndim)
                    keep = bool(choose(2))
                    name, rop, fn = [("sum", relax.op.sum, np.sum), ("mean", relax.op.mean, np.mean),
                                     ("max", relax.op.max, np.max), ("min", relax.op.min, np.min)][choose(4)]
                    v = bb.emit(rop(v, axis=[axis], keepdims=keep))
                    x = fn(x, axis=axis, keepdims=keep).astype("float32")
                elif kind == 5 and x.ndim >= 2:
                    perm = list(range(x.ndim))
                    i = choose(x.ndim - 1)
                    perm[i], perm[i + 1] = perm[i + 1], perm[i]
                    name = "permute_dims"
                    v, x = bb.emit(relax.op.permute_dims(v, perm)), np.transpose(x, perm)
                elif kind == 6 and x.ndim >= 1:
                    k = 1 + choose(4)
                    w = rng.standard_normal((x.shape[-1], k)).astype("float32")
                    name = "matmul"
                    v, x = bb.emit(relax.op.matmul(v, relax.const(w, "float32"))), (x @ w).astype("float32")
                elif kind == 7 and x.ndim >= 1:
                    if choose(2):
                        axis = choose(x.ndim)
                        name = "softmax"
                        v, x = bb.emit(relax.op.nn.softmax(v, axis=axis)), _np_softmax(x, axis).astype("float32")
                    else:
                        name = "reshape"
                        v, x = bb.emit(relax.op.reshape(v, [int(np.prod(x.shape))])), x.reshape(-1)
                else:
                    v, x, name = _unary(choose, bb, v, x)
                ops.append(name)
            out = bb.emit_output(v)
        bb.emit_func_output(out, params)
    return bb.get(), inputs, x, ops


def run_graph(mod, inputs, pipeline=None):
    """relax.build(mod, "llvm") (with ``pipeline`` if given) and one call of main."""
    kwargs = {} if pipeline is None else {"relax_pipeline": pipeline}
    ex = relax.build(mod, target="llvm", **kwargs)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in inputs]).numpy()
