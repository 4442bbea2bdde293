"""Names libraries import but pyjax does not implement: importable, failing clearly when used."""
from __future__ import annotations


def unsupported(jax_name: str, why: str = ""):
    """A callable standing for `jax_name` that raises NotImplementedError when called."""
    def stub(*args, **kwargs):
        raise NotImplementedError(
            f"{jax_name} is not implemented by pyjax (it stands in for jax through "
            f"pyjax.as_jax){': ' + why if why else ''}")
    stub.__name__ = jax_name.rpartition(".")[2]
    stub.__qualname__ = stub.__name__
    return stub


class UnsupportedType:
    """A class standing for a JAX type pyjax lacks: importable and usable in isinstance checks
    and as a base class (never matches a pyjax value); instantiating it raises."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"{type(self).__qualname__} is not implemented by pyjax (it stands in for jax "
            "through pyjax.as_jax)")


def unsupported_transform(jax_name: str, why: str = ""):
    """A function transformation pyjax lacks: applying it works (libraries apply them at import
    to learn the wrapper's type), calling the result raises NotImplementedError."""
    call = unsupported(jax_name, why)

    def transform(fun, *args, **kwargs):
        def transformed(*a, **k):
            return call()
        transformed.__wrapped__ = fun
        return transformed
    transform.__name__ = jax_name.rpartition(".")[2]
    transform.__qualname__ = transform.__name__
    return transform


def module_getattr(module_name: str, why: str = ""):
    """A module `__getattr__` for a shim of a JAX-internal module: a name the shim does not
    define imports as a stub that raises NotImplementedError when called (or instantiated, for
    names spelled like classes), so a test file importing it collects and fails only where it
    uses it. Dunder and `_pytest`-style probes stay AttributeErrors."""
    def __getattr__(name):
        if name.startswith("__") or name in ("pytest_plugins",):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        if name[:1].isupper() and not name.isupper():
            return type(name, (UnsupportedType,), {"__module__": module_name})
        return unsupported(f"{module_name}.{name}", why)
    return __getattr__
