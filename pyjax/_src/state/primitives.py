"""The state primitives: `get` (`ref[idx]`), `swap` (`ref[idx] = v`, returning the old value)
and `addupdate` (`ref[idx] += v`), each with its rules in one place.

`get_p.bind(ref, *dynamic, spec)`, `swap_p.bind(ref, value, *dynamic, spec)`,
`addupdate_p.bind(ref, value, *dynamic, spec)`: `spec` and `dynamic` form the `NDIndexer` of
`types.to_indexer`. The rules: abstract eval (shape after indexing; the value must have exactly
that shape and the ref's dtype, as in JAX), effects (read / write / accum on operand 0), impl on
an eager `Ref` (reads and writes its value), the *discharge* forms (`get_value`, `swap_value`,
`addupdate_value`: the same operation on an array value, used by `discharge.discharge_state`),
JVP (a ref's tangent is a ref; writing a differentiated value into a non-differentiated ref is
JAX's error) and batching (a batched ref keeps its batch axis among its own; batched indices
go through a whole-ref read). There is no lowering: a jaxpr with refs is discharged before it
is compiled.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes, pretty_print
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax import shape_ops
from pyjax._src.lax.convert import _convert_element_type
from pyjax._src.lax.dynamic_slicing import dynamic_slice, dynamic_update_slice
from pyjax._src.numpy.creation import zeros
from pyjax._src.numpy.indexing import getitem
from pyjax._src.numpy.util import asarray_value
from pyjax._src.state import types as state_types
from pyjax._src.state.types import (AbstractRef, AccumEffect, NDIndexer, ReadEffect, Ref,
                                    RefView, WriteEffect, indexed_shape, to_indexer)
from pyjax._src.state.types import not_differentiated_error as _not_differentiated
from pyjax._src.state.types import unbatched_write_error as _unbatched_write

get_p = Primitive("get")
swap_p = Primitive("swap")
addupdate_p = Primitive("addupdate", multiple_results=True)


def _direct(ref) -> bool:
    """An eager Ref is read and written in place, except while a jaxpr is traced (a loop body,
    a cond branch, jit): there it enters the jaxpr as a ref constant and `get`/`swap` are
    staged, so the loop discharges it (and writes the result back, `discharge`)."""
    if type(ref) is not Ref:
        return False
    return type(core.current_trace()) is not pe.DynamicJaxprTrace


def _view_update(view, idx, value, accumulate):
    """A write through `view`: the window is read, updated at `idx` and written back."""
    win = ref_get(view.ref, view.idx)
    ix = to_indexer(() if idx is None else idx, core.get_aval(win).shape)
    value = _value_for(view, ix, value, "addupdate" if accumulate else "swap")
    old = get_value(win, ix.spec, ix.dynamic)
    ref_set(view.ref, view.idx, _update(win, ix.spec, ix.dynamic, value, accumulate))
    return old


def _slices_before_block(spec, dynamic) -> int:
    """Where NumPy's rule puts the broadcast shape of the integer/array indices of `spec`: after
    this many sliced axes (0: in front, also when they are not adjacent)."""
    adv = [p for p, e in enumerate(spec) if e[0] != "slice"]
    if not adv or adv != list(range(adv[0], adv[-1] + 1)):
        return 0
    return sum(1 for e in spec[:adv[0]] if e[0] == "slice")


def _offset(start, i):
    """Index `i` of a window moved to the ref's coordinates (the window starts at `start`)."""
    if isinstance(start, int) and isinstance(i, int):
        return start + i
    if isinstance(start, int) and start == 0:
        return i
    return asarray_value(i) + start


def _compose(outer, inner):
    """One indexer of the ref that means `inner` applied to the window `outer` picks (the
    window's axes are `outer`'s unit-stride slices), or None when there is none with the same
    result layout (`outer` with arrays or strides, or NumPy's rule moving the indexed block)."""
    if any(e[0] == "array" or (e[0] == "slice" and e[3] != 1) for e in outer.spec):
        return None
    odyn, idyn = iter(outer.dynamic), iter(inner.dynamic)
    ientries = iter(inner.spec)
    spec, dynamic = [], []

    def put(kind, value, *rest):
        if isinstance(value, int):
            spec.append((kind, value, *rest))
        else:
            spec.append((kind, None, *rest))
            dynamic.append(value)

    for e in outer.spec:
        value = e[1] if e[1] is not None else next(odyn)
        if e[0] == "int":
            put("int", value)
            continue
        ie = next(ientries)
        if ie[0] == "array":
            spec.append(("array",))
            dynamic.append(_offset(value, next(idyn)))
        else:
            put(ie[0], _offset(value, ie[1] if ie[1] is not None else next(idyn)), *ie[2:])
    if any(e[0] != "slice" for e in outer.spec) and any(e[0] == "array" for e in inner.spec) \
            and _slices_before_block(spec, dynamic) != _slices_before_block(inner.spec, ()):
        return None
    return NDIndexer(tuple(spec), tuple(dynamic))


def _through_views(ref, idx):
    """(the ref under a chain of views, one indexer of it meaning `idx` on the view), or
    (None, None) when the views do not compose into one index (JAX keeps a list of transforms;
    pyjax's primitives take one index, so such a view is read and written whole)."""
    chain = []
    while type(ref) is RefView:
        chain.append(ref.idx)
        ref = ref.ref
    shape = _ref_aval(ref, "get").shape
    ix = None
    for i in [*chain[::-1], idx]:
        nxt = to_indexer(() if i is None else i, shape)
        ix = nxt if ix is None else _compose(ix, nxt)
        if ix is None:
            return None, None
        shape = indexed_shape(nxt.spec, shape, [core.get_aval(d) for d in nxt.dynamic])
    return ref, ix


def _ref_aval(ref, what):
    aval = core.get_aval(ref)
    if not isinstance(aval, AbstractRef):
        # JAX's class and words (its abstract eval of get/swap/addupdate)
        raise ValueError(f"`{what}` must be called on `Ref` types: {aval.str_short()}.")
    return aval


def _indexer(ref, idx, what):
    aval = _ref_aval(ref, what)
    if isinstance(idx, NDIndexer):
        return idx
    return to_indexer(() if idx is None else idx, aval.shape, what)


def ref_get(ref, idx=()):
    """`ref[idx]`: the indexed part of the ref's current value.

    Example:
        >>> jax.ref.get(r, (0, pl.ds(i, 4)))   # r[0, i:i + 4]
    """
    if type(ref) is RefView:
        base, ix = _through_views(ref, idx)
        if base is not None:
            return ref_get(base, ix)
        win = ref_get(ref.ref, ref.idx)
        ix = to_indexer(() if idx is None else idx, core.get_aval(win).shape)
        return get_value(win, ix.spec, ix.dynamic)
    ix = _indexer(ref, idx, "get")
    if _direct(ref):  # an eager box: its value is read under the current trace (types.Ref)
        return get_value(ref._value, ix.spec, ix.dynamic)
    return get_p.bind(ref, *ix.dynamic, spec=ix.spec)


def _value_for(ref, ix, value, what):
    """`value` checked against the indexed shape (weak scalars take the ref's dtype)."""
    aval = _ref_aval(ref, what)
    expected = indexed_shape(ix.spec, aval.shape, [core.get_aval(d) for d in ix.dynamic])
    vaval = core.get_aval(value)
    if vaval.dtype != aval.dtype and vaval.weak_type and vaval.ndim == 0 and dtypes.issubdtype(
            dtypes.result_type(vaval.dtype, aval.dtype), aval.dtype):
        value = _convert_element_type(value, aval.dtype, False)
        vaval = core.get_aval(value)
    _check_value(what, aval, vaval, expected)
    return value


def ref_swap(ref, idx, value):
    """Write `value` at `ref[idx]`, returning what was there."""
    if type(ref) is RefView:
        base, ix = _through_views(ref, idx)
        if base is None:
            return _view_update(ref, idx, value, False)
        return ref_swap(base, ix, value)
    ix = _indexer(ref, idx, "swap")
    value = _value_for(ref, ix, value, "swap")
    if _direct(ref):
        return _swap_impl(ref, value, *ix.dynamic, spec=ix.spec)
    return swap_p.bind(ref, value, *ix.dynamic, spec=ix.spec)


def ref_set(ref, idx, value):
    """`ref[idx] = value`."""
    ref_swap(ref, idx, value)


def ref_addupdate(ref, idx, value):
    """`ref[idx] += value` as one accumulation (an `addupdate`)."""
    if type(ref) is RefView:
        base, ix = _through_views(ref, idx)
        if base is None:
            _view_update(ref, idx, value, True)
            return
        ref, idx = base, ix
    ix = _indexer(ref, idx, "addupdate")
    value = _value_for(ref, ix, value, "addupdate")
    if _direct(ref):
        _addupdate_impl(ref, value, *ix.dynamic, spec=ix.spec)
    else:
        addupdate_p.bind(ref, value, *ix.dynamic, spec=ix.spec)


state_types.ref_indexing.update(get=ref_get, set=ref_set)  # `ref[idx]` on Refs and ref tracers


# -- abstract evaluation and effects --------------------------------------------------------------


def _check_value(what, ref, val, shape):
    if not isinstance(ref, AbstractRef):
        raise TypeError(f"{what}: operand 0 must be a Ref, got {ref.str_short()}")
    if tuple(val.shape) != tuple(shape):
        raise ValueError(f"Invalid shape for `{what}`. Ref shape: {ref.shape}. Expected shape: "
                         f"{tuple(shape)}. Value shape: {tuple(val.shape)}. Transforms: (). ")
    if val.dtype != ref.dtype:
        raise ValueError(f"Invalid dtype for `{what}`. Ref dtype: {ref.dtype}. "
                         f"Value dtype: {val.dtype}. ")


@get_p.def_abstract_eval
def _get_abstract_eval(ref, *dynamic, spec):
    if not isinstance(ref, AbstractRef):
        raise TypeError(f"get: operand 0 must be a Ref, got {ref.str_short()}")
    if type(ref.inner_aval) is core.AbstractToken:   # a token is read whole
        return ref.inner_aval
    return core.ShapedArray(indexed_shape(spec, ref.shape, dynamic), ref.dtype)


@swap_p.def_abstract_eval
def _swap_abstract_eval(ref, val, *dynamic, spec):
    shape = indexed_shape(spec, ref.shape, dynamic) if isinstance(ref, AbstractRef) else ()
    _check_value("swap", ref, val, shape)
    if type(ref.inner_aval) is core.AbstractToken:
        return ref.inner_aval
    return core.ShapedArray(shape, ref.dtype)


@addupdate_p.def_abstract_eval
def _addupdate_abstract_eval(ref, val, *dynamic, spec):
    shape = indexed_shape(spec, ref.shape, dynamic) if isinstance(ref, AbstractRef) else ()
    _check_value("addupdate", ref, val, shape)
    return []


get_p.def_effects(lambda **_: frozenset({ReadEffect(0)}))
swap_p.def_effects(lambda **_: frozenset({WriteEffect(0)}))
addupdate_p.def_effects(lambda **_: frozenset({AccumEffect(0)}))


# -- the value forms (discharge), and impl on an eager Ref -----------------------------------------


def _window(x, spec, dynamic):
    """The box of `x` the index touches (a dynamic_slice), and the index inside it."""
    shape = core.get_aval(x).shape
    it = iter(dynamic)
    starts, sizes, inner = [], [], []
    for d, e in zip(shape, spec, strict=True):
        if e[0] == "slice":
            start = e[1] if e[1] is not None else next(it)
            size, stride = e[2], e[3]
            starts.append(start)
            sizes.append(min(d, (size - 1) * stride + 1) if size else 0)
            inner.append(slice(None, None, stride) if stride != 1 else slice(None))
        elif e[0] == "int":
            starts.append(e[1] if e[1] is not None else next(it))
            sizes.append(1)
            inner.append(0)
        else:
            starts.append(0)
            sizes.append(d)
            inner.append(next(it))
    trivial = all(type(s) is int and s == 0 for s in starts) and tuple(sizes) == tuple(shape)
    win = x if trivial else dynamic_slice(x, starts, sizes)
    simple = all(type(i) is slice and i.step is None for i in inner) or \
        all((type(i) is slice and i.step is None) or (type(i) is int) for i in inner)
    return win, starts, sizes, tuple(inner), trivial, simple


def get_value(x, spec, dynamic):
    win, _, sizes, inner, _, simple = _window(x, spec, dynamic)
    if simple:
        out_shape = tuple(s for s, i in zip(sizes, inner) if type(i) is slice)
        return win if out_shape == tuple(sizes) else shape_ops.reshape(win, out_shape)
    return getitem(win, inner)


def _update(x, spec, dynamic, value, accumulate):
    win, starts, sizes, inner, trivial, simple = _window(x, spec, dynamic)
    if simple:
        upd = value
        if core.get_aval(value).shape != tuple(sizes):
            upd = shape_ops.reshape(value, tuple(sizes))
        new_win = lax_elem.add(win, upd) if accumulate else upd
    else:
        at = asarray_value(win).at[inner]
        new_win = at.add(value) if accumulate else at.set(value)
    return new_win if trivial else dynamic_update_slice(x, new_win, starts)


def swap_value(x, value, spec, dynamic):
    """`(old, new_x)`: the value at the index, and `x` with `value` written there."""
    return get_value(x, spec, dynamic), _update(x, spec, dynamic, value, False)


def addupdate_value(x, value, spec, dynamic):
    return _update(x, spec, dynamic, value, True)


def _box(ref, what):
    if type(ref) is not Ref:
        raise TypeError(f"{what}: a traced ref outside its jaxpr (discharge the jaxpr first)")
    return ref


get_p.def_impl(lambda ref, *dyn, spec: get_value(_box(ref, "get")._value, spec, dyn))


@swap_p.def_impl
def _swap_impl(ref, val, *dyn, spec):
    old, new = swap_value(_box(ref, "swap")._value, val, spec, dyn)
    ref._write(new, "set/swap")
    return old


@addupdate_p.def_impl
def _addupdate_impl(ref, val, *dyn, spec):
    ref = _box(ref, "addupdate")
    ref._write(addupdate_value(ref._value, val, spec, dyn), "addupdate")
    return []


# -- JVP: a ref's tangent is a ref of the same type (JAX's state AD) -------------------------------


def _zero_like(x):
    return ad.Zero(ad.tangent_aval(core.get_aval(x)))


def _get_jvp(primals, tangents, *, spec):
    ref, *dyn = primals
    out = get_p.bind(ref, *dyn, spec=spec)
    if type(tangents[0]) is ad.Zero:
        return out, _zero_like(out)
    return out, get_p.bind(tangents[0], *dyn, spec=spec)


def _swap_jvp(primals, tangents, *, spec):
    ref, val, *dyn = primals
    ref_t, val_t = tangents[:2]
    if type(ref_t) is ad.Zero:
        if type(val_t) is not ad.Zero:
            raise _not_differentiated("set/swap", ref)
        old = swap_p.bind(ref, val, *dyn, spec=spec)
        return old, _zero_like(old)
    old = swap_p.bind(ref, val, *dyn, spec=spec)
    return old, swap_p.bind(ref_t, ad.instantiate(val_t), *dyn, spec=spec)


def _addupdate_jvp(primals, tangents, *, spec):
    ref, val, *dyn = primals
    ref_t, val_t = tangents[:2]
    if type(ref_t) is ad.Zero and type(val_t) is not ad.Zero:
        raise _not_differentiated("addupdate", ref)
    # JAX's order: the primal accumulation, then the tangent's (zeros when the value has none)
    addupdate_p.bind(ref, val, *dyn, spec=spec)
    if type(ref_t) is not ad.Zero:
        addupdate_p.bind(ref_t, ad.instantiate(val_t), *dyn, spec=spec)
    return [], []


get_p.def_jvp(_get_jvp)
swap_p.def_jvp(_swap_jvp)
addupdate_p.def_jvp(_addupdate_jvp)


# -- batching: a batched ref has the batch axis among its own axes --------------------------------
#
# With only the ref batched, the index gets a full slice over the ref's batch axis (`a[:, 0]`,
# as JAX prints it) and the result's batch axis is where NumPy's indexing rule puts that slice.
# With batched indices (or an index the inserted slice would split), the whole ref is read, each
# example indexed as a value (vmapped `get_value`/`_update`) and, for writes, written back whole.
# A write of a batched value (or at batched indices) into an unbatched ref is JAX's error.


def _full_spec(shape):
    return tuple(("slice", 0, d, 1) for d in shape)


def _batched_spec(spec, rdim, size, dyn_avals):
    """`(spec with a full slice over the ref's batch axis rdim, the result's batch axis)`, or
    None when the slice would separate adjacent advanced indices (NumPy would move them)."""
    new = spec[:rdim] + (("slice", 0, size, 1),) + spec[rdim:]
    it = iter(dyn_avals)
    adv_pos, adv_shapes = [], []
    for pos, e in enumerate(new):
        if e[0] == "slice":
            if e[1] is None:
                next(it)
        else:
            a = next(it) if e[0] == "array" or e[1] is None else None
            adv_shapes.append(() if a is None else tuple(a.shape))
            adv_pos.append(pos)
    before = sum(1 for e in new[:rdim] if e[0] == "slice")
    if not adv_pos or not any(adv_shapes):
        return new, before
    nb = len(np.broadcast_shapes(*adv_shapes))
    old_pos = [p - (p > rdim) for p in adv_pos]
    was_adjacent = old_pos == list(range(old_pos[0], old_pos[-1] + 1))
    is_adjacent = adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))
    if was_adjacent and not is_adjacent:
        return None
    if is_adjacent and rdim < adv_pos[0]:
        return new, before
    return new, before + nb


def _per_example(size, fun, args, dims):
    """`fun` (on values) vmapped over `args` batched along `dims`: (outs, out_dims)."""
    return batching.batch_flat(lambda *a: list(fun(*a)), list(args), list(dims),
                               batching.AxisData(None, size))


def _read_all(ref):
    return get_p.bind(ref, spec=_full_spec(core.get_aval(ref).shape))


def _get_batch(size, args, dims, *, spec):
    ref, *dyn = args
    rdim, ddims = dims[0], dims[1:]
    if all(d is batching.not_mapped for d in ddims):
        hit = _batched_spec(spec, rdim, size, [core.get_aval(d) for d in dyn])
        if hit is not None:
            return get_p.bind(ref, *dyn, spec=hit[0]), hit[1]
    (out,), (od,) = _per_example(size, lambda x, *d: [get_value(x, spec, d)],
                                 [_read_all(ref), *dyn], [rdim, *ddims])
    return out, od


def _write_batch(size, args, dims, spec, accumulate):
    what = "addupdate" if accumulate else "set/swap"
    prim = addupdate_p if accumulate else swap_p
    ref, val, *dyn = args
    rdim, vdim, ddims = dims[0], dims[1], dims[2:]
    if rdim is batching.not_mapped:
        raise _unbatched_write(what, ref)
    if all(d is batching.not_mapped for d in ddims):
        hit = _batched_spec(spec, rdim, size, [core.get_aval(d) for d in dyn])
        if hit is not None:
            new_spec, od = hit
            out = prim.bind(ref, batching.matchaxis(val, vdim, od, size), *dyn, spec=new_spec)
            return (out, []) if accumulate else (out, od)
    full = _full_spec(core.get_aval(ref).shape)

    def per_example(x, v, *d):
        if accumulate:
            return [addupdate_value(x, v, spec, d)]
        return list(swap_value(x, v, spec, d))[::-1]
    outs, odims = _per_example(size, per_example, [_read_all(ref), val, *dyn],
                               [rdim, vdim, *ddims])
    swap_p.bind(ref, batching.matchaxis(outs[0], odims[0], rdim, size), spec=full)
    return ([], []) if accumulate else (outs[1], odims[1])


get_p.def_batch(_get_batch)
swap_p.def_batch(lambda size, args, dims, *, spec: _write_batch(size, args, dims, spec, False))
addupdate_p.def_batch(lambda size, args, dims, *, spec: _write_batch(size, args, dims, spec, True))


# -- jax.new_ref and friends ------------------------------------------------------------------


new_ref_p = Primitive("new_ref")


def new_ref(init_val, *, kind=None, memory_space=None):
    """A mutable array holding `init_val`.

    Eagerly (and under grad/vmap) it is an eager `Ref` (see `types.Ref`), which can be passed
    into `jit` (it is written back after the call). While jit (or a loop body, a cond branch)
    traces, it is a ref in the jaxpr (`new_ref` then `get`/`swap`), and the traced jaxpr is
    discharged into functional code as soon as it is traced (`discharge`), so loops that read
    and write it run as loops carrying its value.

    Example:
        >>> r = jax.new_ref(jnp.zeros(3))
        >>> r[0] = 1.0; r[1:] += 2.0
        >>> jax.freeze(r)   # Array([1., 2., 2.])
    """
    if type(core.current_trace()) is pe.DynamicJaxprTrace:
        return new_ref_p.bind(asarray_value(init_val))
    return Ref(asarray_value(init_val))


new_ref_p.def_abstract_eval(lambda x: AbstractRef(x.strip_weak_type()))


def empty_ref(ty, *, memory_space=None):
    """A Ref of `ty`'s shape and dtype (`jax.ShapeDtypeStruct`), filled with zeros.

    NB: JAX 0.10.2 has no eager rule for `empty_ref` (it raises outside jit); pyjax zero-fills."""
    return Ref(zeros(tuple(ty.shape), ty.dtype))


def freeze(ref):
    """The current value of `ref` as an (immutable) Array."""
    if isinstance(ref, core.Tracer) and isinstance(ref.aval, AbstractRef):
        return ref_get(ref, ())
    if type(ref) is not Ref:
        raise TypeError(f"freeze: expected a Ref, got {type(ref).__name__}")
    return ref._value


def free_ref(ref):
    """Release `ref` (a no-op here: its value is garbage collected with it)."""
    if type(ref) is not Ref and not isinstance(core.get_aval(ref), AbstractRef):
        raise TypeError(f"free_ref: expected a Ref, got {type(ref).__name__}")


def _no_lowering(name):
    def rule(ctx, *args, **params):
        raise NotImplementedError(
            f"`{name}` of a Ref reached compilation: a jaxpr over refs must be discharged "
            "first (state.discharge.discharge_state; jit does it for the Refs it is given)")
    return rule


for _p in (get_p, swap_p, addupdate_p, new_ref_p):
    _p.def_lowering(_no_lowering(_p.name))


# -- printing as JAX does: `c:f32[4] <- a[0:4]`, `d:f32[], a[1] <- a[1], b`, `a[...] += b` ------


def _pp_index(eqn, atom, first):
    """`ref[idx]` for the equation's index (its dynamic operands start at `first`), as JAX
    prints an indexer: entries joined by ",", a slice's start 0 and end at the axis' size left
    out (`a[:2,1]`, `a[1:,i]`, `a[:,0]`), a dynamic start `i` of size 4 as `i:i+4`.

    NB: JAX does not print a slice's stride; pyjax adds `:stride` when it is not 1."""
    dyn = iter(eqn.invars[first:])
    spec = eqn.params["spec"]
    parts = []
    for d, e in zip(eqn.invars[0].aval.shape, spec):
        if e[0] == "int":
            parts.append(str(e[1]) if e[1] is not None else atom(next(dyn)))
        elif e[0] == "array":
            parts.append(atom(next(dyn)))
        else:
            stride = f":{e[3]}" if e[3] != 1 else ""
            if e[1] is None:
                start = atom(next(dyn))
                parts.append(f"{start}:{start}+{e[2]}{stride}")
                continue
            end = e[1] + ((e[2] - 1) * e[3] + 1 if e[2] else 0)
            parts.append(f"{e[1] or ''}:{'' if end == d else end}{stride}")
    if all(p == ":" for p in parts):
        return f"{atom(eqn.invars[0])}[...]"
    return f"{atom(eqn.invars[0])}[{','.join(parts)}]"


def _pp_get(eqn, atom, typed):
    return f"{typed(eqn.outvars[0])} <- {_pp_index(eqn, atom, 1)}"


def _pp_swap(eqn, atom, typed):
    idx = _pp_index(eqn, atom, 2)
    old = typed(eqn.outvars[0])
    if old.startswith("_"):  # the old value is dropped: a plain write, as JAX prints it
        return f"{idx} <- {atom(eqn.invars[1])}"
    return f"{old}, {idx} <- {idx}, {atom(eqn.invars[1])}"


def _pp_addupdate(eqn, atom, typed):
    return f"{_pp_index(eqn, atom, 2)} += {atom(eqn.invars[1])}"


pretty_print.EQN_PRINTERS.update(get=_pp_get, swap=_pp_swap, addupdate=_pp_addupdate)
