"""The course's Fashion-MNIST MLP (784 -> 128 -> 10, ReLU) as used by `make demo`
(apps/demo.py) and `make bench` (benchmarks/mlp.py): data, training with a
weight cache, the three Tessera modules of chapter 3, peer engines and timing.
"""
