"""`jax.extend.source_info_util`: where an operation came from (its traceback and name stack),
as recorded on every staged equation (`eqn.source_info`)."""
from __future__ import annotations

from pyjax._src.backend import xla
from pyjax._src.source_info import NameStack as NameStack
from pyjax._src.source_info import SourceInfo as SourceInfo
from pyjax._src.source_info import current_name_stack as current_name_stack
from pyjax._src.source_info import extend_name_stack as extend_name_stack
from pyjax._src.source_info import register_exclusion as register_exclusion
from pyjax._src.source_info import reset_name_stack as reset_name_stack
from pyjax._src.source_info import set_name_stack as set_name_stack
from pyjax._src.source_info import transform_name_stack as transform_name_stack
from pyjax._src.source_info import user_context as user_context
from pyjax._src.source_info import user_frame_of


def current() -> SourceInfo:
    """The source info an equation staged now would get."""
    return SourceInfo(xla.get_traceback(), current_name_stack())


def new_source_info() -> SourceInfo:
    return SourceInfo(None, NameStack())


def new_name_stack(name: str = "") -> NameStack:
    return NameStack((name,)) if name else NameStack()


def summarize(source_info, num_frames=1) -> str:
    """`file:line (function)` of the user's frame (a SourceInfo, or a Python frame)."""
    if source_info is None:
        return ""
    if hasattr(source_info, "f_code"):  # a frame object
        return f"{source_info.f_code.co_filename}:{source_info.f_lineno}"
    return user_frame_of(source_info)
