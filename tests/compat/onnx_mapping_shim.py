"""Gives ``onnx.mapping`` back to TVM v0.18's ONNX tests (onnx 1.15+ dropped the
module; the tests read onnx.mapping.TENSOR_TYPE_TO_NP_TYPE and NP_TYPE_TO_TENSOR_TYPE).
Built from onnx.helper's dtype functions; installed by tvm_alias.py when onnx is
importable and lacks the module. Test-harness only: Tessera itself never uses it."""
import sys
import types


def install():
    try:
        import onnx  # pylint: disable=import-outside-toplevel
    except ImportError:
        return
    if hasattr(onnx, "mapping"):
        return
    import numpy as np  # pylint: disable=import-outside-toplevel
    from onnx import helper  # pylint: disable=import-outside-toplevel
    to_np = {}
    for name, code in onnx.TensorProto.DataType.items():
        if name == "UNDEFINED":
            continue
        try:
            to_np[code] = np.dtype(helper.tensor_dtype_to_np_dtype(code))
        except Exception:  # pylint: disable=broad-except  (types NumPy lacks: bfloat16, float8 ...)
            continue
    mapping = types.ModuleType("onnx.mapping")
    mapping.TENSOR_TYPE_TO_NP_TYPE = to_np
    mapping.NP_TYPE_TO_TENSOR_TYPE = {v: k for k, v in reversed(list(to_np.items()))}
    mapping.NP_TYPE_TO_TENSOR_TYPE.update({np.dtype(helper.tensor_dtype_to_np_dtype(c)): c for c in
                                           (onnx.TensorProto.FLOAT, onnx.TensorProto.INT64, onnx.TensorProto.BOOL)})
    onnx.mapping = mapping
    sys.modules["onnx.mapping"] = mapping
