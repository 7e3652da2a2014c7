"""Compiled libraries for the ``tessera`` command line: load a ``.so``
written by ``tessera compile`` (or relay.build / relax.build), name its
inputs, and gather their arrays -- from ``--input NAME=file.npy``, or random
ones of the shapes the library (its "tessera_signature") or an ONNX file
records."""
import numpy as np

from .common import CLIError, check_file, parse_array_specs


class Library:
    """A loaded library: ``vm(profile=False)`` makes a VirtualMachine;
    ``names`` are the inputs of "main"; ``signature`` the recorded one or None."""

    def __init__(self, path):
        from ..runtime.module import load_module  # pylint: disable=import-outside-toplevel
        from ..runtime.relax_vm import VirtualMachine  # pylint: disable=import-outside-toplevel
        from ..contrib import model_signature  # pylint: disable=import-outside-toplevel

        check_file(path, "library")
        self.path = path
        self.module = load_module(path)
        if self.module.type_key != "relax.Executable":
            raise CLIError(f"{path} is a {self.module.type_key} library, not a compiled model (make one with "
                           "tessera compile)")
        self._vm_class = VirtualMachine
        vm = self.vm()
        self.names = [vm._get_function_param_name("main", i) for i in range(vm._get_function_arity("main"))]
        self.signature = model_signature.read(self.module)

    def vm(self, profile=False):
        from ..runtime.device import cpu  # pylint: disable=import-outside-toplevel

        return self._vm_class(self.module, cpu(), profile=profile)

    def recorded(self, name):
        """(shape, dtype) of input ``name`` from the signature, or None."""
        for item in (self.signature or {}).get("inputs", []):
            if item["name"] == name:
                return item["shape"], item["dtype"]
        return None

    def inputs(self, specs, onnx_path=None, random=False, seed=0):
        """The input arrays in the order of "main": from ``specs``
        (NAME=file.npy), else random (when ``random``) of the recorded shape
        or that of the ONNX model ``onnx_path``."""
        from ..runtime.ndarray import array  # pylint: disable=import-outside-toplevel

        given = parse_array_specs(specs, self.names)
        onnx_shapes = {}
        if onnx_path is not None:
            from .models import onnx_inputs, read_onnx  # pylint: disable=import-outside-toplevel

            onnx_shapes = onnx_inputs(read_onnx(check_file(onnx_path, "ONNX model")))
        rng = np.random.default_rng(seed)
        out = []
        for name in self.names:
            recorded = self.recorded(name) or (onnx_shapes[name] if name in onnx_shapes else None)
            if name in given:
                value = given[name]
                if recorded is not None:
                    value = self._conform(name, value, *recorded)
            elif random and recorded is not None:
                value = self._random(name, *recorded, rng)
            else:
                missing = [n for n in self.names if n not in given]
                raise CLIError(f"missing input(s) {', '.join(missing)}: give --input NAME=FILE.npy for each")
            out.append(array(np.ascontiguousarray(value)))
        return out

    @staticmethod
    def _conform(name, value, shape, dtype):
        if shape is not None and (len(shape) != value.ndim or any(
                isinstance(d, int) and d != v for d, v in zip(shape, value.shape))):
            want = "x".join(str(d) for d in shape)
            raise CLIError(f"input {name!r} must have shape {want}, the file holds {'x'.join(map(str, value.shape))}")
        if dtype is not None and str(value.dtype) != str(dtype):
            if not np.can_cast(value.dtype, dtype, "same_kind"):
                raise CLIError(f"input {name!r} must be {dtype}, the file holds {value.dtype}")
            value = value.astype(dtype)
        return value

    @staticmethod
    def _random(name, shape, dtype, rng):
        if shape is None or any(not isinstance(d, int) for d in shape):
            raise CLIError(f"input {name!r} has no fixed shape recorded; give --input {name}=FILE.npy")
        dtype = np.dtype(dtype or "float32")
        if dtype.kind == "f":
            return rng.standard_normal(shape).astype(dtype)
        return np.zeros(shape, dtype)
