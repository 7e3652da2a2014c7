"""Core Relax passes (``tvm.relax.transform.Normalize``, ``BindParams``);
C++ in src/relax/transform/{function_pass,bind_params}.cc."""
import numpy as _np

from ...runtime.ndarray import NDArray, array
from ..expr import Var
from . import _ffi_api
from ...error import TVMTypeError


def Normalize():
    """Normalizes every relax function (A-normal form, struct info filled)."""
    return _ffi_api.Normalize()


def BindParams(func_name, params):
    """Binds parameters of relax function ``func_name`` to constants.

    ``params`` maps a parameter name (str) or parameter ``relax.Var`` to a
    ``tvm.nd.NDArray`` or NumPy array; bound parameters leave the signature,
    the others stay. Symbolic dims fixed by the arrays' shapes are
    substituted. An unknown name or a shape that does not fit raises
    ValueError naming it; a dtype mismatch TypeError."""
    if not isinstance(func_name, str):
        raise TVMTypeError(f"BindParams: func_name must be a str, got {type(func_name).__name__}")
    if not isinstance(params, dict):
        raise TVMTypeError(f"BindParams: params must be a dict, got {type(params).__name__}")
    converted = {}
    for key, value in params.items():
        if not isinstance(key, (str, Var)):
            raise TVMTypeError(f"BindParams: keys must be parameter names or relax Vars, got {type(key).__name__}")
        label = key if isinstance(key, str) else key.name_hint
        if isinstance(value, NDArray):
            converted[key] = value
        elif isinstance(value, (_np.ndarray, _np.generic)):
            converted[key] = array(_np.ascontiguousarray(value))
        else:
            raise TVMTypeError(f"BindParams: the value for parameter '{label}' must be a tvm.nd.NDArray or a NumPy "
                               f"array, got {type(value).__name__}")
    return _ffi_api.BindParams(func_name, converted)


__all__ = ["Normalize", "BindParams"]
