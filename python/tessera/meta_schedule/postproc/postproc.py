"""The Postproc interface: ``apply(sch) -> bool`` (False rejects the candidate) after
``_initialize_with_tune_context(context)``; ``Postproc.create(kind)`` TVM's default list."""


class Postproc:
    """A postprocessor of candidate schedules."""

    def _initialize_with_tune_context(self, context):
        pass

    def apply(self, sch):
        raise NotImplementedError(f"{type(self).__name__}.apply")

    def clone(self):
        return self

    def __repr__(self):
        return f"meta_schedule.{type(self).__name__}"

    @staticmethod
    def create(kind="llvm"):
        """The default postprocessors of ``kind`` that Tessera has: "llvm" gets
        DisallowDynamicLoop (TVM's llvm list also rewrites parallel/vectorize/unroll
        annotations and reduction blocks, and verifies the CPU code); "cuda" gets
        DisallowDynamicLoop and VerifyGPUCode."""
        from .disallow_dynamic_loop import DisallowDynamicLoop
        from .verify_gpu_code import VerifyGPUCode
        if kind == "llvm":
            return [DisallowDynamicLoop()]
        if kind == "cuda":
            return [DisallowDynamicLoop(), VerifyGPUCode()]
        raise NotImplementedError(f"Postproc.create({kind!r}): only 'llvm' and 'cuda' are supported")
