"""Tessera demo: a short tour of what works today.

Run with `make demo`.  (Later issues turn this into the Fashion-MNIST
end-to-end demo: import a PyTorch model, compile, tune, run.)
"""
import numpy as np
import torch

import tessera as tvm


def main():
    print("Tessera", tvm.__version__, "- runtime tour\n")

    # 1. NDArrays: copies from NumPy, 64-byte aligned, on a device.
    a = tvm.nd.array(np.arange(12, dtype="float32").reshape(3, 4))
    print("1. tvm.nd.array:", a.shape, a.dtype, a.device)

    # 2. Zero-copy exchange with PyTorch and NumPy through DLPack.
    t = torch.from_dlpack(a)
    t.mul_(10)  # written through PyTorch ...
    print("2. after torch mul_ through DLPack, Tessera sees:", a.numpy()[0])
    back = tvm.nd.from_dlpack(torch.ones(2, 2))
    print("   tvm.nd.from_dlpack(torch.ones(2, 2)) ->", back.numpy().tolist())

    # 3. The global function registry: Python functions called from C++.
    @tvm.register_func("demo.square", override=True)
    def square(x):
        return x * x

    call_from_cpp = tvm.get_global_func("testing.call_packed")
    print("3. C++ calling the Python function demo.square(7):", call_from_cpp(square, 7))

    # 4. C++ functions called from Python with NDArrays.
    scale = tvm.get_global_func("testing.ndarray_scale_f32")
    scale(a, 0.5)
    print("4. C++ scaled the array in place:", a.numpy()[0])

    # 5. Errors cross the boundary as Python exceptions naming the culprit.
    try:
        tvm.nd.empty((2, -1))
    except ValueError as err:  # also a tvm.TVMError
        print("5. ValueError:", err)

    print("\nDevices: cpu exists =", tvm.cpu(0).exist, "; cuda exists =", tvm.cuda(0).exist)


if __name__ == "__main__":
    main()
