"""EvaluatorConfig (``tvm.meta_schedule.runner.EvaluatorConfig``): how a runner times a
candidate, as TVM's: ``number`` calls per measurement, ``repeat`` measurements,
``min_repeat_ms`` (more calls until a measurement lasts that long) and
``enable_cpu_cache_flush``; a field left None takes TVM's default (3, 1, 100, False).
LocalRunner(evaluator_config=...) takes it."""
from typing import NamedTuple, Optional

from ...error import TVMTypeError, TVMValueError


class EvaluatorConfig(NamedTuple):
    number: Optional[int] = None
    repeat: Optional[int] = None
    min_repeat_ms: Optional[int] = None
    enable_cpu_cache_flush: Optional[bool] = None

    @staticmethod
    def _normalized(config, who="runner"):
        """``config`` (an EvaluatorConfig or None) with TVM's defaults filled in, checked."""
        if config is None:
            config = EvaluatorConfig()
        if not isinstance(config, EvaluatorConfig):
            raise TVMTypeError(f"{who}: evaluator_config must be a meta_schedule.runner.EvaluatorConfig, "
                               f"got {type(config).__name__}")
        out = EvaluatorConfig(3 if config.number is None else int(config.number),
                              1 if config.repeat is None else int(config.repeat),
                              100 if config.min_repeat_ms is None else int(config.min_repeat_ms),
                              bool(config.enable_cpu_cache_flush))
        for name in ("number", "repeat"):
            if getattr(out, name) < 1:
                raise TVMValueError(f"{who}: EvaluatorConfig({name}={getattr(out, name)}) must be at least 1")
        if out.min_repeat_ms < 0:
            raise TVMValueError(f"{who}: EvaluatorConfig(min_repeat_ms={out.min_repeat_ms}) must be >= 0")
        return out


__all__ = ["EvaluatorConfig"]
