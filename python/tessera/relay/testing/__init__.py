"""``tvm.relay.testing``: ready-made model workloads returning ``(mod,
params)`` -- ``resnet.get_workload``, ``mlp.get_workload`` -- as Relax
modules whose "main" takes "data" then the weights, which ``params`` holds
with random values (``create_workload``)."""
from . import resnet, mlp
from .init import create_workload

__all__ = ["resnet", "mlp", "create_workload"]
