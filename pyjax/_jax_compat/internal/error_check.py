"""`jax._src.error_check`: record an error inside a computation (`set_error_if(pred, msg)`,
eagerly or under jit) and raise it later on the host (`raise_if_error()`).

The error state is one uint32 code in a mutable reference per thread (no error: the largest
uint32), which jitted functions close over and update; each traced `set_error_if` gets its own
code, whose message and traceback are kept on the host. NB: pyjax keeps a single code, for one
device (JAX keeps one per device of a mesh under `error_checking_context`); export wrapping
raises NotImplementedError."""
from __future__ import annotations

import sys
import threading
import types

import numpy as np

import pyjax.numpy as jnp
from pyjax import ref as _ref
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src import core


class JaxValueError(ValueError):
    """An error a computation recorded with set_error_if, raised by raise_if_error."""


_NO_ERROR = np.uint32(np.iinfo(np.uint32).max)
_errors_lock = threading.RLock()
_errors: list = []  # (message, traceback) by error code


class _State(threading.local):
    ref = None


_state = _State()


def _new_ref():
    with core.eval_context():
        _state.ref = _ref.new_ref(np.uint32(_NO_ERROR))


class error_checking_context:
    """A fresh error state for the block; the previous one is back afterwards."""

    def __enter__(self):
        self.old_ref = _state.ref
        _new_ref()
        return self

    def __exit__(self, *exc):
        _state.ref = self.old_ref


def _traceback_here() -> types.TracebackType | None:
    """The caller's stack as a traceback (outermost frame first), for the error raised later."""
    tb, frame = None, sys._getframe(2)
    while frame is not None:
        tb = types.TracebackType(tb, frame, frame.f_lasti, frame.f_lineno)
        frame = frame.f_back
    return tb


def set_error_if(pred, /, msg: str) -> None:
    """Record `msg` as the error if any element of `pred` is True and no error is recorded yet
    (runs where traced: inside jit, at every call of the compiled function)."""
    if _state.ref is None:
        _new_ref()
    with _errors_lock:
        code = np.uint32(len(_errors))
        _errors.append((msg, _traceback_here()))
    current = _state.ref[...]
    first = jnp.logical_and(current == _NO_ERROR, jnp.any(pred))
    _state.ref[...] = jnp.where(first, code, current)


def raise_if_error() -> None:
    """Raise the recorded error (JaxValueError, with the traceback of its set_error_if) and
    clear it; nothing if none. Not allowed inside a traced function."""
    if _state.ref is None:
        return
    code = _state.ref[...]
    if isinstance(code, core.Tracer):
        raise ValueError("raise_if_error() should not be called within a traced context, such "
                         "as within a jitted function.")
    code = np.uint32(code)
    if code == _NO_ERROR:
        return
    _state.ref[...] = np.uint32(_NO_ERROR)
    with _errors_lock:
        msg, tb = _errors[int(code)]
    raise JaxValueError(msg).with_traceback(tb)


__getattr__ = module_getattr("jax._src.error_check", "export wrapping of error checks")
