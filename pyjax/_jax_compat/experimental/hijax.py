"""`jax.experimental.hijax`: JAX's "high-level types" API. flax.nnx subclasses its classes at
import (its hijax Variables), so they are importable here; pyjax has no high-level types, so
binding a HiPrimitive or using a registered hitype raises NotImplementedError. (flax uses them
only with `flax_hijax_variable` on, which is off by default.)"""
from __future__ import annotations

from pyjax._src.core import ShapedArray as ShapedArray
from pyjax._src.interpreters.ad import Zero as Zero
from pyjax._src.interpreters.ad import instantiate as instantiate_zeros
from pyjax._src.interpreters.ad import is_undefined_primal as is_undefined_primal
from pyjax._jax_compat.core import AbstractValue as AbstractValue
from pyjax._src.state.types import AbstractRef as AbstractRef
from pyjax._jax_compat._unsupported import UnsupportedType

_WHY = "pyjax has no high-level (hijax) types"


class HiPrimitive:
    """A primitive over high-level types: subclassable and instantiable, not bindable."""

    multiple_results = False

    def __init__(self, name):
        self.name = name

    def bind(self, *args, **params):
        raise NotImplementedError(f"{self.name}: {_WHY}")

    def __repr__(self):
        return self.name


class VJPHiPrimitive(HiPrimitive):
    pass


class HiType(AbstractValue):
    is_high = True


class MutableHiType(HiType):
    mutable = True


class AvalQDD(UnsupportedType):
    pass


class AvalMutableQDD(UnsupportedType):
    pass


class HiPspec(UnsupportedType):
    pass


class TransformedRef(UnsupportedType):
    pass


class aval_property(property):
    """A property computed on the abstract value (JAX's hitype attribute protocol)."""


class aval_method:
    """A method run on the abstract value (JAX's hitype attribute protocol)."""

    def __init__(self, fun):
        self.fun = fun


_hitypes: dict = {}


def register_hitype(typ, to_aval) -> None:
    """Recorded, not used: pyjax does not trace high-level types."""
    _hitypes[typ] = to_aval


class EffectTypeSet:
    """A set of effect classes (JAX's `effects.EffectTypeSet`)."""

    def __init__(self):
        self._types: set = set()

    def add_type(self, typ) -> None:
        self._types.add(typ)

    def contains(self, effect) -> bool:
        return any(isinstance(effect, t) for t in self._types)


control_flow_allowed_effects = EffectTypeSet()
