"""The switch: `import jax` (and every `jax.X`) resolves to pyjax for the rest of the process.

    import pyjax; pyjax.as_jax()
    import optax          # optax's own `import jax` gets pyjax; so does the program's from now on

after which the program's `jax` is the module `pyjax` and `jax.numpy` is `pyjax.numpy`.
For a whole program: `python -m pyjax run train.py --lr 3e-4`.

`jax.X` is the module object `pyjax.X`, not a copy, so `jax.numpy is pyjax.numpy` and state
(config, caches, registered pytrees) is shared. Where a library imports a module whose contents
differ in pyjax's layout (`jax.core`, `jax.interpreters.ad`, the private `jax._src...` names
libraries reach into), a shim under `pyjax._jax_compat` stands in for it where pyjax has no module
of that name. `jaxlib` stays jaxlib.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import threading

_COMPAT = "pyjax._jax_compat"


class JaxAliasError(ImportError):
    """The switch cannot be turned on: the real jax is already imported in this process."""


def _shim_name(rest: str) -> str:
    """The compat shim standing for `jax<rest>` (`._src.X` shims live under `.internal.X`)."""
    return _COMPAT + (".internal" + rest[len("._src"):] if rest.startswith("._src.") else rest)


_looking_up = threading.local()


def _exists(module: str) -> bool:
    """Whether `module` can be imported, asked of the other finders only (this finder, asked
    about a `pyjax.X` name, itself asks whether pyjax has it)."""
    _looking_up.on = True
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False
    finally:
        _looking_up.on = False


def _target(name: str) -> str | None:
    """The pyjax module that stands for `jax.<rest>`: pyjax's own module of that name, else a
    compat shim; None when pyjax has neither.

    NB: pyjax's own module wins over a shim: importing `jax.a.b` binds the result as attribute
    `b` of the module standing for `jax.a`, so a shim chosen over pyjax's `pyjax.a.b` would
    replace it as `pyjax.a.b` (an attribute pyjax's own code reads)."""
    rest = name[len("jax"):]
    for candidate in (("pyjax" + rest, _shim_name(rest)) if rest else ("pyjax",)):
        if _exists(candidate):
            return candidate
    return None


def _shim_for_pyjax_name(name: str) -> str | None:
    """`from jax.experimental import checkify` imports `pyjax.experimental.checkify` (the import
    system names a submodule after its parent's own name): a `pyjax.X` that pyjax lacks is
    its shim's, when there is one."""
    if name.startswith(_COMPAT) or _exists(name):
        return None
    shim = _shim_name(name[len("pyjax"):])
    return shim if _exists(shim) else None


# The submodules that `import jax` makes attributes of `jax` (libraries write `jax.core.Tracer`
# after a bare `import jax`); with the switch on they are imported when it turns on.
_JAX_ATTRIBUTE_MODULES = ("api_util", "core", "interpreters", "monitoring", "stages", "typing",
                          "version", "lib", "_src.xla_bridge")


class _AliasLoader(importlib.abc.Loader):
    """Hands out the already imported pyjax module under its `jax` name."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module):
        # Executed under its own name already. The import system has just set the alias's spec
        # on the module: give it back its own, so pyjax's modules keep one identity.
        module.__spec__ = self.own_spec


class _JaxToPyjax(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if getattr(_looking_up, "on", False):
            return None
        if name.startswith("pyjax."):
            mod = _shim_for_pyjax_name(name)
            return None if mod is None else self._alias_spec(name, mod)
        if name != "jax" and not name.startswith("jax."):
            return None
        mod = _target(name)
        if mod is None:
            raise ModuleNotFoundError(
                f"No module named {name!r}: pyjax (standing in for jax through pyjax.as_jax) "
                f"has no {'pyjax' + name[len('jax'):]!r} yet", name=name)
        return self._alias_spec(name, mod)

    @staticmethod
    def _alias_spec(name, mod):
        spec = importlib.util.spec_from_loader(name, _AliasLoader(mod))
        if importlib.util.find_spec(mod).submodule_search_locations is not None:
            spec.submodule_search_locations = []  # a package: `import jax.x.y` goes on
        return spec


def _is_alias_on() -> bool:
    return any(isinstance(f, _JaxToPyjax) for f in sys.meta_path)


def as_jax() -> None:
    """From now on, `import jax` and `import jax.<anything>` in this process give pyjax's
    modules. Call it before anything imports jax; it is an error if the real jax is imported."""
    current = sys.modules.get("jax")
    if current is not None and getattr(current, "__name__", None) != "pyjax":
        raise JaxAliasError(
            "pyjax.as_jax(): the real jax is already imported in this process "
            f"({getattr(current, '__file__', current)!s}), so `jax` cannot become pyjax: call "
            "pyjax.as_jax() before anything imports jax, or run the program with "
            "`python -m pyjax run ...`")
    if not _is_alias_on():
        sys.meta_path.insert(0, _JaxToPyjax())
    importlib.import_module("jax")  # `jax` in sys.modules from now on (pyjax itself)
    for module, stubs in importlib.import_module(_COMPAT + ".toplevel").STUBS.items():
        module = importlib.import_module("jax." + module if module else "jax")
        for name, stub in stubs.items():
            if not hasattr(module, name):
                setattr(module, name, stub)
    for sub in _JAX_ATTRIBUTE_MODULES:
        if _target("jax." + sub) is not None:
            importlib.import_module("jax." + sub)
