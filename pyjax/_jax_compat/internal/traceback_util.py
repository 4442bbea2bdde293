"""`jax._src.traceback_util`: libraries register their files so that errors point past them
at the user's line (equinox registers each of its modules), and mark their own entry points as
API boundaries; both are pyjax's (pyjax/_src/traceback_util.py)."""
from __future__ import annotations

from pyjax._src.traceback_util import (  # noqa: F401
    SIMPLIFIED_TB_MSG as _simplified_tb_msg,
    UnfilteredStackTrace as UnfilteredStackTrace,
    _exclude_paths as _exclude_paths,
    api_boundary as api_boundary,
    filter_traceback as filter_traceback,
    include_filename as include_filename,
    include_frame as include_frame,
    register_exclusion as register_exclusion,
)
