"""A stand-in for ``torchvision`` where it cannot be imported (this machine pins a CPU
PyTorch that no torchvision wheel loads beside): TVM v0.18's test_frontend_from_fx.py
imports torchvision at module level and uses only ``torchvision.ops.stochastic_depth``
and ``torchvision.ops.StochasticDepth``, written here in PyTorch from their documented
semantics (drop whole rows or the whole batch with probability p in training, scale the
kept ones by 1 / (1 - p); identity in eval). Installed by tvm_alias.py only when
``import torchvision`` fails. Test-harness only: Tessera itself never uses it."""
import sys
import types


def _stochastic_depth(x, p, mode, training=True):
    import torch  # pylint: disable=import-outside-toplevel
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ("batch", "row"):
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return x
    keep = 1.0 - p
    shape = [x.shape[0]] + [1] * (x.ndim - 1) if mode == "row" else [1] * x.ndim
    noise = torch.empty(shape, dtype=x.dtype, device=x.device).bernoulli_(keep)
    if keep > 0.0:
        noise.div_(keep)
    return x * noise


def install():
    try:
        import torchvision  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        return
    except Exception:  # pylint: disable=broad-except  (absent, or fails to load beside this torch)
        pass
    try:
        import torch  # pylint: disable=import-outside-toplevel
    except ImportError:
        return

    class StochasticDepth(torch.nn.Module):
        def __init__(self, p, mode):
            super().__init__()
            self.p, self.mode = p, mode

        def forward(self, x):
            return _stochastic_depth(x, self.p, self.mode, self.training)

    ops = types.ModuleType("torchvision.ops")
    ops.stochastic_depth = _stochastic_depth
    ops.StochasticDepth = StochasticDepth
    tv = types.ModuleType("torchvision")
    tv.ops = ops
    tv.__tessera_stand_in__ = True
    sys.modules["torchvision"] = tv
    sys.modules["torchvision.ops"] = ops
