"""Tracebacks that show the user's frames: `api_boundary` marks pyjax's public entry points
(the Python path of a jitted call, the autodiff and vmap wrappers, lax control flow, ...), and
when an exception escapes the outermost one it drops pyjax's own frames (and those of files a
library registered with `register_exclusion`) from the exception's traceback, as JAX does under
`jax_traceback_filtering`:

- "auto" (the default): "tracebackhide" under IPython, else "quiet_remove_frames";
- "quiet_remove_frames": internal frames removed, a note on the exception says so;
- "remove_frames": internal frames removed; the unfiltered traceback hangs off the exception
  as its `__cause__`, an `UnfilteredStackTrace`;
- "tracebackhide": frames kept, internal ones marked `__tracebackhide__` for IPython/pytest;
- "off": the traceback untouched.

The exception itself (class, message, `__cause__`, notes) is left as raised. On the success
path a boundary costs one Python call and a `try`; all the work happens once an exception
escapes. Example:

    >>> @api_boundary
    ... def my_transform(f, x):
    ...     return f(x)
"""
from __future__ import annotations

import functools
import os
import sys
import traceback
import types

from pyjax._src import source_info
from pyjax._src.config import config

_flags = config._tls  # (the current thread's flag values)

# (it opens with JAX's words "For simplicity": tools and JAX's tests look for them)
SIMPLIFIED_TB_MSG = ("For simplicity, pyjax removed its internal frames from this exception's "
                     "traceback, to point at your code. Set JAX_TRACEBACK_FILTERING=off (or "
                     "jax.config.update('jax_traceback_filtering', 'off')) to include them.")
_NOTE = "--------------------\n" + SIMPLIFIED_TB_MSG

_UNFILTERED_MSG = ("The stack trace below includes pyjax's internal frames.\n"
                   "The exception above is the original one, unchanged, with those frames removed.")


class UnfilteredStackTrace(Exception):
    """The full traceback of an exception whose own traceback was filtered ("remove_frames")."""


# Paths libraries registered (files or directories). A list, as JAX's: flax's
# show_flax_in_tracebacks takes its paths out of it again.
_exclude_paths: list = []


def register_exclusion(path: str) -> None:
    """Treat the file `path` (or every file under the directory `path`) as library code: its
    frames are dropped from filtered tracebacks and skipped when finding the user's line.

    Example:
        >>> register_exclusion(__file__)   # in a library built on pyjax
    """
    _exclude_paths.append(path)
    source_info.register_exclusion(os.path.abspath(path))


def include_filename(filename: str) -> bool:
    """Whether frames of `filename` are the user's (not pyjax's, nor a registered library's)."""
    if filename.startswith(source_info._PYJAX_DIR) or filename.startswith("<frozen"):
        return False
    for path in _exclude_paths:
        path = os.path.abspath(path)
        if filename == path or (filename.startswith(path)
                                and filename[len(path):len(path) + 1] in (os.sep, "/")):
            return False
    return True


def include_frame(frame) -> bool:
    """Whether a traceback frame is the user's (see `include_filename`)."""
    return include_filename(frame.f_code.co_filename)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """`tb` without its internal frames. If none of its frames is the user's, the innermost one
    (where the exception was raised) stays, so the traceback still says where it happened.

    NB: JAX leaves an empty traceback then."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    kept = [t for t in entries if include_frame(t.tb_frame) and not _is_boundary_frame(t.tb_frame)]
    if not kept and entries:
        kept = entries[-1:]  # NB: JAX keeps no frame here; the raise site says where it failed
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def _running_under_ipython() -> bool:
    return "IPython" in sys.modules and getattr(sys.modules["IPython"], "get_ipython",
                                                 lambda: None)() is not None


def filtering_mode() -> str:
    """The effective mode: jax_traceback_filtering with "auto" resolved."""
    mode = _flags.values["jax_traceback_filtering"]
    if mode is None or mode == "auto":
        mode = "tracebackhide" if _running_under_ipython() else "quiet_remove_frames"
    return mode


def _is_boundary_frame(frame) -> bool:
    return frame.f_code is _BOUNDARY_CODE


def _under_boundary(frame) -> bool:
    """Whether some caller of `frame` (a boundary's own frame) is a boundary too."""
    f = frame.f_back
    while f is not None:
        if f.f_code is _BOUNDARY_CODE:
            return True
        f = f.f_back
    return False


def _full_traceback(tb):
    """`tb` extended by the frames that called it, out to the first module-level code."""
    out = tb
    f = tb.tb_frame.f_back
    while f is not None:
        out = types.TracebackType(out, f, f.f_lasti, f.f_lineno)
        if f.f_code.co_name == "<module>":
            break
        f = f.f_back
    return out


def _hide_internal_frames(tb):
    while tb is not None:
        f = tb.tb_frame
        if not include_frame(f) or _is_boundary_frame(f):
            f.f_locals["__tracebackhide__"] = True
        tb = tb.tb_next


def _filter(e: BaseException, mode: str) -> None:
    """Rewrite the traceback of `e` (escaping the outermost boundary) as `mode` says."""
    tb = e.__traceback__
    if mode == "tracebackhide":
        _hide_internal_frames(tb)
        return
    if mode not in ("quiet_remove_frames", "remove_frames"):
        raise ValueError(f"jax_traceback_filtering={mode!r} is not a valid value.")
    e.with_traceback(filter_traceback(tb))
    if mode == "quiet_remove_frames":
        if _NOTE not in getattr(e, "__notes__", ()):
            e.add_note(_NOTE)
        return
    unfiltered = UnfilteredStackTrace(
        "".join(traceback.format_exception_only(e)).strip()
        + "\n\n" + _UNFILTERED_MSG)
    unfiltered.with_traceback(_full_traceback(tb))
    unfiltered.__cause__, unfiltered.__context__ = e.__cause__, e.__context__
    unfiltered.__suppress_context__ = e.__suppress_context__
    e.__cause__, e.__context__ = unfiltered, None


def api_boundary(fun=None, **kwargs):
    """Mark `fun` as a public entry point: an exception escaping it (and no outer boundary)
    loses pyjax's internal frames from its traceback, per jax_traceback_filtering.
    (JAX's `repro_api_name`/`repro_user_func` keywords are accepted and ignored.)

    Example:
        >>> @api_boundary
        ... def grad_f(*args):
        ...     ...
    """
    del kwargs
    if fun is None:
        return api_boundary

    @functools.wraps(fun)
    def reraise_with_filtered_traceback(*args, **kwargs):
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            mode = _flags.values["jax_traceback_filtering"]
            if mode == "off" or e.__traceback__ is None:
                raise
            if _under_boundary(sys._getframe()):
                raise  # an outer boundary filters it
            _filter(e, filtering_mode())
            raise

    return reraise_with_filtered_traceback


_BOUNDARY_CODE = api_boundary(lambda: None).__code__  # every boundary's frame runs this code
