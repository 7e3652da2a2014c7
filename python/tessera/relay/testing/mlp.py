"""``relay.testing.mlp``: the three-layer perceptron of TVM's Relay
workloads (128 and 64 hidden units, ReLU, softmax) as a Relax module with
random weights; input "data" of (batch_size, *image_shape), flattened."""
import numpy as np

from ... import relax
from .init import create_workload
from .layers import WorkloadBuilder


def get_net(batch_size, num_classes=10, image_shape=(1, 28, 28), dtype="float32"):
    """The MLP IRModule (weights as parameters of "main")."""
    data = relax.Var("data", relax.TensorStructInfo((batch_size, *image_shape), dtype))
    in_units = int(np.prod(image_shape))

    def body(net, x):
        x = net.emit(relax.op.reshape(x, (batch_size, in_units)))
        x = net.relu(net.dense(x, "fc1", 128, in_units))
        x = net.relu(net.dense(x, "fc2", 64, 128))
        x = net.dense(x, "fc3", num_classes, 64)
        return net.emit(relax.op.nn.softmax(x))

    return WorkloadBuilder(dtype).module(data, body)


def get_workload(batch_size, num_classes=10, image_shape=(1, 28, 28), dtype="float32", seed=0):
    """``(mod, params)``: the MLP and random weights (``seed``) by name."""
    image_shape = tuple(int(d) for d in image_shape)
    return create_workload(get_net(int(batch_size), int(num_classes), image_shape, dtype), seed)
