"""pyjax.nn: activations and helpers (re-exports only)."""
from pyjax._src.nn.functions import (
    elu as elu,
    gelu as gelu,
    hard_tanh as hard_tanh,
    leaky_relu as leaky_relu,
    log_sigmoid as log_sigmoid,
    log_softmax as log_softmax,
    logsumexp as logsumexp,
    one_hot as one_hot,
    relu as relu,
    relu6 as relu6,
    sigmoid as sigmoid,
    silu as silu,
    softmax as softmax,
    softplus as softplus,
    standardize as standardize,
    swish as swish,
)
from pyjax._src.numpy.ufuncs import tanh as tanh
