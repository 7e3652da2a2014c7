"""``relax.Executable``: the result of ``relax.build`` (and of
``ExecBuilder.get``), a wrapper of the C++ relax.Executable module with
``stats``, ``as_text``, ``export_library`` and ``jit``."""
import os

import contextlib
import contextvars
from .._ffi.registry import get_global_func
from ..error import TVMValueError
from ..runtime.module import Module
from ..error import OpNotImplemented, TVMTypeError


class Executable:
    """A VM executable: ``VirtualMachine(ex, dev)`` runs it."""

    def __init__(self, mod, tir_mod=None):
        if not isinstance(mod, Module) or mod.type_key != "relax.Executable":
            raise TVMTypeError(f"Executable wraps a relax.Executable module, got {mod!r}")
        self.mod = mod
        self._tir_mod = tir_mod  # the compiled TIR functions (relax.build), for kernel_flops
        self._flops = None

    def kernel_flops(self):
        """{kernel name: float operations per call} for the TIR functions
        relax.build compiled whose loop extents are constants (computed once,
        on first use: vm.profile's GFLOP/s column); {} for an executable
        loaded from a file."""
        if self._flops is None:
            from ..tir.analysis import estimate_tir_flops  # pylint: disable=import-outside-toplevel
            from ..tir import PrimFunc  # pylint: disable=import-outside-toplevel

            self._flops = {}
            for gv, func in (self._tir_mod.functions.items() if self._tir_mod is not None else []):
                if not isinstance(func, PrimFunc):
                    continue
                try:
                    self._flops[gv.name_hint] = estimate_tir_flops(func)
                except ValueError:
                    continue  # symbolic extents: unknown
        return self._flops

    def stats(self):
        """Counts of constants, functions and instructions."""
        return get_global_func("relax.ExecutableStats")(self.mod)

    def as_text(self):
        """The bytecode, one instruction per line."""
        return get_global_func("relax.ExecutableAsText")(self.mod)

    def jit(self, fcompile=None, addons=None, **kwargs):
        """The runnable module (already compiled in-process: no options)."""
        if fcompile is not None or addons is not None or kwargs:
            raise OpNotImplemented("Executable.jit takes no options: the kernels are already compiled")
        return self.mod

    def export_library(self, file_name, fcompile=None, workspace_dir=None, **kwargs):
        """Writes one shared library with the compiled TIR functions and the
        bytecode; ``tvm.runtime.load_module(file_name)`` loads it back (with
        the runtime library only) for ``VirtualMachine``."""
        if fcompile is not None or workspace_dir is not None or kwargs:
            raise OpNotImplemented("Executable.export_library takes no compiler options: Tessera links the "
                                      "library itself")
        get_global_func("relax.ExecutableExportLibrary")(self.mod, os.path.abspath(os.fspath(file_name)))

    def save_to_file(self, file_name):
        """Writes the bytecode and constants alone (no kernels) in the
        checksummed binary form; see ``load_executable``."""
        get_global_func("relax.ExecutableSaveToFile")(self.mod, os.fspath(file_name))

    def __getitem__(self, name):
        return self.mod[name]

    def __repr__(self):
        return f"Executable({', '.join(get_global_func('relax.ExecutableFunctionNames')(self.mod))})"


def load_executable(file_name, lib=None):
    """Loads an executable written by ``Executable.save_to_file``; ``lib``
    (a runtime Module) supplies its TIR functions. Raises ValueError for a
    truncated or corrupted file."""
    return Executable(get_global_func("relax.ExecutableLoadFromFile")(os.fspath(file_name), lib))





# ---- relax.build -----------------------------------------------------------

def _pipeline(name, target=None):
    """The named pipeline of relax.get_pipeline (relax/pipeline.py, the passes'
    package); "default" is TVM's newer name of "default_build", which gets
    ``target`` (its default CPU schedules are made for it)."""
    import importlib  # pylint: disable=import-outside-toplevel

    try:
        pipeline = importlib.import_module(__package__ + ".pipeline")
    except ImportError as err:
        raise OpNotImplemented("relax.build's lowering pipeline (relax.get_pipeline) is not available in this "
                                  "build; build already-lowered modules with relax_pipeline=None") from err
    name = "default_build" if name == "default" else name
    if name == "default_build":
        return pipeline.get_pipeline(name, target=target)
    return pipeline.get_pipeline(name)


def _vm_target(tgt):
    """``tgt`` when the VM can call its kernels directly (a CPU kind), or a
    device target (a kind with a default schedule for untuned kernels, e.g.
    "cuda") with its host: Target.host, else tvm.target.default_host() ("llvm",
    or "c" without LLVM); the VM runs on that host and its tensors live on the
    device the VirtualMachine is given (tvm.cuda(0))."""
    from ..target import Target, default_host  # pylint: disable=import-outside-toplevel

    if tgt.kind.get_attr("relax.vm_host", False):  # the kinds whose kernels the VM can call
        return tgt
    if "cpu" in [str(k) for k in tgt.keys] or tgt.kind.get_attr("tir.default_schedule") is None:
        raise OpNotImplemented(f"relax.build(target={str(tgt)!r}): the VM runs kernels of CPU targets (\"llvm\", "
                               "\"c\") or of device targets with a default schedule (\"cuda\") only")
    host = tgt.__dict__.get("_host")
    host = host if host is not None else Target(default_host())
    if not host.kind.get_attr("relax.vm_host", False):
        raise TVMValueError(f"relax.build(target={str(tgt)!r}): the host target {host.str!r} cannot run the VM; "
                            "use \"llvm\" or \"c\"")
    return Target(tgt, host=host)


def _check_exec_mode(exec_mode, what):
    if exec_mode != "bytecode":
        raise OpNotImplemented(f"{what}(exec_mode={exec_mode!r}): only \"bytecode\" is supported")


def _vmcodegen(builder, mod, exec_mode="bytecode"):
    """Emits the Relax functions of ``mod`` into ``builder``; returns the
    IRModule of the remaining (TIR) functions."""
    _check_exec_mode(exec_mode, "relax.vm_build._vmcodegen")
    return get_global_func("relax.VMCodeGen")(builder, mod)


def _vmlink(builder, target, tir_mod):
    """The executable of ``builder`` with the TIR functions of ``tir_mod``
    compiled for ``target`` (LLVM) and linked in."""
    from ..driver import build as tir_build  # pylint: disable=import-outside-toplevel

    lib = tir_build(tir_mod, target=target) if len(tir_mod.functions) else None
    return Executable(get_global_func("relax.VMLink")(builder, lib), tir_mod)


def _check_well_formed(mod):
    """Refuses a module that is not well formed (a parameter listed twice, a
    var used outside its scope, ...) before any pass sees it, naming the
    function and the problem. A module that only lacks normalization (nested
    calls, missing struct info) is accepted: the pipeline normalizes it."""
    from .analysis import well_formed_errors  # pylint: disable=import-outside-toplevel
    from .transform import Normalize  # pylint: disable=import-outside-toplevel

    def problems(m):
        # A global_symbol differing from the module name is ill formed for TVM's
        # WellFormed, but the build exports functions by their module name, so
        # such a module still builds (as it did before that check existed).
        return [e for e in well_formed_errors(m, check_struct_info=False)
                if "differs from its name in the module" not in e]

    if not problems(mod):
        return
    errors = problems(Normalize()(mod))
    if errors:
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise TVMValueError(f"relax.build: the module is not well formed: {errors[0]}{more}")


# relax.build's target while it runs its pipeline (None otherwise): see cpu_layout_allowed.
_BUILD_TARGET = contextvars.ContextVar("tessera_relax_build_target", default=None)


def cpu_layout_allowed(config_key, outside_build):
    """Whether a legalization may choose a CPU-only layout (the packed weights of
    relax.matmul and relax.nn.conv2d), the one per-target choice of layouts:
    PassContext config ``config_key`` (True/False) when set; never for a device
    target (relax.build's, else the current ``with tvm.target.Target(...)``), so
    a GPU kernel sees TVM's plain form; inside relax.build for a CPU, yes;
    outside relax.build, ``outside_build``."""
    from ..ir.transform import PassContext  # pylint: disable=import-outside-toplevel
    from ..target import Target  # pylint: disable=import-outside-toplevel
    forced = PassContext.current().config.get(config_key, None)
    if forced is not None:
        return bool(forced)
    target = _BUILD_TARGET.get() or Target.current(allow_none=True)
    if target is not None and "cpu" not in [str(k) for k in target.keys]:
        return False
    return True if _BUILD_TARGET.get() is not None else outside_build


@contextlib.contextmanager
def build_scope(target):
    """The scope relax.build runs its pipeline in: inside ``target`` (as TVM's
    relax.build) and with the per-target layout choices of cpu_layout_allowed made
    as relax.build makes them. Passes run here (e.g. meta_schedule's LegalizeOps
    before task extraction) produce the PrimFuncs relax.build would."""
    from ..target import Target  # pylint: disable=import-outside-toplevel
    tgt = target if isinstance(target, Target) else Target(target)
    token = _BUILD_TARGET.set(tgt)
    try:
        with tgt:
            yield tgt
    finally:
        _BUILD_TARGET.reset(token)


def build(mod, target=None, params=None, relax_pipeline="default_build", exec_mode="bytecode", *, system_lib=None):
    """Compiles a Relax IRModule (or function) to an Executable for
    ``relax.VirtualMachine``: binds ``params`` into "main" (BindParams), runs
    ``relax_pipeline`` (a name for ``relax.get_pipeline``, a Pass, or None
    for an already lowered module), generates bytecode (VMCodeGen) and links in the TIR
    functions compiled with LLVM (VMLink)."""
    from .. import ir  # pylint: disable=import-outside-toplevel
    from ..target import Target  # pylint: disable=import-outside-toplevel
    from .exec_builder import ExecBuilder  # pylint: disable=import-outside-toplevel

    _check_exec_mode(exec_mode, "relax.build")
    if system_lib:
        raise OpNotImplemented("relax.build(system_lib=True) is not supported")
    if target is None:
        from ..target import default_host  # pylint: disable=import-outside-toplevel

        target = default_host()  # "llvm", or "c" in a build without LLVM
    tgt = _vm_target(target if isinstance(target, Target) else Target(target))
    if not isinstance(mod, ir.IRModule):
        mod = ir.IRModule.from_expr(mod)
    _check_well_formed(mod)
    if params:
        import importlib  # pylint: disable=import-outside-toplevel

        try:
            bind_params = importlib.import_module(__package__ + ".transform").BindParams
        except (ImportError, AttributeError, NotImplementedError) as err:
            raise OpNotImplemented("relax.build(params=...) needs relax.transform.BindParams, which is not "
                                      "available in this build") from err
        mod = bind_params("main", params)(mod)
    if relax_pipeline is not None:
        if isinstance(relax_pipeline, str):
            relax_pipeline = _pipeline(relax_pipeline, tgt)
        with build_scope(tgt):
            mod = relax_pipeline(mod)
    builder = ExecBuilder()
    tir_mod = _vmcodegen(builder, mod)
    return _vmlink(builder, tgt, tir_mod)

__all__ = ["Executable", "load_executable", "build", "compile"]


def compile(mod, target=None, *, relax_pipeline="default_build", tir_pipeline="default"):  # pylint: disable=redefined-builtin
    """``tvm.compile``: ``relax.build`` for a module with Relax functions,
    ``tvm.build`` for one of TIR functions only."""
    from .. import ir  # pylint: disable=import-outside-toplevel
    from ..driver import build as tir_build  # pylint: disable=import-outside-toplevel
    from .expr import Function  # pylint: disable=import-outside-toplevel

    if tir_pipeline != "default":
        raise OpNotImplemented("tvm.compile(tir_pipeline=...) is not supported; the TIR default pipeline is used")
    funcs = [mod] if not isinstance(mod, ir.IRModule) else [f for _, f in mod.functions.items()]
    if any(isinstance(f, Function) for f in funcs):
        return build(mod, target=target, relax_pipeline=relax_pipeline)
    return tir_build(mod, target=target)  # None: tvm.target.default_host()
