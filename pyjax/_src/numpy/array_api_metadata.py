"""The Python array API's inspection utilities for jax.numpy: `__array_api_version__`,
`x.__array_namespace__()` and `jnp.__array_namespace_info__()` (capabilities, devices, default
and supported dtypes), as JAX 0.10.2 reports them."""
from __future__ import annotations

import sys

import numpy as np

from pyjax._src import dtypes
from pyjax._src.backend import xla
from pyjax._src.config import x64_enabled

__array_api_version__ = "2024.12"


def __array_namespace__(self, *, api_version=None):
    """`x.__array_namespace__()`: jax.numpy (pyjax.numpy, loaded by `import pyjax`)."""
    if api_version is not None and api_version != __array_api_version__:
        raise ValueError(f"api_version={api_version!r} is not available; available versions "
                         f"are: {[__array_api_version__]}")
    return sys.modules["pyjax.numpy"]


def __array_namespace_info__() -> ArrayNamespaceInfo:
    return ArrayNamespaceInfo()


_KINDS = {  # the array API's dtype kinds, by the names of their members
    "bool": ["bool"],
    "signed integer": ["int8", "int16", "int32", "int64"],
    "unsigned integer": ["uint8", "uint16", "uint32", "uint64"],
    "real floating": ["float32", "float64"],
    "complex floating": ["complex64", "complex128"],
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]
_WIDE = {"int64", "uint64", "float64", "complex128"}  # only with x64


class ArrayNamespaceInfo:
    """What `jnp.__array_namespace_info__()` returns (the array API's inspection object)."""

    def capabilities(self):
        # within transformations neither holds; XLA allows 64 dimensions
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

    def default_device(self):
        return None  # arrays are uncommitted by default

    def devices(self):
        out = [None]  # "uncommitted"
        xla.get_client()  # (the backends, created on first use)
        for backend in list(xla._clients):
            out.extend(xla.devices(backend))
        return out

    def default_dtypes(self, *, device=None):
        return {"real floating": dtypes.default_float_dtype(),
                "complex floating": dtypes.default_complex_dtype(),
                "integral": dtypes.default_int_dtype(), "indexing": dtypes.default_int_dtype()}

    def dtypes(self, *, device=None, kind=None):
        kinds = ("numeric", "bool") if kind is None else kind if isinstance(kind, tuple) else (kind,)
        return {name: np.dtype(name) for k in kinds for name in _KINDS[k]
                if x64_enabled() or name not in _WIDE}
