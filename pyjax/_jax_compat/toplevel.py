"""Names of JAX's public modules that libraries touch at import but pyjax does not implement yet.

With the switch on, each is set on pyjax's module of that name (`jax` is pyjax, `jax.sharding`
is pyjax.sharding) when that module lacks it, so the library imports; using one raises
NotImplementedError. Once pyjax implements a name, its own object is used.
(chex wraps `jax.pmap` with functools.wraps at import, equinox applies it to learn its type;
flax annotates with `jax.sharding.Mesh | jax.sharding.AbstractMesh`.)"""
from __future__ import annotations

import enum
import functools

import ml_dtypes
import numpy as np

from pyjax._jax_compat._unsupported import UnsupportedType, unsupported, unsupported_transform
from pyjax._jax_compat.extend import random as _ext_random
from pyjax._jax_compat.extend.core import primitives as _primitives
from pyjax._jax_compat.interpreters.partial_eval import PartialVal as _PartialVal
from pyjax._src import ad_api as _ad_api, api_vmap as _api_vmap, config as _config
from pyjax._src import api as _api, core as _core, errors as _errors, sharding as _sharding
from pyjax._src import dispatch as _dispatch
from pyjax._src.lax import linalg_structured as _linalg_structured
from pyjax._src.pjit import jit as _jit
from pyjax._src.random import keys as _keys
from pyjax import ref as _ref

_NO_MESHES = "pyjax has no device meshes yet (they come with the multi-device issue)"


class Mesh(UnsupportedType):
    pass


class NamedSharding(UnsupportedType):
    pass


class PartitionSpec(UnsupportedType):
    pass


class PmapSharding(UnsupportedType):
    pass


class Ref(UnsupportedType):
    """NB: pyjax has no mutable array references (`jax.new_ref`)."""


class AxisType(enum.Enum):
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()


class AbstractMesh:
    """A mesh's axis names and sizes without devices. pyjax has no mesh context, so the only
    one it hands out is the empty mesh (`get_abstract_mesh()`, outside any mesh in JAX too)."""

    def __init__(self, axis_sizes=(), axis_names=(), *, axis_types=None):
        if axis_sizes:
            raise NotImplementedError(f"jax.sharding.AbstractMesh: {_NO_MESHES}")
        self.axis_sizes, self.axis_names, self.axis_types = (), (), ()

    empty = property(lambda self: True)
    shape = property(lambda self: {})
    size = property(lambda self: 1)

    def __repr__(self):
        return "AbstractMesh((), axis_types=())"


_EMPTY_MESH = AbstractMesh()


def get_abstract_mesh() -> AbstractMesh:
    return _EMPTY_MESH


# JAX 0.10.2's lists of its dtypes (those the installed ml_dtypes has).
_FLOAT8_TYPES = ("float8_e3m4 float8_e4m3 float8_e8m0fnu float8_e4m3b11fnuz float8_e4m3fn "
                 "float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz").split()
_JAX_TYPES = ("bool uint1 uint2 uint4 uint8 uint16 uint32 uint64 int1 int2 int4 int8 int16 "
              "int32 int64 float4_e2m1fn float6_e2m3fn float6_e3m2fn".split() + _FLOAT8_TYPES
              + "bfloat16 float16 float32 float64 complex64 complex128".split())


def _dtype_list(names):
    found = [getattr(ml_dtypes, n, None) or getattr(np, n, None) for n in names]
    return [np.dtype(t) for t in found if t is not None]


_canonicalize_value_handlers: dict = {}
_UNSPECIFIED = object()


class _NoTokens:
    """Stands for JAX's runtime tokens of ordered effects, kept between calls (pyjax keeps
    none): `clear()` does nothing."""

    def clear(self) -> None:
        pass


class _NoCache:
    """Stands for a JAX cache pyjax does not keep: clearing it does nothing."""

    def cache_clear(self) -> None:
        pass

    def __call__(self, *args, **kwargs):
        raise NotImplementedError("a JAX-internal cached helper pyjax does not have")


def _pjit(fun, in_shardings=_UNSPECIFIED, out_shardings=_UNSPECIFIED, **kwargs):
    """JAX's deprecated `pjit`: `jit` with the shardings as positional arguments."""
    if in_shardings is not _UNSPECIFIED:
        kwargs["in_shardings"] = in_shardings
    if out_shardings is not _UNSPECIFIED:
        kwargs["out_shardings"] = out_shardings
    return _jit(fun, **kwargs)


def _simple_impl(prim) -> None:
    """JAX's `dispatch.simple_impl`: `prim` evaluates eagerly by compiling itself alone."""
    prim.def_impl(functools.partial(_dispatch.apply_primitive, prim))


def _valid_jaxtype(x) -> bool:
    """Whether `x` is a value JAX can abstract (an array of a JAX dtype, a scalar, ...)."""
    try:
        _core.get_aval(x)
    except TypeError:
        return False
    return True


def _register_canonicalize_value_handler(cls, handler) -> None:
    """JAX lets a type say how its values canonicalize; pyjax records the registration and
    does not consult it (values of such types are refused where they are used)."""
    _canonicalize_value_handlers[cls] = handler


STUBS = {
    "": {"pmap": unsupported_transform("jax.pmap", "use jax.vmap, or jax.jit with shardings"),
         "Ref": Ref, "new_ref": unsupported("jax.new_ref", "pyjax has no mutable arrays")},
    "sharding": {
        "Mesh": Mesh, "NamedSharding": NamedSharding, "PartitionSpec": PartitionSpec,
        "PmapSharding": PmapSharding, "AxisType": AxisType, "AbstractMesh": AbstractMesh,
        "get_abstract_mesh": get_abstract_mesh,
        "reshard": unsupported("jax.sharding.reshard", _NO_MESHES),
        "auto_axes": unsupported("jax.sharding.auto_axes", _NO_MESHES),
        "explicit_axes": unsupported("jax.sharding.explicit_axes", _NO_MESHES),
    },
    # Private names of pyjax's own modules that JAX's test files import at module level.
    "_src.mesh": {"use_abstract_mesh": unsupported("jax._src.mesh.use_abstract_mesh")},
    # jax._src.api holds all the transformations; pyjax's are in ad_api, api_vmap and pjit.
    "_src.api": {"jit": _jit, "disable_jit": _config.disable_jit, "vmap": _api_vmap.vmap,
                 **{n: getattr(_ad_api, n) for n in (
                     "grad", "value_and_grad", "jacfwd", "jacrev", "jacobian", "hessian", "jvp",
                     "linearize", "vjp", "linear_transpose", "NotNeeded") if hasattr(_ad_api, n)}},
    # NB: pyjax keeps no ordered-effect tokens between calls, so there is nothing to clear.
    "_src.dispatch": {"runtime_tokens": _NoTokens(), "simple_impl": _simple_impl},
    "_src.lax.control_flow.common": {"_dedup_consts": _NoCache(), "_pad_constvars": _NoCache()},
    # lax.linalg's structured functions sit in pyjax's linalg_structured (it imports linalg.py)
    "_src.lax.linalg": {"ormqr": _linalg_structured.ormqr, "ormqr_p": _linalg_structured.ormqr_p},
    "_src.core": {"call_p": _primitives.call_p, "typeof": _api.typeof,
                  "ShardingTypeError": _errors.ShardingTypeError,
                  "ConcretizationTypeError": _errors.ConcretizationTypeError,
                  "TracerArrayConversionError": _errors.TracerArrayConversionError,
                  "TracerIntegerConversionError": _errors.TracerIntegerConversionError,
                  "TracerBoolConversionError": _errors.TracerBoolConversionError,
                  "closed_call_p": _primitives.closed_call_p,
                  # mutable references (jax.new_ref / jax.freeze are these)
                  "new_ref": _ref.new_ref, "freeze": _ref.freeze,
                  "valid_jaxtype": _valid_jaxtype},
    "_src.pjit": {"pjit": _pjit,"_pjit_lower": unsupported("jax._src.pjit._pjit_lower"),
                  "make_jit_cpp_cache": unsupported("jax._src.pjit.make_jit_cpp_cache")},
    "_src.shard_map": {"top_level_all_gather": unsupported("jax._src.shard_map.top_level_all_gather")},
    "_src.sharding": {"common_devices_indices_map": unsupported(
        "jax._src.sharding.common_devices_indices_map"), "IndivisibleError": _sharding.IndivisibleError},
    "experimental": {"primal_tangent_dtype": unsupported("jax.experimental.primal_tangent_dtype")},
    # JAX's internal key-array vocabulary, pyjax's objects of the same meaning (random.keys)
    "_src.random": {"default_prng_impl": _keys.default_prng_impl},
    "_src.random.prng": {"PRNGKeyArray": _keys.PRNGKeyArray, "KeyTy": _keys.KeyTy,
                         "seed_with_impl": _ext_random.seed_with_impl,
                         "random_seed": _keys.random_seed, "random_wrap": _keys.random_wrap,
                         "random_unwrap": _keys.random_unwrap, "random_bits": _keys.random_bits},
    "_src.state.primitives": {"pin": unsupported("jax._src.state.primitives.pin"),
                              "unpin": unsupported("jax._src.state.primitives.unpin")},
    "_src.state.discharge": {
        "run_state_reference": unsupported("jax._src.state.discharge.run_state_reference")},
    "_src.interpreters.partial_eval": {"PartialVal": _PartialVal},
    # the sparsify internals a few of JAX's sparsify tests drive directly
    "experimental.sparse.transform": {n: unsupported(f"jax.experimental.sparse.transform.{n}")
                                      for n in ("arrays_to_spvalues", "spvalues_to_arrays",
                                                "sparsify_raw")}
    | {n: type(n, (UnsupportedType,), {}) for n in ("SparsifyValue", "SparsifyEnv")},
    "_src.dtypes": {"register_canonicalize_value_handler": _register_canonicalize_value_handler,"_jax_types": _dtype_list(_JAX_TYPES), "_weak_types": [int, float, complex],
                    "_float8_dtypes": _dtype_list(_FLOAT8_TYPES)},
}
