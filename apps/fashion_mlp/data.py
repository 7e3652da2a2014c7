"""Loads Fashion-MNIST from the IDX files of Debian's dataset-fashion-mnist
package (or $FASHION_MNIST_DIR). Images are scaled to [0, 1] as the course's
torchvision ToTensor() does; no other normalisation.
"""
import gzip
import os
import struct
import subprocess

import numpy as np

CLASS_NAMES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
               "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]

DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"
FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}


def data_dir():
    """The folder holding the four .gz files: $FASHION_MNIST_DIR, the Debian
    package's folder, or wherever `dpkg -L dataset-fashion-mnist` puts them."""
    candidates = [os.environ.get("FASHION_MNIST_DIR"), DEFAULT_DIR]
    for folder in candidates:
        if folder and os.path.exists(os.path.join(folder, FILES["test"][0])):
            return folder
    try:
        listing = subprocess.run(["dpkg", "-L", "dataset-fashion-mnist"], capture_output=True,
                                 text=True, check=False).stdout.split()
    except OSError:
        listing = []
    for path in listing:
        if path.endswith(FILES["test"][0]):
            return os.path.dirname(path)
    raise FileNotFoundError(
        "Fashion-MNIST not found: install Debian's dataset-fashion-mnist (scripts/setup.sh does) "
        "or set FASHION_MNIST_DIR to a folder holding " + ", ".join(FILES["test"]))


def _read_idx(path, magic_expected):
    with gzip.open(path, "rb") as f:
        magic, count = struct.unpack(">II", f.read(8))
        if magic != magic_expected:
            raise ValueError(f"{path}: IDX magic {magic}, expected {magic_expected}")
        dims = struct.unpack(">II", f.read(8)) if magic == 2051 else ()
        raw = f.read()
    arr = np.frombuffer(raw, dtype=np.uint8)
    expected = count * int(np.prod(dims, dtype=np.int64)) if dims else count
    if arr.size != expected:
        raise ValueError(f"{path}: {arr.size} bytes of data, expected {expected}")
    return arr.reshape((count,) + tuple(dims)) if dims else arr


def load(split):
    """(images float32 [N, 784] in [0, 1], labels int64 [N]) for split 'train' or 'test'."""
    folder = data_dir()
    img_file, lbl_file = FILES[split]
    images = _read_idx(os.path.join(folder, img_file), 2051)
    labels = _read_idx(os.path.join(folder, lbl_file), 2049)
    if len(images) != len(labels):
        raise ValueError(f"{split}: {len(images)} images but {len(labels)} labels")
    return images.reshape(len(images), -1).astype(np.float32) / np.float32(255.0), labels.astype(np.int64)
