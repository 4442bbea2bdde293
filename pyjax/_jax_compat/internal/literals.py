"""`jax._src.literals`: JAX's typed host literals, Python scalars and NumPy arrays that carry the
JAX type they were given (their dtype survives later changes of jax_enable_x64).

NB: pyjax never makes these itself (its jaxpr literals keep the Python scalar and its aval), and
does not register them with jaxlib as JAX does (`_jax.set_typed_int_type`): pyjax's dispatch
treats them as the int/float/complex/ndarray they are."""
from __future__ import annotations

import numpy as np

from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.core import ShapedArray


def _typed_scalar(base: type, show):
    class Typed(base):

        def __new__(cls, value, dtype):
            obj = super().__new__(cls, value)
            obj.dtype = np.dtype(dtype)
            obj.aval = ShapedArray((), obj.dtype, weak_type=True)
            return obj

        def __repr__(self):
            return f"{type(self).__name__}({show(self)}, dtype={self.dtype.name})"

        def __getnewargs__(self):
            return (base(self), self.dtype)
    return Typed


class TypedInt(_typed_scalar(int, int)):
    """A Python int of a given JAX integer dtype (weakly typed)."""


class TypedFloat(_typed_scalar(float, float)):
    """A Python float of a given JAX float dtype (weakly typed)."""

    def __str__(self):
        return str(float(self))


class TypedComplex(_typed_scalar(complex, complex)):
    """A Python complex of a given JAX complex dtype (weakly typed)."""


typed_scalar_types: set[type] = {TypedInt, TypedFloat, TypedComplex}


class TypedNdArray(np.ndarray):
    """A host array whose dtype JAX does not canonicalize, optionally weakly typed."""

    def __new__(cls, val, weak_type: bool = False):
        obj = np.asarray(val).view(cls)
        obj._weak_type = bool(weak_type)
        return obj

    def __array_finalize__(self, obj):
        self._weak_type = getattr(obj, "_weak_type", False)

    @property
    def aval(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype, weak_type=self._weak_type)

    @property
    def weak_type(self) -> bool:
        return self._weak_type

    @property
    def val(self) -> np.ndarray:
        return np.asarray(self)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):  # results are plain arrays
        plain = lambda xs: tuple(np.asarray(x) if isinstance(x, TypedNdArray) else x for x in xs)  # noqa: E731
        if "out" in kwargs:
            kwargs["out"] = plain(kwargs["out"])
        return getattr(ufunc, method)(*plain(inputs), **kwargs)

    def __reduce__(self):
        return (TypedNdArray, (np.asarray(self), self._weak_type))


__getattr__ = module_getattr("jax._src.literals")
