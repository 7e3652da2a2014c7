"""``relay.testing.resnet``: ResNet-18/34/50/101/152 (pre-activation, as TVM's
Relay workload) built as a Relax module with random weights, for trying
``relay.build`` and the graph executor on a real-size network. Input
"data" of (batch_size, *image_shape), output the class probabilities."""
from ... import relax
from ...error import OpNotImplemented, TVMValueError
from .init import create_workload
from .layers import WorkloadBuilder

_UNITS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}


def _unit(net, data, name, in_ch, out_ch, stride, same_shape, bottleneck):
    act = net.relu(net.batch_norm(data, f"{name}_bn1", in_ch))
    if bottleneck:
        mid = out_ch // 4
        x = net.conv2d(act, f"{name}_conv1", mid, in_ch, 1)
        x = net.relu(net.batch_norm(x, f"{name}_bn2", mid))
        x = net.conv2d(x, f"{name}_conv2", mid, mid, 3, stride, 1)
        x = net.relu(net.batch_norm(x, f"{name}_bn3", mid))
        x = net.conv2d(x, f"{name}_conv3", out_ch, mid, 1)
    else:
        x = net.conv2d(act, f"{name}_conv1", out_ch, in_ch, 3, stride, 1)
        x = net.relu(net.batch_norm(x, f"{name}_bn2", out_ch))
        x = net.conv2d(x, f"{name}_conv2", out_ch, out_ch, 3, 1, 1)
    shortcut = data if same_shape else net.conv2d(act, f"{name}_sc", out_ch, in_ch, 1, stride)
    return net.emit(relax.op.add(x, shortcut))


def get_net(batch_size, num_classes, num_layers, image_shape, dtype="float32"):
    """The ResNet IRModule (weights as parameters of "main")."""
    if num_layers not in _UNITS:
        raise TVMValueError(f"resnet: num_layers={num_layers} is not one of {sorted(_UNITS)}")
    bottleneck = num_layers >= 50
    filters = [64, 256, 512, 1024, 2048] if bottleneck else [64, 64, 128, 256, 512]
    channels, height, _ = image_shape
    data = relax.Var("data", relax.TensorStructInfo((batch_size, *image_shape), dtype))

    def body(net, x):
        x = net.batch_norm(x, "bn_data", channels, scale=False)
        if height <= 32:  # CIFAR-size images: one 3x3 stem, no pooling
            x = net.conv2d(x, "conv0", filters[0], channels, 3, 1, 1)
        else:
            x = net.conv2d(x, "conv0", filters[0], channels, 7, 2, 3)
            x = net.relu(net.batch_norm(x, "bn0", filters[0]))
            x = net.emit(relax.op.nn.max_pool2d(x, (3, 3), strides=(2, 2), padding=(1, 1)))
        in_ch = filters[0]
        for stage, units in enumerate(_UNITS[num_layers]):
            for unit in range(units):
                stride = 2 if stage > 0 and unit == 0 else 1
                x = _unit(net, x, f"stage{stage + 1}_unit{unit + 1}", in_ch, filters[stage + 1], stride,
                          unit > 0 or in_ch == filters[stage + 1] and stride == 1, bottleneck)
                in_ch = filters[stage + 1]
        x = net.relu(net.batch_norm(x, "bn1", in_ch))
        x = net.emit(relax.op.nn.adaptive_avg_pool2d(x, (1, 1)))
        x = net.emit(relax.op.reshape(x, (batch_size, in_ch)))
        x = net.dense(x, "fc1", num_classes, in_ch)
        return net.emit(relax.op.nn.softmax(x))

    return WorkloadBuilder(dtype).module(data, body)


def get_workload(batch_size=1, num_classes=1000, num_layers=18, image_shape=(3, 224, 224), dtype="float32",
                 layout="NCHW", seed=0, **kwargs):
    """``(mod, params)``: the ResNet of ``num_layers`` layers and random
    weights (``seed``) keyed by parameter name."""
    if layout != "NCHW":
        raise OpNotImplemented(f"resnet.get_workload(layout={layout!r}): only \"NCHW\" is supported")
    if kwargs:
        raise OpNotImplemented(f"resnet.get_workload: unsupported option(s) {', '.join(sorted(kwargs))}")
    image_shape = tuple(int(d) for d in image_shape)
    if len(image_shape) != 3:
        raise TVMValueError(f"resnet.get_workload: image_shape must be (channels, height, width), got {image_shape}")
    return create_workload(get_net(int(batch_size), int(num_classes), int(num_layers), image_shape, dtype), seed)
