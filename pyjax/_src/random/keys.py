"""PRNG keys: raw uint32 keys (`PRNGKey`), typed key arrays (`key`), and the key operations
(`split`, `fold_in`, `bits`, `clone`, `key_data`, `wrap_key_data`, `key_impl`, `key_dtype`).

A typed key array is a `PRNGKeyArray`: its key data (a uint32 array whose trailing dims are the
implementation's key shape) and the implementation. It is a pytree node whose one child is the
data and whose aux data is the implementation, so jit, vmap, scan and grad carry keys through
their data.

NB: in JAX a typed key is an array of an extended dtype, so it is one pytree leaf. Here the
public pytree functions (`jax.tree_util`, `jax.tree`: `pyjax._src.tree_api`) see it as one
leaf too, but `pyjax._src.tree_util.tree_leaves(key)` is `[key_data(key)]`;
`isinstance(key, jax.Array)` holds, as in JAX (README, "Differences from JAX").
"""
from __future__ import annotations

import functools
import math
import operator
import warnings
from collections.abc import Sequence

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src.api_vmap import vmap
from pyjax._src.array import Array, ShapeDtypeStruct, extra_array_types
from pyjax._src.config import LegacyPrngKeyState, config
from pyjax._src.custom_derivatives import CustomVJPPrimal
from pyjax._src.interpreters.ad import SymbolicZero
from pyjax._src.mesh import get_abstract_mesh
from pyjax._src.numpy import creation
from pyjax._src.numpy import reductions as jnp_reductions
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.util import is_arraylike
from pyjax._src.reshard import auto_axes
from pyjax._src.random import prng
from pyjax._src.random import philox, rbg, threefry4x32
from pyjax._src.random.prng import PRNGImpl
from pyjax._src.sharding import NamedSharding, PartitionSpec

# The built-in key implementations, registered in JAX 0.10.2's order (jax.random.key(..., impl=)
# names them; JAX's tests enumerate them in this order).
for _impl in (philox.philox2x32_prng_impl, philox.philox4x32_prng_impl, prng.threefry_prng_impl,
              rbg.rbg_prng_impl, rbg.unsafe_rbg_prng_impl, threefry4x32.threefry4x32_prng_impl):
    prng.register_prng(_impl)
del _impl

# -- the key dtype ---------------------------------------------------------------------------


class KeyTy(dtypes.ExtendedDType):
    """The dtype of a typed key array: `key<fry>` for threefry2x32 keys."""
    type = dtypes.prng_key
    _rules = None  # (JAX's per-dtype rules: pyjax keys are pytrees instead, see the module doc)

    def __init__(self, impl: PRNGImpl):
        self._impl = impl

    @property
    def name(self) -> str:
        return f"key<{self._impl.tag}>"

    @property
    def itemsize(self) -> int:
        return math.prod(self._impl.key_shape) * 4

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return type(other) is KeyTy and self._impl == other._impl

    def __hash__(self):
        return hash((KeyTy, self._impl))

    def abstract_keys(self, shape) -> PRNGKeyArray:
        """Keys of this dtype and `shape` over a ShapeDtypeStruct of their data: what tracing
        makes of a `ShapeDtypeStruct(shape, key<...>)` argument (eval_shape's keys)."""
        data = ShapeDtypeStruct(tuple(shape) + tuple(self._impl.key_shape), np.dtype(np.uint32))
        return PRNGKeyArray(self._impl, data)


# -- typed key arrays ----------------------------------------------------------------------------


class KeyAval:
    """What `jax.typeof` gives for a key array: its shape and key dtype. NB: in JAX this is a
    ShapedArray of an extended dtype that jaxprs carry; pyjax traces a key through its data
    (a pytree), so this aval only answers questions about keys (shape, dtype, sharding)."""
    __slots__ = ("shape", "dtype")
    weak_type = False
    sharding = None

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    def str_short(self, short_dtypes=True):
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"

    def __repr__(self):
        return f"ShapedArray({self.str_short()})"

    def __eq__(self, other):
        return type(other) is KeyAval and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))



class PRNGKeyArray:
    """An array of PRNG keys: `shape` is the key data's shape without the trailing key dims.

    >>> keys = split(key(0), 4)
    >>> keys.shape, keys[1:3].shape, keys.reshape(2, 2).shape
    ((4,), (2,), (2, 2))
    """
    __slots__ = ("_impl", "_base_array")
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, impl: PRNGImpl, key_data):
        # no checks: pytree unflattening rebuilds keys around tracers and placeholders
        self._impl = impl
        self._base_array = key_data

    @property
    def shape(self) -> tuple:
        return tuple(self._base_array.shape[:self._base_array.ndim - len(self._impl.key_shape)])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> KeyTy:
        return KeyTy(self._impl)

    @property
    def aval(self) -> KeyAval:
        return KeyAval(self.shape, self.dtype)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.itemsize * self.size

    def _wrap(self, data) -> PRNGKeyArray:
        return PRNGKeyArray(self._impl, data)

    def _float0_tangent(self, t) -> PRNGKeyArray:
        """The key-array form of a float0 tangent `t` of these keys (JAX's tangent type of keys,
        of their shape): float0 data of the key data's shape (tree_api.opaque_tangents)."""
        return PRNGKeyArray(self._impl, np.zeros(tuple(t.shape) + self._impl.key_shape, t.dtype))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __getitem__(self, idx):
        """Indexing picks keys: it applies to the leading dims, never to the key data's own."""
        idx = idx if isinstance(idx, tuple) else (idx,)
        return self._wrap(self._base_array[(*idx, *(slice(None),) * len(self._impl.key_shape))])

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], Sequence):
            shape = tuple(shape[0])
        return self._wrap(self._base_array.reshape(*shape, *self._impl.key_shape, order=order))

    def ravel(self):
        return self.reshape(-1)

    flatten = ravel

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], Sequence)):
            axes = axes[0]
        axes = tuple(range(self.ndim))[::-1] if axes in (None, ()) else tuple(axes)
        axes = tuple(operator.index(a) % self.ndim for a in axes)
        return self._wrap(self._base_array.transpose(*axes, *range(self.ndim, self._base_array.ndim)))

    @property
    def T(self):
        return self.transpose()

    def squeeze(self, axis=None):
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        return self._wrap(self._base_array.squeeze(axis))

    def copy(self):
        return self._wrap(creation.array(self._base_array, copy=True))

    @property
    def at(self):
        """`keys.at[idx].get()` / `.set(other_keys)`: indexed reads and updates of keys."""
        return _KeyIndexer(self)

    def block_until_ready(self):
        self._base_array.block_until_ready()
        return self

    # placement: the key data's (JAX's key arrays answer for their base array)
    device = property(lambda self: self._base_array.device)

    @property
    def sharding(self):
        """The key data's sharding without its trailing key dimensions (which are never split),
        as JAX's key arrays report it."""
        s = self._base_array.sharding
        if not isinstance(s, NamedSharding):
            return s
        ndim = self._base_array.ndim
        spec = tuple(s.spec) + (None,) * (ndim - len(s.spec))
        return s.with_spec(PartitionSpec(*spec[:self.ndim]))
    is_fully_addressable = property(lambda self: self._base_array.is_fully_addressable)

    def devices(self):
        return self._base_array.devices()

    def copy_to_host_async(self):
        self._base_array.copy_to_host_async()

    def __eq__(self, other):
        if not isinstance(other, PRNGKeyArray) or other._impl != self._impl:
            return NotImplemented
        axes = tuple(range(-len(self._impl.key_shape), 0))
        return jnp_reductions.all(ufuncs.equal(self._base_array, other._base_array), axis=axes)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else ufuncs.logical_not(eq)

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
                        "jax.random.key_data(arr) if you wish to extract the underlying integer array.")

    def __repr__(self):
        return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{self._base_array}"

    __str__ = __repr__


class _KeyIndexer:
    __slots__ = ("keys",)

    def __init__(self, keys):
        self.keys = keys

    def __getitem__(self, idx):
        return _KeyIndexRef(self.keys, idx)


class _KeyIndexRef:
    __slots__ = ("keys", "idx")

    def __init__(self, keys, idx):
        self.keys, self.idx = keys, idx

    def get(self, **kwargs):
        return keys_through(lambda x: x.at[self.idx].get(**kwargs))(self.keys)

    def set(self, values, **kwargs):
        return keys_through(lambda x, v: x.at[self.idx].set(v, **kwargs))(self.keys, values)


# -- NumPy and lax functions on key arrays ----------------------------------------------------


def keys_through(fun):
    """`fun` (a function that moves, picks or fills elements: reshape, concatenate, where,
    dynamic_slice, full_like ...) taking key arrays where it takes arrays, and key dtypes
    where it takes a dtype, as JAX's key arrays go through them: it runs on the key data,
    vmapped over the trailing key dimensions (so it sees the key array's shape and axes), and
    the arrays it returns are key arrays of the same implementation."""
    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        if not _involves_keys(args, kwargs):
            return fun(*args, **kwargs)
        leaves, tree = tree_util.tree_flatten((args, kwargs), is_leaf=_is_key_leaf)
        impls = {x._impl if type(x) is PRNGKeyArray else x._impl for x in leaves
                 if type(x) in (PRNGKeyArray, KeyTy)}
        if len(impls) > 1:
            raise TypeError(f"{getattr(fun, '__name__', 'function')}: key arrays of different "
                            f"implementations: {', '.join(sorted(str(i) for i in impls))}")
        impl, = impls
        at = [i for i, x in enumerate(leaves) if type(x) is PRNGKeyArray]
        leaves = [np.dtype(np.uint32) if type(x) is KeyTy else x for x in leaves]

        def call(*datas):
            filled = list(leaves)
            for i, d in zip(at, datas):
                filled[i] = d
            a, kw = tree_util.tree_unflatten(tree, filled)
            return fun(*a, **kw)

        if at:
            for _ in impl.key_shape:  # (one vmap per trailing key dimension)
                call = vmap(call, in_axes=-1, out_axes=-1)
            out = call(*[leaves[i]._base_array for i in at])
        else:  # a key dtype only (zeros(shape, dtype=key<fry>)): each word of the data so
            out = tree_util.tree_map(
                lambda o: creation.broadcast_to(o[(...,) + (None,) * len(impl.key_shape)],
                                                (*np.shape(o), *impl.key_shape)), call())
        return tree_util.tree_map(lambda o: PRNGKeyArray(impl, o), out)
    return wrapped


def _is_key_leaf(x):
    return type(x) is PRNGKeyArray


def _involves_keys(args, kwargs):
    for a in (*args, *kwargs.values()):
        t = type(a)
        if t is PRNGKeyArray or t is KeyTy:
            return True
        if (t is list or t is tuple) and any(type(b) is PRNGKeyArray for b in a):
            return True
    return False


# The functions of jax.numpy and jax.lax that take key arrays (their results are key arrays).
NUMPY_FUNCTIONS = (
    "array", "asarray", "reshape", "ravel", "tile", "repeat", "concatenate", "stack", "hstack",
    "vstack", "append", "broadcast_to", "broadcast_arrays", "expand_dims", "squeeze",
    "transpose", "swapaxes", "moveaxis", "flip", "roll", "where", "take", "split", "unstack",
    "full", "zeros", "ones", "empty", "full_like", "zeros_like", "ones_like", "empty_like",
)
LAX_FUNCTIONS = (
    "select", "select_n", "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
    "dynamic_index_in_dim", "dynamic_update_slice_in_dim", "dynamic_update_index_in_dim",
    "slice", "slice_in_dim", "index_in_dim", "concatenate", "reshape", "squeeze",
    "expand_dims", "transpose", "broadcast", "broadcast_in_dim", "rev", "full_like",
)


def with_key_arrays(namespace: dict, names) -> dict:
    """The functions `names` of `namespace` (a module's globals) taking key arrays."""
    return {n: keys_through(namespace[n]) for n in names if n in namespace}


def _unflatten_keys(impl, children):
    """A key array around its data, as the transformations rebuild keys. What JAX's rules see
    at a key's place is kept: a tangent or cotangent of keys is float0 of the keys' shape (a
    NumPy array, or a SymbolicZero in a symbolic-zeros rule), a symbolic-zeros fwd rule gets a
    CustomVJPPrimal of the key array."""
    data, = children
    t = type(data)
    if t is CustomVJPPrimal:
        return CustomVJPPrimal(PRNGKeyArray(impl, data.value), data.perturbed)
    if (t is np.ndarray or t is SymbolicZero) and dtypes.is_float0(data.dtype):
        shape = data.shape[:len(data.shape) - len(impl.key_shape)]
        return np.zeros(shape, data.dtype) if t is np.ndarray else SymbolicZero(data.aval.update(shape=shape))
    return PRNGKeyArray(impl, data)


tree_util.register_pytree_node(PRNGKeyArray, lambda k: ((k._base_array,), k._impl), _unflatten_keys)
extra_array_types.add(PRNGKeyArray)  # isinstance(key(0), jax.Array), as in JAX
tree_util.opaque_leaf_types.add(PRNGKeyArray)  # a leaf of jax.tree_util's functions, as in JAX


# -- choosing an implementation --------------------------------------------------------------

# Implementations JAX 0.10.2 has and pyjax does not (yet).
class PRNGSpec:
    """Names a key implementation (what `key_impl` returns for unregistered ones)."""
    __slots__ = ("_impl",)

    def __init__(self, impl: PRNGImpl):
        self._impl = impl

    def __repr__(self):
        return f"PRNGSpec({self._impl.name!r})"

    def __str__(self):
        return str(self._impl)

    def __hash__(self):
        return hash(self._impl)

    def __eq__(self, other):
        return isinstance(other, PRNGSpec) and self._impl == other._impl


def _impl_by_name(name: str) -> PRNGImpl:
    if name in prng.prngs:
        return prng.prngs[name]
    names = ", ".join(f'"{s}"' for s in prng.prngs)
    raise ValueError(f'unrecognized PRNG implementation "{name}". Did you mean one of: {names}?')


def default_prng_impl() -> PRNGImpl:
    """The implementation named by the `jax_default_prng_impl` flag."""
    return _impl_by_name(config._values["jax_default_prng_impl"])


def resolve_prng_impl(impl_spec) -> PRNGImpl:
    if impl_spec is None:
        return default_prng_impl()
    if type(impl_spec) is PRNGImpl:
        return impl_spec
    if type(impl_spec) is PRNGSpec or type(impl_spec) is KeyTy:
        return impl_spec._impl
    if type(impl_spec) is str:
        return _impl_by_name(impl_spec)
    raise TypeError(f"unrecognized type {type(impl_spec)} for specifying PRNG implementation.")


def key_dtype(impl_spec=None) -> KeyTy:
    """The dtype of keys of an implementation: `key_dtype()` is `key<fry>`."""
    return KeyTy(resolve_prng_impl(impl_spec))


# -- checking keys ---------------------------------------------------------------------------


def _check_key_data(impl: PRNGImpl, data):
    """TypeError unless `data` can be the data of `impl` keys (JAX's checks and classes)."""
    if not all(hasattr(data, a) for a in ("ndim", "shape", "dtype")):
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data to have ndim, "
                        f"shape, and dtype attributes. Got {data}")
    if data.ndim < 1:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; "
                        f"got ndim={data.ndim}")
    n = len(impl.key_shape)
    if tuple(data.shape[-n:]) != impl.key_shape:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.shape to end "
                        f"with {impl.key_shape}; got shape={tuple(data.shape)} for impl={impl.name}")
    if data.dtype != np.uint32:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; "
                        f"got dtype={data.dtype}")


def _as_array(x):
    return x if isinstance(x, (Array, core.Tracer)) else creation.asarray(x)


def _legacy_key_checks():
    state = config._values["jax_legacy_prng_key"]
    msg = ("Legacy uint32 key array passed as key to jax.random function. Please create keys "
           "using jax.random.key(). If use of a raw key array was intended, set "
           'jax_legacy_prng_key="allow".')
    if state == LegacyPrngKeyState.ERROR:
        raise ValueError(msg)
    if state == LegacyPrngKeyState.WARN:
        warnings.warn(msg, stacklevel=4)
    elif config._values["jax_enable_custom_prng"]:
        warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                      "Assuming valid threefry2x32 key for now.", FutureWarning, stacklevel=4)


def check_prng_key(name: str, key, *, allow_batched=False) -> tuple[PRNGKeyArray, bool]:
    """`key` as a typed key array, and whether it was a raw key (wrapped with the default
    implementation). A key array of keys is refused unless `allow_batched`."""
    if isinstance(key, PRNGKeyArray):
        typed, wrapped = key, False
    elif is_arraylike(key):
        impl = default_prng_impl()
        _check_key_data(impl, key)
        typed, wrapped = PRNGKeyArray(impl, _as_array(key)), True
        _legacy_key_checks()
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and typed.ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{typed.shape} != (). Use jax.vmap for batching.")
    return typed, wrapped


def return_keys(wrapped: bool, keys: PRNGKeyArray):
    """What a key operation returns: raw data for raw input (unless jax_enable_custom_prng)."""
    if wrapped and not config._values["jax_enable_custom_prng"]:
        return keys._base_array
    return keys


def random_bits(key: PRNGKeyArray, bit_width: int, shape) -> Array:
    """uint{bit_width}[*shape] random bits of one typed key."""
    return key._impl.random_bits(key._base_array, bit_width, tuple(shape))


# -- JAX's internal key-array operations (jax._src.random.prng's names) ------------------------


def random_seed(seeds, impl: PRNGImpl) -> PRNGKeyArray:
    """One key of `impl` per element of `seeds` (an int or an integer array of any shape)."""
    seeds = _seed_array(seeds)
    seed = impl.seed
    for _ in range(np.ndim(seeds)):
        seed = vmap(seed)
    return PRNGKeyArray(impl, seed(seeds))


def random_wrap(base_arr, *, impl: PRNGImpl) -> PRNGKeyArray:
    """The key array of `impl` over uint32 key data (trailing dims: `impl.key_shape`)."""
    _check_key_data(impl, base_arr)
    return PRNGKeyArray(impl, _as_array(base_arr))


def random_unwrap(keys) -> Array:
    """The uint32 data under a key array."""
    if not isinstance(keys, PRNGKeyArray):
        raise TypeError(f"random_unwrap takes key array operand, got {core.get_aval(keys)}")
    return keys._base_array


def split_key(key: PRNGKeyArray, num=2) -> PRNGKeyArray:
    """`split` for typed keys (what the samplers use)."""
    if key.ndim:
        raise TypeError(f"split accepts a single key, but was given a key array of shape "
                        f"{key.shape} != (). Use jax.vmap for batching.")
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    shape = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"split: num must be non-negative, got {num}")
    return key._wrap(key._impl.split(key._base_array, shape))


# -- making keys -----------------------------------------------------------------------------


def _seed_array(seed):
    """As JAX: a Python int seed goes through int64 (so a 64-bit seed is not an overflow with
    x64 off, where it keeps its low 32 bits); anything else through `asarray`."""
    if isinstance(seed, int):  # (bools too, as JAX)
        seed = np.int64(seed)  # OverflowError beyond int64, as JAX
        if not config._values["jax_enable_x64"]:
            seed = seed.astype(np.int32)  # wraps: the low 32 bits
    seed = _as_array(seed)
    offset = config._values["jax_random_seed_offset"]
    return seed + offset if offset else seed


def _key(ctor_name: str, seed, impl_spec) -> PRNGKeyArray:
    impl = resolve_prng_impl(impl_spec)
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (). Use jax.vmap for batching")
    return PRNGKeyArray(impl, impl.seed(_seed_array(seed)))


def key(seed, *, impl=None, dtype=None) -> PRNGKeyArray:
    """A typed PRNG key (a scalar key array) from an integer seed.

    >>> key(0)
    Array((), dtype=key<fry>) overlaying:
    [0 0]
    """
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
        impl = dtype
    return _key("key", seed, impl)


def PRNGKey(seed, *, impl=None):
    """A legacy raw key: the uint32 key data of `seed`.

    >>> PRNGKey(42)
    Array([ 0, 42], dtype=uint32)
    """
    return return_keys(True, _key("PRNGKey", seed, impl))


# -- key operations --------------------------------------------------------------------------


def split(key, num=2):
    """`num` new keys (or an array of keys of shape `num`, a tuple) from one key."""
    typed, wrapped = check_prng_key("split", key)
    return return_keys(wrapped, split_key(typed, num))


def fold_in(key, data):
    """A new key from `key` and a 32-bit integer `data`."""
    typed, wrapped = check_prng_key("fold_in", key)
    if np.ndim(data):
        raise TypeError(f"fold_in accepts a scalar, but was given an array of shape "
                        f"{np.shape(data)} != (). Use jax.vmap for batching.")
    data = creation.asarray(data, dtype=np.uint32)
    return return_keys(wrapped, typed._wrap(typed._impl.fold_in(typed._base_array, data)))


def honours_out_sharding(sampler):
    """`sampler(key, ...)` taking `out_sharding=` as JAX's samplers do: the sample is drawn with
    the mesh's Explicit axes made Auto (XLA lays the computation out) and the result is laid out
    as `out_sharding` (a NamedSharding, or a PartitionSpec over the mesh in context). The values
    are the same as without it."""
    @functools.wraps(sampler)
    def wrapped(key, *args, out_sharding=None, **kwargs):
        if out_sharding is None:
            return sampler(key, *args, **kwargs)
        mesh = (out_sharding.mesh if isinstance(out_sharding, NamedSharding)
                else get_abstract_mesh())
        draw = auto_axes(lambda k: sampler(k, *args, **kwargs), axes=mesh.explicit_axes,
                         out_sharding=out_sharding)
        return draw(key)
    return wrapped


@honours_out_sharding
def bits(key, shape=(), dtype=None, *, out_sharding=None):
    """Uniform random bits as unsigned integers (uint32 by default, uint64 with x64)."""
    typed, _ = check_prng_key("bits", key)
    if dtype is None:
        dtype = dtypes.default_uint_dtype()
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "bits")
    if not dtypes.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return random_bits(typed, dtype.itemsize * 8, canonical_shape(shape, "bits"))


def canonical_shape(shape, name):
    """A static shape as a tuple of ints (a bare int is a 1-d shape, as in JAX)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        out = tuple(d if type(d) in core.symbolic_dim_types else operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"{name}: shape must be a sequence of integers, got {shape!r}") from None
    if any(d < 0 for d in out):
        raise TypeError(f"{name}: shape must have non-negative dimensions, got {out}")
    return out


def clone(key):
    """A copy of `key` that may be consumed separately (JAX's key-reuse checker distinguishes
    them; pyjax has no such checker, so this is the identity).

    NB: JAX binds a `random_clone` primitive here; pyjax has no key-reuse checking to inform."""
    return key


def key_data(keys):
    """The uint32 data underlying a key array."""
    typed, _ = check_prng_key("key_data", keys, allow_batched=True)
    return typed._base_array


def wrap_key_data(key_bits_array, *, impl=None, dtype=None) -> PRNGKeyArray:
    """A typed key array over uint32 key data (trailing dims: the implementation's key shape)."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.wrap_key_data")
        impl = dtype
    impl_obj = resolve_prng_impl(impl)
    _check_key_data(impl_obj, key_bits_array)
    return PRNGKeyArray(impl_obj, _as_array(key_bits_array))


def key_impl(keys):
    """The name of the keys' implementation (`'threefry2x32'`), or a `PRNGSpec`."""
    typed, _ = check_prng_key("key_impl", keys, allow_batched=True)
    impl = typed._impl
    return impl.name if prng.prngs.get(impl.name) is impl else PRNGSpec(impl)
