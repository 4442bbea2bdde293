"""The hottest NumPy functions and the operators of concrete arrays, on C++ dispatch.

As in JAX, `jnp.sin`, `jnp.sum` or `x + y` called on concrete arrays are whole jitted functions
(`jit(..., inline=True)`): after the first call of a signature, jaxlib's C++ dispatcher runs
the compiled function with no Python work at all. Under a transformation `inline=True` makes
them trace as if not jitted (the jaxpr holds `sin`, not a nested `jit`), and a call C++ cannot
handle (a list, an object with `__jax_array__`, a string) runs the plain function, whose own
checks raise the right error.

Only functions whose result does not depend on the *values* of their arguments are here: under
jit every argument is traced, so `jnp.power(x, 2)` (which looks at a concrete exponent) and
indexing (static indices) keep their Python paths. Tracers keep the plain functions as methods
and operators: for them the C++ detour would only cost time.

The numpy layer cannot import jit (it sits below the api layer), so the wrapping is done here,
and `pyjax.numpy` exports these versions.
"""
from __future__ import annotations

import inspect

import numpy as np

from pyjax._src import dtypes, pjit
from pyjax._src.array import ArrayImpl
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.numpy import array_methods, ufunc_api, ufuncs
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy.util import promote_args_inexact

_ELEMENTWISE = [
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
    "arccosh", "arctanh", "exp", "exp2", "log", "log1p", "expm1", "sqrt", "cbrt", "negative",
    "add", "subtract", "multiply", "maximum", "minimum", "arctan2", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal", "bitwise_and", "bitwise_or", "bitwise_xor",
    "left_shift", "right_shift", "logical_and", "logical_or", "logical_xor", "logical_not",
    "invert", "true_divide", "divide", "floor_divide", "remainder", "square", "reciprocal",
    "positive", "absolute", "abs", "sign", "floor", "ceil", "trunc", "isfinite", "isinf", "isnan",
    "log2", "log10", "logaddexp", "hypot",
    "gcd", "lcm",  # (a while loop each: compiled once per signature, not per call, as JAX)
]

ufunc_api.method_jit["jit"] = pjit.jit  # ufunc.reduce, .at, ...: jitted as JAX's

_REDUCTIONS = ["sum", "prod", "max", "min", "all", "any", "mean"]
_STATIC = ("axis", "dtype", "keepdims", "promote_integers")


def _jit_inline(fun, static_argnames=()):
    out = pjit.jit(fun, static_argnames=static_argnames, inline=True)
    out.__module__ = "pyjax.numpy"
    return out


def _reduction(name):
    """`jnp.<name>` with its static arguments (axis, dtype, keepdims) made hashable first; calls
    with `initial=` or `where=` keep the Python path (they are rare, and `initial` is a value)."""
    plain = getattr(jred, name)
    static = [p for p in inspect.signature(plain).parameters if p in _STATIC]
    jitted = _jit_inline(plain, static)

    def reduce(a, axis=None, *args, **kwargs):
        if args or kwargs.get("initial") is not None or kwargs.get("where") is not None:
            return plain(a, axis, *args, **kwargs)
        if type(axis) is list or (isinstance(axis, np.ndarray) and axis.ndim):
            axis = tuple(axis.tolist() if isinstance(axis, np.ndarray) else axis)
        return jitted(a, axis, **kwargs)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = plain.__doc__
    reduce.__signature__ = inspect.signature(plain)
    reduce.__wrapped__ = plain
    return reduce


# -- logaddexp and logaddexp2, with JAX's custom JVP ------------------------------------------
#
# Autodiff of the stable formula (max + log1p(exp(-|x1 - x2|))) gives the derivative of max and
# abs at x1 == x2: 0 instead of 1/2. JAX gives these two functions a rule; it needs custom_jvp,
# which sits above the numpy layer, so the versions with the rule are made here and
# `pyjax.numpy` exports them.

def _inf_to_zero(v):
    """v with +inf (a complex v: real part +inf) read as 0."""
    re = ufuncs.real(v) if dtypes.issubdtype(dtypes.dtype_of(v), np.complexfloating) else v
    return ufuncs.where_(ufuncs.isposinf(re), ufuncs._zero_like(v), v)


def _with_logaddexp_rule(name, plain, power):
    """`plain` (logaddexp or its base-2 twin) with JAX's rule: d out = t1 b^(x1 - out) +
    t2 b^(x2 - out) for base b (`power` is exp or exp2); +inf read as 0, so inf - inf makes
    no NaN. Arguments are promoted first, as the plain function does."""
    @custom_jvp
    def f(x1, x2):
        return plain(x1, x2)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = f(x1, x2)
        w1 = power(ufuncs.subtract(_inf_to_zero(x1), _inf_to_zero(out)))
        w2 = power(ufuncs.subtract(_inf_to_zero(x2), _inf_to_zero(out)))
        return out, ufuncs.add(ufuncs.multiply(t1, w1), ufuncs.multiply(t2, w2))

    def with_rule(x1, x2, /):
        return f(*promote_args_inexact(name, x1, x2))
    with_rule.__name__ = with_rule.__qualname__ = name
    with_rule.__doc__ = plain.__doc__ or f"`{name}`, with JAX's derivative at x1 == x2."
    return with_rule


logaddexp = _with_logaddexp_rule("logaddexp", ufuncs.logaddexp, ufuncs.exp)
logaddexp2 = _with_logaddexp_rule("logaddexp2", ufuncs.logaddexp2, ufuncs.exp2)


# jnp.var/std compute the variance in a jit of their own, as JAX does (see reductions.var_call)
jred.var_call[0] = pjit.jit(jred._var, static_argnames=("axis", "dtype", "ddof", "keepdims"))


# The plain function each fast one replaces wherever `pyjax.numpy` exports it.
PLAIN = {name: getattr(ufuncs, name) for name in _ELEMENTWISE if hasattr(ufuncs, name)}
PLAIN.update({name: getattr(jred, name) for name in _REDUCTIONS})
_WITH_RULES = {"logaddexp": logaddexp, "logaddexp2": logaddexp2}
PLAIN["logaddexp2"] = ufuncs.logaddexp2

FUNCTIONS = {name: _jit_inline(_WITH_RULES.get(name, plain)) for name, plain in PLAIN.items()
             if name not in _REDUCTIONS}
FUNCTIONS.update({name: _reduction(name) for name in _REDUCTIONS})


def _attach_to_arrays():
    """Concrete arrays' operators and reduction methods call the C++-dispatched functions."""
    f = FUNCTIONS
    defer, swap = array_methods._defer, array_methods._swap
    binary = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
              "floordiv": "floor_divide", "mod": "remainder", "and": "bitwise_and",
              "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift",
              "rshift": "right_shift"}
    for op, name in binary.items():
        setattr(ArrayImpl, f"__{op}__", defer(f[name]))
        setattr(ArrayImpl, f"__r{op}__", defer(swap(f[name])))
    for op, name in {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                     "gt": "greater", "ge": "greater_equal"}.items():
        setattr(ArrayImpl, f"__{op}__", defer(f[name]))
    for op, name in {"neg": "negative", "pos": "positive", "abs": "absolute",
                     "invert": "invert"}.items():
        setattr(ArrayImpl, f"__{op}__", f[name])
    for name in _REDUCTIONS:
        setattr(ArrayImpl, name, array_methods._method(f[name]))


_attach_to_arrays()
