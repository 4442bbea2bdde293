"""Ref types: the `AbstractRef` aval, the state effects, indexers and the eager `Ref` object.

A jaxpr variable whose aval is an `AbstractRef` is a mutable buffer: `get`/`swap`/`addupdate`
read and write it with NumPy-style indices, and `discharge_state` turns such a jaxpr into a
functional one. Indexing a ref tracer (`ref[i, pl.ds(j, 4)]`, `ref[...] = v`) binds those
primitives (Tracer.__getitem__ asks the aval, as in JAX).

An index is normalized to an `NDIndexer`: one entry per ref axis, each a `Slice` (static size,
static or traced start, static stride), an integer (static or a traced scalar) or an integer
array; the traced pieces travel as operands of the primitive, the rest is a hashable `spec`.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from pyjax._src import core, dtypes, indexing, tree_util
from pyjax._src.interpreters import ad, batching

# `ref[idx]` and `ref[idx] = v` bind state.primitives' `get`/`swap`, which sit a layer above
# (their rules index as jnp does): state.primitives fills this slot ("get", "set") when it is
# imported (STYLE rule 9: the lower layer holds a registry the upper one fills).
ref_indexing: dict = {}


def _ref_get(ref, idx):
    return _indexing_op("get")(ref, idx)


def _ref_set(ref, idx, value):
    _indexing_op("set")(ref, idx, value)


def _indexing_op(name):
    op = ref_indexing.get(name)
    if op is None:
        raise RuntimeError("indexing a Ref needs pyjax._src.state.primitives (import pyjax)")
    return op


def not_differentiated_error(what, ref):
    # NB: JAX raises a plain Exception here; so does pyjax (same text)
    return Exception(f"performing a {what} operation with a differentiated value on a "
                     f"non-differentiated array reference of type {core.get_aval(ref)!r}. Move "
                     "the array reference to be an argument of the differentiated function?")


def unbatched_write_error(what, ref):
    return Exception(f"performing a{'n' if what[0] == 'a' else ''} {what} operation with vmapped "
                     f"value on an unbatched array reference of type {core.get_aval(ref)!r}. "
                     "Move the array reference to be an argument to the vmapped function?")


class RefEffect(core.JaxprInputEffect):
    """A read, write or accumulation of a ref: on an equation, `input` is the ref operand's
    index; on a jaxpr, the input Var holding the ref (JAX's `ReadEffect(jaxpr.invars[0])`)."""

    __slots__ = ()

    def __init__(self, input):
        super().__init__(f"{self.kind}<{input}>", input, ordered=False)

    input_index = property(lambda self: self.input)

    def __eq__(self, other):
        return type(other) is type(self) and other.input == self.input

    def __hash__(self):
        return hash((type(self), self.input))


class ReadEffect(RefEffect):
    kind = "Read"


class WriteEffect(RefEffect):
    kind = "Write"


class AccumEffect(RefEffect):
    kind = "Accum"


StateEffect = RefEffect


class AbstractRef:
    """The aval of a mutable reference to an array of aval `inner_aval`."""

    __slots__ = ("inner_aval", "memory_space")
    array_abstraction_level = 2

    def __init__(self, inner_aval: core.ShapedArray, memory_space=None):
        self.inner_aval = inner_aval
        self.memory_space = memory_space

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)
    size = property(lambda self: self.inner_aval.size)
    weak_type = False
    sharding = None
    vma = frozenset()

    def update(self, inner_aval=None, shape=None, dtype=None, **_):
        inner = self.inner_aval if inner_aval is None else inner_aval
        if shape is not None or dtype is not None:
            inner = inner.update(shape=shape, dtype=dtype)
        return AbstractRef(inner, self.memory_space)

    def strip_weak_type(self):
        return self

    def str_short(self, short_dtypes=True):
        return f"Ref{{{self.inner_aval.str_short(short_dtypes)}}}"

    def __repr__(self):
        return self.str_short(short_dtypes=False)

    def __eq__(self, other):
        return type(other) is AbstractRef and other.inner_aval == self.inner_aval

    def __hash__(self):
        return hash((AbstractRef, self.inner_aval))

    # indexing a ref tracer (core.Tracer's __getitem__/__setitem__ ask the aval)
    def _getitem(self, tracer, idx):
        return _ref_get(tracer, idx)

    def _setitem(self, tracer, idx, value):
        _ref_set(tracer, idx, value)


def shaped_array_ref(shape, dtype, weak_type=False, sharding=None, memory_space=None) -> AbstractRef:
    """The aval of a ref to an array of `shape` and `dtype` (JAX's `shaped_array_ref`)."""
    del sharding  # NB: pyjax's ShapedArray carries no sharding here
    return AbstractRef(core.ShapedArray(tuple(shape), np.dtype(dtype), weak_type=weak_type),
                       memory_space)


class Uninitialized:
    """The type of `uninitialized`: a ref `run_state` allocates without an initial value."""


uninitialized = Uninitialized()

# type -> fn(value) -> (AbstractRef, initial value or `uninitialized`): how `run_state` makes a
# ref of a value of that type (JAX's registry; other values give a ref of their own aval)
_ref_type_aval_mappings: dict = {}


def get_ref_aval_from_value(x):
    if type(x) in _ref_type_aval_mappings:
        return _ref_type_aval_mappings[type(x)](x)
    return AbstractRef(core.get_aval(x).strip_weak_type()), x


# -- indexers ---------------------------------------------------------------------------------


# `Slice` and `ds` (one type for refs and arrays, JAX's `jax._src.indexing`) live below the
# interpreters, in pyjax._src.indexing; re-exported here, where pallas and state reach for them.
Slice, ds, dslice = indexing.Slice, indexing.ds, indexing.dslice


class NDIndexer(NamedTuple):
    """A normalized index: `spec` (hashable, static) and `dynamic` (traced scalars and arrays in
    the order `spec` asks for them). Entries of spec: ("slice", start|None, size, stride),
    ("int", value|None) or ("array",); None marks a value taken from `dynamic`."""
    spec: tuple
    dynamic: tuple


def _is_int_scalar(x):
    aval = core.get_aval(x)
    return aval.ndim == 0 and dtypes.issubdtype(aval.dtype, np.integer)


def to_indexer(idx, shape, what="ref") -> NDIndexer:
    """Normalize `idx` (as written in `ref[idx]`) for a ref of `shape` (an NDIndexer already is)."""
    if isinstance(idx, NDIndexer):
        return idx
    idx = idx if isinstance(idx, tuple) else (idx,)
    if sum(1 for i in idx if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_used = sum(1 for i in idx if i is not Ellipsis)
    if n_used > len(shape):
        raise ValueError(f"`indices` must not be longer than `shape`: indices={idx}, "
                         f"shape={tuple(shape)}")
    ells = [k for k, i in enumerate(idx) if i is Ellipsis]
    if ells:
        k = ells[0]
        idx = idx[:k] + (slice(None),) * (len(shape) - n_used) + idx[k + 1:]
    else:
        idx = idx + (slice(None),) * (len(shape) - n_used)
    spec, dynamic = [], []
    for i, d in zip(idx, shape, strict=True):
        if i is None:
            raise IndexError(f"{what} indexing: None (new axes) is not supported")
        if isinstance(i, slice):
            i = Slice.from_slice(i, d)
        if isinstance(i, Slice):
            if isinstance(i.start, core.Tracer) or not isinstance(i.start, (int, np.integer)):
                spec.append(("slice", None, i.size, i.stride))
                dynamic.append(i.start)
            else:
                spec.append(("slice", int(i.start), i.size, i.stride))
        elif isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)):
            i = int(i)
            if not -d <= i < d:
                raise IndexError(f"{what} indexing: index {i} is out of bounds for an axis of "
                                 f"size {d}")
            spec.append(("int", i + d if i < 0 else i))
        elif isinstance(i, (core.Tracer, np.ndarray)) or hasattr(i, "__jax_array__") or \
                type(i).__name__ == "ArrayImpl":
            aval = core.get_aval(i)
            if not dtypes.issubdtype(aval.dtype, np.integer):
                raise IndexError(f"{what} indexing: indices must be integers, got "
                                 f"{aval.str_short()}")
            if aval.ndim == 0:
                spec.append(("int", None))
            else:
                spec.append(("array",))
            dynamic.append(i)
        else:
            raise TypeError(f"{what} indexing: unsupported index {i!r} of type {type(i).__name__}")
    return NDIndexer(tuple(spec), tuple(dynamic))


def indexed_shape(spec, shape, dynamic_avals) -> tuple:
    """The shape `ref[idx]` has: NumPy's rule (integer and array indices broadcast together; their
    shape goes where the first of them stands if they are adjacent, else in front)."""
    it = iter(dynamic_avals)
    adv_shapes, adv_pos, sliced = [], [], []
    for pos, e in enumerate(spec):
        if e[0] == "slice":
            if e[1] is None:
                next(it)
            sliced.append((pos, e[2]))
        else:
            a = next(it) if e[0] == "array" or e[1] is None else None
            adv_shapes.append(() if a is None else a.shape)
            adv_pos.append(pos)
    if not adv_pos:
        return tuple(s for _, s in sliced)
    try:
        bshape = tuple(np.broadcast_shapes(*adv_shapes))
    except ValueError:
        raise IndexError(f"ref indexing: index arrays of shapes {adv_shapes} do not "
                         "broadcast") from None
    if not any(adv_shapes):  # integers only: their axes go away
        return tuple(s for _, s in sliced)
    contiguous = adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))
    before = [s for p, s in sliced if contiguous and p < adv_pos[0]]
    after = [s for p, s in sliced if not (contiguous and p < adv_pos[0])]
    return tuple(before) + bshape + tuple(after)


# -- the eager Ref object -----------------------------------------------------------------------


class Ref:
    """A mutable array (what `jax.new_ref(x)` returns): `ref[idx]` reads, `ref[idx] = v` writes in
    place, `jax.freeze(ref)` gives the value.

    NB: pyjax's eager Ref is a box holding an immutable Array (a write makes a new Array). Under
    grad and vmap `new_ref` gives such a box holding that transformation's value, so reads and
    writes become functional code as they run (JAX stages a `new_ref` and discharges it later;
    the results are the same). A Ref passed into `jit` (or closed over by the jitted function)
    is a `Ref{...}` input of its jaxpr: the call runs the discharged jaxpr on the Ref's value
    and writes the final value back into the box. As in JAX, writing a differentiated (or
    vmapped) value into a Ref made outside grad (vmap) is an error.
    """

    __slots__ = ("_value", "_trace", "__weakref__")

    def __init__(self, value):
        self._value = value
        self._trace = core.current_trace()

    aval = property(lambda self: AbstractRef(core.get_aval(self._value).strip_weak_type()))
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)

    def __getitem__(self, idx):
        return _ref_get(self, idx)

    def __setitem__(self, idx, value):
        _ref_set(self, idx, value)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        v = self._value
        if isinstance(v, core.Tracer):
            return f"Ref<traced {self.aval.str_short()}>"
        return "Ref(" + repr(v)[len("Array("):] if repr(v).startswith("Array(") else f"Ref({v!r})"

    def _write(self, value, what="set/swap"):
        cur = core.current_trace()
        if (cur is not self._trace and isinstance(value, core.Tracer)
                and value._trace is not self._trace):
            # a value that is not differentiated (vmapped) by the inner transformation is
            # its primal (unbatched value): writing it is fine
            if isinstance(value, ad.JVPTracer) and type(value.tangent) is ad.Zero:
                return self._write(value.primal, what)
            if isinstance(value, batching.BatchTracer) and value.batch_dim is batching.not_mapped:
                return self._write(value.val, what)
            if isinstance(value._trace, batching.BatchTrace):
                raise unbatched_write_error(what, self)
            if isinstance(value._trace, ad.JVPTrace):
                raise not_differentiated_error(what, self)
            raise NotImplementedError(
                "pyjax: a Ref made outside a transformation cannot be written with a value of "
                f"{type(value._trace).__name__} inside it; create the Ref inside (new_ref)")
        self._value = value


core.pytype_aval_mappings[Ref] = lambda r: r.aval


class RefView:
    """`ref.at[idx]`: a window of a ref that reads and writes through to it (`plgpu.load(
    x_ref.at[pl.ds(0, 8)])`). Further indexing is relative to the window; a write reads the
    window, updates it and writes it back."""

    __slots__ = ("ref", "idx")

    def __init__(self, ref, idx):
        self.ref = ref
        self.idx = idx

    @property
    def aval(self):
        base = core.get_aval(self.ref)
        ix = to_indexer(self.idx, base.shape)
        shape = indexed_shape(ix.spec, base.shape, [core.get_aval(d) for d in ix.dynamic])
        return AbstractRef(core.ShapedArray(shape, base.dtype))

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))

    @property
    def at(self):
        return _RefAt(self)

    def __getitem__(self, idx):
        return _ref_get(self, idx)

    def __setitem__(self, idx, value):
        _ref_set(self, idx, value)


class _RefAt:
    __slots__ = ("ref",)

    def __init__(self, ref):
        self.ref = ref

    def __getitem__(self, idx):
        return RefView(self.ref, idx)


def _ref_at(self, tracer):
    return _RefAt(tracer)


AbstractRef._at = _ref_at
Ref.at = property(lambda self: _RefAt(self))
core.pytype_aval_mappings[RefView] = lambda v: v.aval


def _flatten_view(view):
    """A view is a pytree: its ref and the traced parts of its index are the children (so a
    view passed to jit, vmap, remat or shard_map passes its ref, and the function reads and
    writes the same window of it, as in JAX); the static parts of the index are the aux."""
    # (a view rebuilt by tree_map holds any leaves, e.g. specs: its index is normalized already)
    ix = view.idx if isinstance(view.idx, NDIndexer) else to_indexer(
        view.idx, core.get_aval(view.ref).shape)
    return (view.ref, *ix.dynamic), ix.spec


tree_util.register_pytree_node(
    RefView, _flatten_view,
    lambda spec, children: RefView(children[0], NDIndexer(spec, tuple(children[1:]))))
