"""The MLP as the course's chapter 3 writes it for Tessera, three ways:
TensorIR functions called with R.call_tir (MyModule), registered library
functions called with R.call_dps_packed (MyModuleWithExternCall, PyTorch
through torch.from_dlpack), and the mixture of both (MyModuleMixture) whose
weights are bound with relax.transform.BindParams. Also the chapter 4 step:
a scheduled linear0/linear1 swapped in with IRModule.update_func.
"""
import tessera as tvm
from tessera import relax
from tessera.script import relax as R
from tessera.script import tir as T

PARAM_NAMES = ("w0", "b0", "w1", "b1")


def call_tir_module():
    """MyModule of chapter 3: every operator is a TensorIR function called through R.call_tir."""

    @tvm.script.ir_module
    class MyModule:
        @T.prim_func
        def relu0(X: T.Buffer((1, 128), "float32"),
                  Y: T.Buffer((1, 128), "float32")):
            T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
            for i, j in T.grid(1, 128):
                with T.block("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

        @T.prim_func
        def linear0(X: T.Buffer((1, 784), "float32"),
                    W: T.Buffer((128, 784), "float32"),
                    B: T.Buffer((128,), "float32"),
                    Z: T.Buffer((1, 128), "float32")):
            T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
            Y = T.alloc_buffer((1, 128), "float32")
            for i, j, k in T.grid(1, 128, 784):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
            for i, j in T.grid(1, 128):
                with T.block("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Z[vi, vj] = Y[vi, vj] + B[vj]

        @T.prim_func
        def linear1(X: T.Buffer((1, 128), "float32"),
                    W: T.Buffer((10, 128), "float32"),
                    B: T.Buffer((10,), "float32"),
                    Z: T.Buffer((1, 10), "float32")):
            T.func_attr({"global_symbol": "linear1", "tir.noalias": True})
            Y = T.alloc_buffer((1, 10), "float32")
            for i, j, k in T.grid(1, 10, 128):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
            for i, j in T.grid(1, 10):
                with T.block("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Z[vi, vj] = Y[vi, vj] + B[vj]

        @R.function
        def main(x: R.Tensor((1, 784), "float32"),
                 w0: R.Tensor((128, 784), "float32"),
                 b0: R.Tensor((128,), "float32"),
                 w1: R.Tensor((10, 128), "float32"),
                 b1: R.Tensor((10,), "float32")):
            with R.dataflow():
                cls = MyModule
                lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((1, 128), dtype="float32"))
                lv1 = R.call_tir(cls.relu0, (lv0,), out_sinfo=R.Tensor((1, 128), dtype="float32"))
                out = R.call_tir(cls.linear1, (lv1, w1, b1), out_sinfo=R.Tensor((1, 10), dtype="float32"))
                R.output(out)
            return out

    return MyModule


def extern_module():
    """MyModuleWithExternCall of chapter 3: library functions env.linear / env.relu through R.call_dps_packed."""

    @tvm.script.ir_module
    class MyModuleWithExternCall:
        @R.function
        def main(x: R.Tensor((1, 784), "float32"),
                 w0: R.Tensor((128, 784), "float32"),
                 b0: R.Tensor((128,), "float32"),
                 w1: R.Tensor((10, 128), "float32"),
                 b1: R.Tensor((10,), "float32")):
            with R.dataflow():
                lv0 = R.call_dps_packed("env.linear", (x, w0, b0), out_sinfo=R.Tensor((1, 128), dtype="float32"))
                lv1 = R.call_dps_packed("env.relu", (lv0,), out_sinfo=R.Tensor((1, 128), dtype="float32"))
                out = R.call_dps_packed("env.linear", (lv1, w1, b1), out_sinfo=R.Tensor((1, 10), dtype="float32"))
                R.output(out)
            return out

    return MyModuleWithExternCall


def mixture_module():
    """MyModuleMixture of chapter 3: TensorIR linear0 with call_tir, the rest through library functions."""

    @tvm.script.ir_module
    class MyModuleMixture:
        @T.prim_func
        def linear0(X: T.Buffer((1, 784), "float32"),
                    W: T.Buffer((128, 784), "float32"),
                    B: T.Buffer((128,), "float32"),
                    Z: T.Buffer((1, 128), "float32")):
            T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
            Y = T.alloc_buffer((1, 128), "float32")
            for i, j, k in T.grid(1, 128, 784):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
            for i, j in T.grid(1, 128):
                with T.block("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Z[vi, vj] = Y[vi, vj] + B[vj]

        @R.function
        def main(x: R.Tensor((1, 784), "float32"),
                 w0: R.Tensor((128, 784), "float32"),
                 b0: R.Tensor((128,), "float32"),
                 w1: R.Tensor((10, 128), "float32"),
                 b1: R.Tensor((10,), "float32")):
            with R.dataflow():
                cls = MyModuleMixture
                lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((1, 128), dtype="float32"))
                lv1 = R.call_dps_packed("env.relu", (lv0,), out_sinfo=R.Tensor((1, 128), dtype="float32"))
                out = R.call_dps_packed("env.linear", (lv1, w1, b1), out_sinfo=R.Tensor((1, 10), dtype="float32"))
                R.output(out)
            return out

    return MyModuleMixture


def register_torch_env_functions(torch):
    """env.linear / env.relu as the course registers them: PyTorch on zero-copy views (torch.from_dlpack)
    of the arrays the VM passes, writing into the destination array (destination-passing style)."""

    @tvm.register_func("env.linear", override=True)
    def torch_linear(x, w, b, out):
        x_torch = torch.from_dlpack(x)
        w_torch = torch.from_dlpack(w)
        b_torch = torch.from_dlpack(b)
        out_torch = torch.from_dlpack(out)
        torch.mm(x_torch, w_torch.T, out=out_torch)
        torch.add(out_torch, b_torch, out=out_torch)

    zero = torch.zeros(1)

    @tvm.register_func("env.relu", override=True)
    def torch_relu(x, out):
        x_torch = torch.from_dlpack(x)
        out_torch = torch.from_dlpack(out)
        torch.maximum(x_torch, zero, out=out_torch)


def linear_schedule(func, lanes=16):
    """A hand schedule for the course's linear0/linear1 (block "Y" reducing over k):
    split k by `lanes`, rfactor the inner part into `lanes` partial sums kept
    contiguous, hoist the init and vectorize the partial sums. Returns the
    tvm.tir.Schedule (its trace replays it)."""
    sch = tvm.tir.Schedule(func)
    block = sch.get_block("Y")
    _, _, k = sch.get_loops(block)
    _, k1 = sch.split(k, factors=[None, lanes])
    rf = sch.rfactor(k1, factor_axis=2)
    _, _, k0, k1 = sch.get_loops(rf)
    sch.decompose_reduction(rf, k0)
    sch.vectorize(k1)
    return sch


def schedule_linear(func, lanes=16):
    """The scheduled PrimFunc of linear_schedule (same global_symbol)."""
    return linear_schedule(func, lanes).mod["main"]


def with_scheduled_linears(mod):
    """Chapter 4 §4.5: swap scheduled versions of linear0/linear1 (those `mod` has)
    into `mod` in place with get_global_var + update_func; returns `mod`."""
    names = {gv.name_hint for gv in mod.get_global_vars()}
    for name in ("linear0", "linear1"):
        if name in names:
            mod.update_func(mod.get_global_var(name), schedule_linear(mod[name]))
    return mod


def bind_params(mod, params):
    """relax.transform.BindParams("main", ...) with the weights as NDArrays: main keeps x only."""
    nd_params = {k: tvm.nd.array(params[k]) for k in PARAM_NAMES}
    return relax.transform.BindParams("main", nd_params)(mod)


def compile_executable(mod):
    """relax.build for the host CPU: an Executable (export_library to deploy it)."""
    return relax.build(mod, target="llvm")


def build(mod):
    """relax.build for the host CPU, then a VirtualMachine on tvm.cpu()."""
    return relax.VirtualMachine(compile_executable(mod), tvm.cpu())
