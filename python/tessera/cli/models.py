"""Model files for the ``tessera`` command line: ``.onnx`` (through
tessera.relax.frontend.onnx) and ``.pt2`` (torch.export.save'd programs,
through from_exported_program) to a Relax IRModule, with ``--input`` shapes
checked against the model's input names first."""
import os

from .common import CLIError, check_file

MODEL_SUFFIXES = (".onnx", ".pt2")


def model_kind(path):
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in MODEL_SUFFIXES:
        raise CLIError(f"{path}: unsupported model format {suffix or '(no suffix)'!r}; give an .onnx or a .pt2 "
                       "(torch.export.save) file")
    return suffix


def read_onnx(path):
    """The ONNX ModelProto of ``path``."""
    try:
        import onnx  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise CLIError("reading .onnx models needs the 'onnx' Python package (pip install onnx)") from err
    try:
        return onnx.load(path)
    except Exception as err:  # pylint: disable=broad-except  # protobuf's DecodeError and friends
        raise CLIError(f"cannot read {path} as an ONNX model: {type(err).__name__}: {err}") from err


def onnx_inputs(model):
    """{name: (shape with None for symbolic dims, numpy dtype)} of the graph
    inputs that are not initializers."""
    from onnx import helper  # pylint: disable=import-outside-toplevel

    weights = {t.name for t in model.graph.initializer}
    inputs = {}
    for value in model.graph.input:
        if value.name in weights:
            continue
        ttype = value.type.tensor_type
        dims = tuple(d.dim_value if d.HasField("dim_value") else None for d in ttype.shape.dim)
        inputs[value.name] = (dims, helper.tensor_dtype_to_np_dtype(ttype.elem_type))
    return inputs


def _check_names(path, shapes, known):
    for name in shapes:
        if name not in known:
            raise CLIError(f"{path} has no input named {name!r}; its inputs are {', '.join(known) or 'none'}")


def _import_onnx(path, shapes):
    try:
        from ..relax.frontend.onnx import from_onnx  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise CLIError("reading .onnx models needs tessera.relax.frontend.onnx, which this build does not "
                       "have") from err
    model = read_onnx(path)
    _check_names(path, shapes, list(onnx_inputs(model)))
    return from_onnx(model, shape_dict=shapes or None)


def _import_pt2(path, shapes):
    try:
        import torch  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise CLIError("reading .pt2 models needs PyTorch (pip install torch)") from err
    try:
        program = torch.export.load(path)
    except Exception as err:  # pylint: disable=broad-except  # zip, pickle and version errors alike
        raise CLIError(f"cannot read {path} as a torch.export program (.pt2): {type(err).__name__}: {err}") from err
    from ..relax.frontend.torch import from_exported_program  # pylint: disable=import-outside-toplevel

    mod = from_exported_program(program)
    params = {p.name_hint: p for p in mod["main"].params}
    _check_names(path, shapes, list(params))
    for name, shape in shapes.items():
        have = tuple(int(d) if hasattr(d, "value") or isinstance(d, int) else -1
                     for d in params[name].struct_info.shape.values)
        if have != shape:
            raise CLIError(f"{path} was exported with input {name!r} of shape {'x'.join(map(str, have))}, not "
                           f"{'x'.join(map(str, shape))}; export it again for that shape")
    return mod


def load_model(path, shapes):
    """The Relax IRModule of the model file ``path`` with the input ``shapes``
    ({name: shape}) applied."""
    kind = model_kind(check_file(path, "model file"))
    return _import_onnx(path, shapes) if kind == ".onnx" else _import_pt2(path, shapes)
