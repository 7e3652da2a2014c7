"""Shared by the Relay-style API tests (frontend/test_relay_api.py,
cli/test_cli.py): the NumPy oracle of relay.testing's MLP workload."""
import numpy as np


def mlp_oracle(x, params):
    """softmax(fc3(relu(fc2(relu(fc1(flatten(x))))))) with ``params`` by name (NumPy arrays)."""
    h = x.reshape(x.shape[0], -1)
    h = np.maximum(h @ params["fc1_weight"].T + params["fc1_bias"], 0)
    h = np.maximum(h @ params["fc2_weight"].T + params["fc2_bias"], 0)
    h = h @ params["fc3_weight"].T + params["fc3_bias"]
    e = np.exp(h - h.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)
