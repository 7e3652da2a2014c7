"""`tvm.topi.nn`: neural-network operators written in TE (relu, silu, gelu, softmax,
log_softmax, dense, matmul, batch_matmul, layer_norm, flatten, pad, conv2d
(NCHW), group_conv2d_nchw, conv1d_ncw, conv3d_ncdhw, conv2d_transpose_nchw, pool2d, adaptive_pool, batch_norm, upsampling
(nearest) so far;
other names raise NotImplementedError)."""
from .elemwise import relu, leaky_relu, silu, gelu, gelu_tanh
from .softmax import softmax, log_softmax
from .dense import dense, matmul
from .batch_matmul import batch_matmul
from .layer_norm import layer_norm, flatten
from .pad import pad
from .conv2d import conv2d, conv2d_nchw, group_conv2d_nchw
from .conv2d_packed import conv2d_channel_block, conv2d_group_block, conv2d_pack_weight, conv2d_pack_weight_numpy, \
    conv2d_nchw_packed
from .conv2d_1x1 import conv2d_nchw_1x1
from .conv2d_winograd import conv2d_nchw_winograd, conv2d_winograd_weight_transform, winograd_transform_constants
from .conv1d import conv1d_ncw, group_conv1d_ncw
from .conv3d import conv3d_ncdhw
from .conv2d_transpose import conv2d_transpose_nchw, group_conv2d_transpose_nchw
from .pooling import pool2d, max_pool2d, avg_pool2d, adaptive_pool
from .batch_norm import batch_norm
from .group_norm import group_norm
from .upsampling import upsampling
from ..._unavailable import missing_attribute

__getattr__ = missing_attribute("topi.nn")
