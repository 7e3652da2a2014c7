"""The builder interface (``tvm.meta_schedule.builder.Builder``): BuilderInput (a scheduled
module and its target), BuilderResult (a library path or an error) and the build step
that every builder runs in its worker (LocalBuilder: a process; RayBuilder: a Ray task)."""
from ...error import OpNotImplemented, TVMTypeError


class BuilderInput:
    """``mod``: the scheduled IRModule to build; ``target``: a Target or its string."""

    def __init__(self, mod, target, params=None):
        if params is not None:
            raise OpNotImplemented("BuilderInput(params=...) is not supported (no Relax params in TIR builds)")
        self.mod = mod
        self.target = str(target)


class BuilderResult:
    """``artifact_path`` (the built library) or ``error_msg``."""

    def __init__(self, artifact_path, error_msg):
        self.artifact_path = artifact_path
        self.error_msg = error_msg

    def __repr__(self):
        return f"BuilderResult(artifact_path={self.artifact_path!r}, error_msg={self.error_msg!r})"


class Builder:
    """The builder interface: ``build(list[BuilderInput]) -> list[BuilderResult]``."""

    def build(self, build_inputs):
        raise OpNotImplemented

    def _init_artifact_dir(self, artifact_dir):
        """Where built libraries go: ``artifact_dir``, or a temporary directory
        that lives as long as the builder."""
        import os
        import tempfile
        self._tmp = None
        if artifact_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="tessera_ms_build_")
            artifact_dir = self._tmp.name
        os.makedirs(artifact_dir, exist_ok=True)
        self.artifact_dir = artifact_dir
        self._count = 0

    def close(self):
        pass


def check_inputs(build_inputs, who):
    for inp in build_inputs:
        if not isinstance(inp, BuilderInput):
            raise TVMTypeError(f"{who}.build expects BuilderInput items, got {type(inp).__name__}")


def build_to_file(mod_json, target, out_path):
    """Builds the module (JSON) for ``target`` and writes the library to ``out_path``."""
    from ... import build, ir
    lib = build(ir.load_json(mod_json), target=target)
    lib.export_library(out_path)
    return out_path


__all__ = ["Builder", "BuilderInput", "BuilderResult", "build_to_file", "check_inputs"]
