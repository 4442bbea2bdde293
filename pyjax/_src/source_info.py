"""Where operations come from: the user's own source line (the first frame outside pyjax) for
error messages, and the name stack (`named_scope` / `named_call`) recorded on every equation."""
import linecache
import os
import sys
import threading
from contextlib import contextmanager

_PYJAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Files of libraries built on pyjax that are not the user's code either (equinox registers its
# own through jax._src.traceback_util.register_exclusion).
_excluded_files: set = set()


def register_exclusion(path: str) -> None:
    """Skip frames of the file `path` when looking for the user's source line."""
    _excluded_files.add(path)


def user_frame():
    """The innermost frame whose file lies outside the pyjax package and the registered
    exclusions (None if there is none)."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if (not fn.startswith(_PYJAX_DIR) and not fn.startswith("<frozen")
                and fn not in _excluded_files):
            return f
        f = f.f_back
    return None


def user_frame_str():
    f = user_frame()
    if f is None:
        return ""
    return frame_str(f)


def frame_str(f) -> str:
    return f"{f.f_code.co_filename}:{f.f_lineno} ({f.f_code.co_name})"


def frame_line(f) -> str:
    """The stripped source text of the frame's current line ('' if unavailable)."""
    return linecache.getline(f.f_code.co_filename, f.f_lineno).strip()


def is_user_file(filename: str) -> bool:
    """Whether `filename` is the user's code (not pyjax's, nor a registered exclusion)."""
    return (not filename.startswith(_PYJAX_DIR) and not filename.startswith("<frozen")
            and filename not in _excluded_files)


# -- the name stack ------------------------------------------------------------------------------
#
# `named_scope` / `named_call` push names; every staged equation records the stack current when
# it was traced (with the traceback) in its `source_info`, and the lowering writes both into the
# module's locations when asked (`Lowered.as_text(debug_info=True)`):
# `loc("jit(f)/outer/inner/sin"("file.py":4:0))`, as JAX does.


class Transform(str):
    """A transformation's entry in a name stack: it wraps the scope pushed after it,
    `jvp(outer)`, `transpose(jvp(outer))` (`jvp()` when none was)."""

    __slots__ = ()


class NameStack(tuple):
    """The names of the scopes an equation was traced in, outermost first, and the
    transformations around them; `str` renders it as JAX does: `vmap(jvp(outer))/inner`."""

    __slots__ = ()

    def __str__(self):
        scope = []
        for elem in reversed(self):
            if type(elem) is Transform:
                if scope:
                    scope[-1] = f"{elem}({scope[-1]})"
                else:
                    scope.append(f"{elem}()")
            else:
                scope.append(elem)
        return "/".join(reversed(scope))

    def extend(self, name: str) -> "NameStack":
        return NameStack(self + (name,))

    def transform(self, name: str) -> "NameStack":
        return NameStack(self + (Transform(name),))

    def __add__(self, other):
        return NameStack(tuple.__add__(self, other))


_EMPTY = NameStack()


class _NameStackState(threading.local):
    def __init__(self):
        self.stack = _EMPTY
        self.traceback = None  # set by `user_context`: equations traced now take this one


name_stack_state = _NameStackState()


def current_name_stack() -> NameStack:
    return name_stack_state.stack


@contextmanager
def extend_name_stack(name: str):
    """Push `name` on the name stack for the block."""
    state = name_stack_state
    prev = state.stack
    state.stack = prev.extend(name)
    try:
        yield state.stack
    finally:
        state.stack = prev


@contextmanager
def transform_name_stack(name: str):
    """Mark the block as traced under the transformation `name` (jvp, transpose, vmap)."""
    state = name_stack_state
    prev = state.stack
    state.stack = prev.transform(name)
    try:
        yield state.stack
    finally:
        state.stack = prev


@contextmanager
def set_name_stack(stack):
    state = name_stack_state
    prev, state.stack = state.stack, NameStack(stack)
    try:
        yield
    finally:
        state.stack = prev


def reset_name_stack():
    """An empty name stack for the block (a traced body's names are relative to it)."""
    return set_name_stack(_EMPTY)


class user_context:
    """Equations traced in the block take `traceback` (when given) as where they came from,
    and `name_stack` (when given) as their name stack: an interpreter re-tracing an equation
    keeps its origin. (A class, not a generator: the backward pass enters one per equation.)"""

    __slots__ = ("_traceback", "_stack", "_prev")

    def __init__(self, traceback=None, name_stack=None):
        self._traceback = traceback
        self._stack = None if name_stack is None else NameStack(name_stack)

    def __enter__(self):
        state = name_stack_state
        self._prev = state.stack, state.traceback
        if self._stack is not None:
            state.stack = self._stack
        if self._traceback is not None:
            state.traceback = self._traceback

    def __exit__(self, *exc):
        state = name_stack_state
        state.stack, state.traceback = self._prev
        return False


class SourceInfo:
    """Where an equation was traced: the (jaxlib) traceback and the name stack. It answers the
    traceback's `frames` and `as_python_traceback()` too, so code reading an equation's
    source_info as a traceback keeps working."""

    __slots__ = ("traceback", "name_stack")

    def __init__(self, traceback, name_stack=_EMPTY):
        self.traceback = traceback
        self.name_stack = name_stack

    @property
    def frames(self):
        return self.traceback.frames if self.traceback is not None else []

    def as_python_traceback(self):
        return self.traceback.as_python_traceback() if self.traceback is not None else None

    def user_frame(self):
        """(file, line, column, function) of the innermost user frame, or None."""
        for f in self.frames:
            if is_user_file(f.file_name):
                return f.file_name, f.line_num, 0, f.function_name
        return None

    def __repr__(self):
        where = self.user_frame()
        at = f" at {where[0]}:{where[1]}" if where else ""
        return f"SourceInfo(name_stack={str(self.name_stack)!r}{at})"


def traceback_of(source_info):
    """The traceback held by an equation's source_info (a SourceInfo or a bare traceback)."""
    return source_info.traceback if isinstance(source_info, SourceInfo) else source_info


def user_frame_of(source_info) -> str:
    """`file:line (function)` of the user's frame in an equation's source_info, or ''."""
    tb = traceback_of(source_info)
    for f in (tb.frames if tb is not None else ()):
        if is_user_file(f.file_name):
            return f"{f.file_name}:{f.line_num} ({f.function_name})"
    return ""


def name_stack_of(source_info) -> NameStack:
    return source_info.name_stack if isinstance(source_info, SourceInfo) else _EMPTY
