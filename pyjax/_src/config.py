"""Global configuration flags (`pyjax.config.update("jax_enable_x64", True)`).

Flags read environment variables once at import (`JAX_ENABLE_X64=1`), can be changed at run time
with `config.update`, and can be read as attributes (`config.jax_enable_x64`). Listeners let the
backend mirror a flag into jaxlib's own state.
"""
import os

_TRUTHY = {"1", "true", "yes", "on", "t", "y"}


def _env_bool(name, default):
    v = os.environ.get(name)
    return default if v is None else v.strip().lower() in _TRUTHY


class Config:
    def __init__(self):
        self._values = {}
        self._listeners = {}

    def define(self, name, default, env=None):
        if env is not None and isinstance(default, bool):
            default = _env_bool(env, default)
        elif env is not None and env in os.environ:
            default = type(default)(os.environ[env]) if default is not None else os.environ[env]
        self._values[name] = default

    def update(self, name, value):
        if name not in self._values:
            raise AttributeError(f"Unrecognized config option: {name}")
        self._values[name] = value
        for fn in self._listeners.get(name, ()):
            fn(value)

    def on_change(self, name, fn):
        self._listeners.setdefault(name, []).append(fn)

    def read(self, name):
        return self._values[name]

    def __getattr__(self, name):
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"Unrecognized config option: {name}") from None

    def values(self):
        return dict(self._values)


config = Config()
config.define("jax_enable_x64", False, env="JAX_ENABLE_X64")
config.define("jax_disable_jit", False, env="JAX_DISABLE_JIT")
config.define("jax_debug_nans", False, env="JAX_DEBUG_NANS")
config.define("jax_numpy_rank_promotion", "allow")
config.define("jax_numpy_dtype_promotion", "standard")
config.define("jax_default_matmul_precision", None)
config.define("jax_log_compiles", False, env="PYJAX_LOG_COMPILES")
config.define("jax_platforms", None)
config.define("jax_platform_name", None)
config.define("jax_default_prng_impl", "threefry2x32")
config.define("jax_threefry_partitionable", True)
config.define("jax_enable_checks", False)
# NB: pyjax explains repeated recompilations by default (JAX hides them).
config.define("jax_explain_cache_misses", False)


def x64_enabled():
    return config._values["jax_enable_x64"]


class _FlagContext:
    """`with pyjax.enable_x64(True): ...` style scoped flag."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __enter__(self):
        self.prev = config.read(self.name)
        config.update(self.name, self.value)

    def __exit__(self, *exc):
        config.update(self.name, self.prev)


def enable_x64(new_val=True):
    return _FlagContext("jax_enable_x64", bool(new_val))


def disable_jit(disable=True):
    return _FlagContext("jax_disable_jit", bool(disable))
