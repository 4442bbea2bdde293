"""What Pallas kernels call: grid queries, masked loads and stores, atomics, control flow.

Inside a kernel, refs are `state` refs of the block shapes; everything here is written with
state reads/writes and lax, so it is discharged and interpreted like the rest of the kernel:

- `program_id(axis)` / `num_programs(axis)`: the kernel instance's grid index / the grid size;
- `load(ref, idx, mask=, other=)` / `store(ref, idx, val, mask=)`: reads and writes where `mask`
  holds (masked-off lanes read `other`, 0 by default, and leave the ref unchanged);
- `atomic_add/max/min/and/or/xor/xchg/cas`: read-modify-write, returning the old value (the
  interpreter runs kernel instances one after another, so they are atomic);
- `when(cond)(f)`, `loop(lo, hi)(body)`: a `cond` / `fori_loop` in kernel style;
- `multiple_of` / `max_contiguous`: compiler hints, the identity here; `debug_print`.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.callback import debug_print as _debug_print
from pyjax._src.lax.control_flow import conditionals, scan as scan_mod
from pyjax._src.numpy import creation, lax_numpy, ufuncs
from pyjax._src.numpy.util import broadcast_to as _broadcast_to
from pyjax._src.pallas.core import cdiv, current_grid_env
from pyjax._src.pallas.pallas_call import uninitialized_value
from pyjax._src.state.primitives import new_ref, ref_get, ref_set


def program_id(axis: int):
    """This kernel instance's index along grid axis `axis` (an int32 scalar).

    Example:
        >>> def kernel(x_ref, o_ref):
        ...     o_ref[...] = x_ref[...] + pl.program_id(0)
    """
    indices, grid = current_grid_env()
    if not -len(grid) <= axis < len(grid):
        raise ValueError(f"program_id: axis {axis} is out of range for a grid of rank {len(grid)}")
    return indices[axis]


def num_programs(axis: int):
    """The size of grid axis `axis` (an int32 scalar)."""
    _, grid = current_grid_env()
    if not -len(grid) <= axis < len(grid):
        raise ValueError(f"num_programs: axis {axis} is out of range for a grid of rank "
                         f"{len(grid)}")
    return np.int32(grid[axis])


def load(ref, *, mask=None, other=None, cache_modifier=None, eviction_policy=None, volatile=False):
    """`ref[...]` (a ref or a view `x_ref.at[idx]`), reading `other` (default 0) where `mask` is
    False.

    Example:
        >>> x = plgpu.load(x_ref.at[pl.ds(0, 8)], mask=jnp.arange(8) < n, other=0.0)
    """
    x = ref_get(ref, ())
    if mask is None:
        return x
    other = creation.zeros((), x.dtype) if other is None else other
    return lax_numpy.where(mask, x, lax_numpy.asarray(other, dtype=x.dtype))


def store(ref, val, *, mask=None, eviction_policy=None):
    """`ref[...] = val` where `mask` holds (elsewhere the ref keeps its value)."""
    val = lax_numpy.asarray(val, dtype=ref.dtype)
    if mask is not None:
        val = lax_numpy.where(mask, val, ref_get(ref, ()))
    ref_set(ref, (), val)


def _atomic(name, combine):
    def atomic(x_ref_or_view, idx, val, *, mask=None):
        old = ref_get(x_ref_or_view, idx)
        new = combine(old, lax_numpy.asarray(val, dtype=old.dtype))
        if mask is not None:
            new = lax_numpy.where(mask, new, old)
        ref_set(x_ref_or_view, idx, new)
        return old
    atomic.__name__ = atomic.__qualname__ = name
    atomic.__doc__ = (f"`{name}(ref, idx, val, mask=None)`: atomically update `ref[idx]` "
                      f"with `val`, returning the old value.")
    return atomic


atomic_add = _atomic("atomic_add", ufuncs.add)
atomic_max = _atomic("atomic_max", ufuncs.maximum)
atomic_min = _atomic("atomic_min", ufuncs.minimum)
atomic_and = _atomic("atomic_and", ufuncs.bitwise_and)
atomic_or = _atomic("atomic_or", ufuncs.bitwise_or)
atomic_xor = _atomic("atomic_xor", ufuncs.bitwise_xor)
atomic_xchg = _atomic("atomic_xchg", lambda old, val: val)


def atomic_cas(ref, cmp, val):
    """Compare-and-swap on a scalar ref (or view): where `ref[...] == cmp` write `val`; returns
    the old value."""
    old = ref_get(ref, ())
    ref_set(ref, (), lax_numpy.where(old == cmp, lax_numpy.asarray(val, old.dtype), old))
    return old


def multiple_of(x, values):
    """A hint that `x` is a multiple of `values` (the identity when interpreting)."""
    return x


def max_contiguous(x, values):
    """A hint that `x` holds `values` contiguous values (the identity when interpreting)."""
    return x


def when(condition):
    """`@pl.when(cond)` runs the decorated function (no arguments) only when `cond` holds.

    Example:
        >>> @pl.when(pl.program_id(0) == 0)
        ... def _():
        ...     o_ref[...] = jnp.zeros_like(o_ref)
    """
    def decorator(f):
        if isinstance(condition, (bool, np.bool_)):
            if condition:
                f()
            return None
        conditionals.cond(condition, lambda: _none(f()), lambda: None)
        return None
    return decorator


def _none(out):
    if out is not None:
        raise ValueError("pl.when: the decorated function must return None")


def loop(lower, upper, *, init_carry=None, step=1, unroll=None):
    """`@pl.loop(lo, hi)` runs the decorated `body(i)` for `i` in `range(lo, hi, step)`; with
    `init_carry`, `body(i, carry)` returns the next carry and the loop returns the last."""
    def decorator(body):
        def step_fn(k, carry):
            i = lower + k * step if step != 1 else k
            if init_carry is None:
                body(i)
                return carry
            return body(i, carry)
        if step == 1:
            return scan_mod.fori_loop(lower, upper, step_fn, init_carry, unroll=unroll)
        n = cdiv(upper - lower, step)
        return scan_mod.fori_loop(0, n, step_fn, init_carry, unroll=unroll)
    return decorator


def debug_print(fmt: str, *args):
    """Print from inside a kernel (`pl.debug_print("x = {}", x)`), through `jax.debug.print`."""
    _debug_print(fmt, *args)


def empty(shape, dtype):
    """An uninitialized array of `shape`, `dtype` (zeros here)."""
    return creation.zeros(shape, dtype)


def empty_like(x):
    return creation.zeros(core.get_aval(x).shape, core.get_aval(x).dtype)


def reciprocal(x, *, approx=False):
    """`1 / x` (`approx` is a hint for hardware reciprocals)."""
    return ufuncs.reciprocal(x)


def broadcast_to(x, shape):
    return _broadcast_to(x, shape)


def run_scoped(f, *types, collective_axes=(), **kw_types):
    """Call `f` with fresh refs of the given types (`pltpu.VMEM((8,), jnp.float32)`, a
    `jax.ShapeDtypeStruct`), which live until `f` returns; returns what `f` returns.

    Example:
        >>> pl.run_scoped(lambda tmp: tmp.__setitem__(..., x_ref[...] * 2), pltpu.VMEM((8,), f32))
    """

    def alloc(t):
        return new_ref(uninitialized_value(tuple(t.shape), t.dtype))
    return f(*[alloc(t) for t in types], **{k: alloc(t) for k, t in kw_types.items()})
