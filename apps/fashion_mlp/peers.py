"""The same MLP on the engines Tessera is compared with: NumPy, PyTorch and
ONNX Runtime (the model exported locally with torch.onnx). Each engine gets
a batch-1 predictor taking its native input type, plus a batched one for
classifying the whole test set.
"""
import inspect
import os

import numpy as np


def numpy_mlp(x, p):
    """The course's reference: linear0 -> ReLU -> linear1 with NumPy (OpenBLAS)."""
    return np.maximum(x @ p["w0"].T + p["b0"], 0) @ p["w1"].T + p["b1"]


def export_onnx(torch, model, path):
    """Exports the PyTorch model to ONNX (input 'x' [batch, 784], dynamic batch)."""
    kwargs = dict(input_names=["x"], output_names=["logits"], opset_version=13,
                  dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}})
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False  # the TorchScript exporter: no extra dependencies
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(model, (torch.zeros(1, 784),), path, **kwargs)
    return path


def onnxruntime_session(path, threads=1):
    """An ONNX Runtime CPU session, on `threads` threads (one by default, as every engine
    of the batch-1 comparison; ONNX Runtime's spinning pool otherwise competes for the cores)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = threads
    opts.log_severity_level = 3
    return ort.InferenceSession(path, sess_options=opts, providers=["CPUExecutionProvider"])
