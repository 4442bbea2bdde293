"""`jax.stages`: the ahead-of-time stages of a jitted function (`jit(f).trace(...)`,
`.lower()`, `.compile()`), for annotations and isinstance checks (equinox annotates with them)."""
from __future__ import annotations

from typing import Any, Protocol

from pyjax._src.stages import ArgInfo as ArgInfo
from pyjax._src.stages import Compiled as Compiled
from pyjax._src.stages import Lowered as Lowered
from pyjax._src.stages import Traced as Traced

CompilerOptions = dict[str, Any]


class Wrapped(Protocol):
    """A jitted function: callable, with `.trace` / `.lower`."""

    def __call__(self, *args, **kwargs): ...

    def lower(self, *args, **kwargs) -> Lowered: ...
