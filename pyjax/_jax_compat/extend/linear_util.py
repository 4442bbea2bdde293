"""`jax.extend.linear_util`: JAX's wrapped functions (`lu.wrap_init`), as libraries build them to
call the `jax.api_util` / `jax.interpreters.partial_eval` helpers.

NB: pyjax's interpreters take plain Python callables; a `WrappedFun` is a callable with JAX's
`call_wrapped`, and a transformation wraps it in a new one calling through the transformation
(no transform stack, no cache)."""
from __future__ import annotations

import functools

from collections.abc import Callable as Callable


class StoreException(Exception):
    pass


class Store:
    """A value a transformation fills in when the wrapped function runs (its output tree)."""

    __slots__ = ("_val",)
    _EMPTY = object()

    def __init__(self):
        self._val = Store._EMPTY

    def store(self, val):
        if self._val is not Store._EMPTY:
            raise StoreException("Store occupied")
        self._val = val

    @property
    def val(self):
        if self._val is Store._EMPTY:
            raise StoreException("Store empty: the wrapped function has not run")
        return self._val

    def __bool__(self):
        return self._val is not Store._EMPTY


class WrappedFun:
    """`f` with its fixed keyword parameters and a debug info (JAX's `lu.WrappedFun`)."""

    def __init__(self, f, params=None, debug_info=None):
        self.f = f
        self.params = dict(params or {})
        self.debug_info = debug_info

    def call_wrapped(self, *args, **kwargs):
        return self.f(*args, **self.params, **kwargs)

    __call__ = call_wrapped

    def __repr__(self):
        return f"Wrapped function: {getattr(self.f, '__name__', self.f)!r}"

    @property
    def __name__(self) -> str:
        """The wrapped function's name, looking through functools.partial wrappers that have
        none of their own (as JAX's `fun_name`)."""
        f = self.f
        while isinstance(f, functools.partial) and not hasattr(f, "__name__"):
            f = f.func
        return getattr(f, "__name__", "<unnamed wrapped function>")


def wrap_init(f, params=None, *, debug_info=None) -> WrappedFun:
    return WrappedFun(f, params, debug_info)


def cache(fun):
    """NB: no memoization (pyjax's jit caches on its own keys); `fun` unchanged."""
    return fun


def _curried(transform):
    """`transform(gen)` returns the transformation (JAX's `@curry`); `transform(gen, fun, ...)`
    applies it at once."""
    def curried(gen, *rest, **kwargs):
        if rest:
            return transform(gen, *rest, **kwargs)
        return lambda fun, *static, **kw: transform(gen, fun, *static, **kwargs, **kw)
    curried.__name__ = transform.__name__
    return curried


def _chained(fun: WrappedFun, call) -> WrappedFun:
    return WrappedFun(call, debug_info=fun.debug_info)


@_curried
def transformation2(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """`fun` run through `gen(f, *gen_static_args, *args, **kwargs)`, where `f` calls `fun`."""
    return _chained(fun, lambda *a, **k: gen(fun.call_wrapped, *gen_static_args, *a, **k))


@_curried
def transformation_with_aux2(gen, fun: WrappedFun, *gen_static_args, use_eq_store=False,
                             unk_names=False):
    """As `transformation2`, and `gen` also receives a Store for an auxiliary output, which
    the returned thunk gives once the function ran."""
    del use_eq_store, unk_names  # NB: no EqualStore: a second run stores a second time
    store = Store()
    wrapped = _chained(fun, lambda *a, **k: gen(fun.call_wrapped, store, *gen_static_args, *a, **k))
    return wrapped, lambda: store.val


def _run_generator(gen, f, args, kwargs):
    """JAX's old generator protocol: `gen` yields the inner call's (args, kwargs), receives its
    result and yields the transformed result."""
    inst = gen(*args, **kwargs)
    inner_args, inner_kwargs = next(inst)
    return inst.send(f(*inner_args, **inner_kwargs))


@_curried
def transformation(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """`fun` through a generator `gen(*gen_static_args, *args, **kwargs)` (haiku's
    `to_dot` writes its trace this way)."""
    return _chained(fun, lambda *a, **k: _run_generator(
        gen, fun.call_wrapped, (*gen_static_args, *a), k))


@_curried
def transformation_with_aux(gen, fun: WrappedFun, *gen_static_args):
    """As `transformation`; the generator's final yield is `(result, aux)`."""
    store = Store()

    def call(*a, **k):
        ans, aux = _run_generator(gen, fun.call_wrapped, (*gen_static_args, *a), k)
        store.store(aux)
        return ans
    return _chained(fun, call), lambda: store.val


def merge_linear_aux(aux1, aux2):
    """Which of two auxiliary thunks ran: `(True, aux1())` or `(False, aux2())`; exactly one
    must have."""
    try:
        out1 = aux1()
    except StoreException:
        try:
            return False, aux2()
        except StoreException:
            raise StoreException("merge_linear_aux: neither store is filled") from None
    try:
        aux2()
    except StoreException:
        return True, out1
    raise StoreException("merge_linear_aux: both stores are filled")
