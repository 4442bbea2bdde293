"""Find the user's own source line (the first frame outside pyjax) for error messages."""
import linecache
import os
import sys

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
