"""``tvm.relax.op.nn``: Relax neural-network operators (TVM v0.18 names and
signatures): activations, softmax, normalization and dropout (nn.py), conv2d
(convolution.py), pooling (pooling.py), losses (loss.py). Each op is one registration in
src/relax/op/nn/ (struct-info inference) plus its legalization to TOPI beside
its Python constructor; ``R.nn.<op>`` in TVMScript."""
from .nn import relu, leakyrelu, gelu, gelu_tanh, silu, softmax, log_softmax, layer_norm, group_norm, batch_norm, dropout
from .convolution import conv1d, conv2d, conv3d, conv1d_transpose, conv2d_transpose
from .pooling import max_pool2d, avg_pool2d, adaptive_avg_pool2d
from .loss import cross_entropy_with_logits, nll_loss
from .attention import attention
