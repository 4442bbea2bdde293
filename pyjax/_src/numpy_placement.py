"""The `device=` argument of jax.numpy's creation functions (`zeros`, `arange`, `array`,
`fft.fftfreq`, ...): the result is placed on that device or sharding, as `jax.device_put` does.

The numpy layer cannot place arrays (device_put sits in the api layer), so its functions accept
`device` and ignore it; `pyjax.numpy` exports the versions made here. Under a transformation the
traced result is returned as it is (pyjax's abstract values carry no placement yet).
"""
from __future__ import annotations

import functools

from pyjax._src import core, tree_util
from pyjax._src.api import device_put
from pyjax._src.numpy import arrays, creation
from pyjax._src.numpy import fft as jfft
from pyjax._src.reshard import reshard


def _place(x, device):
    return x if isinstance(x, core.Tracer) else device_put(x, device)


def placed(fun):
    """`fun` (which takes and ignores `device=`) with its result placed on `device`."""
    @functools.wraps(fun)
    def wrapped(*args, device=None, **kwargs):
        out = fun(*args, **kwargs)
        if device is None:
            return out
        return tree_util.tree_map(lambda x: _place(x, device), out)
    return wrapped


def placed_or_sharded(fun):
    """`placed(fun)` taking JAX's `out_sharding=` too (a NamedSharding, or a PartitionSpec over
    the mesh in context): the result laid out so, its type saying it under a trace."""
    place = placed(fun)

    @functools.wraps(fun)
    def wrapped(*args, device=None, out_sharding=None, **kwargs):
        if out_sharding is None:
            return place(*args, device=device, **kwargs)
        if device is not None:
            raise ValueError(f"Only one of `device` or `out_sharding` can be set. Got "
                             f"device={device!r} and out_sharding={out_sharding!r}")
        return reshard(fun(*args, **kwargs), out_sharding)
    return wrapped


_CREATION = ("array", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
             "empty_like", "full_like", "arange", "linspace", "eye")

# name in pyjax.numpy -> the placing version
_SHARDED = ("array", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
            "full_like", "arange")  # (those that take out_sharding= in JAX 0.10.2)
FUNCTIONS = {name: (placed_or_sharded if name in _SHARDED else placed)(getattr(creation, name))
             for name in _CREATION}
FUNCTIONS["astype"] = placed(arrays.astype)
FFT_FUNCTIONS = {name: placed(getattr(jfft, name)) for name in ("fftfreq", "rfftfreq")}
