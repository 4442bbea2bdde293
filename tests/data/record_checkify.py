"""Record JAX 0.10.2's checkify behaviour (error messages, which error wins, outputs, exception
classes) and jax_debug_nans / jax_debug_infs messages.

Run with the reference JAX environment (never needed by the tests):

    /root/scratch/jaxref/bin/python tests/data/record_checkify.py

It writes tests/data/checkify.json, which tests/test_checkify.py and tests/test_debug_nans.py
replay with pyjax. Each case is a source snippet run with `jax`, `jnp`, `lax`, `np` and
`checkify` in scope (and the PRELUDE's functions); it leaves its value in `result`.
"""
import json
import os
import sys

PRELUDE = '''
def pos_check(x):
    checkify.check(x > 0, "x must be positive, got {}", x)
    return jnp.sin(x)

def kw_check(x):
    checkify.check(jnp.all(x < 3), "too big: {x} (limit {lim})", x=x, lim=jnp.int32(3))
    return x * 2

def logf(x):
    return jnp.log(x)

def floordiv(x, y):
    return x // y

def fdiv(x, y):
    return x / y

def take(x, i):
    return x[i]

def take_many(x, idx):
    return x[idx]

def add_at(x, idx):
    return x.at[idx].add(1.0)

def dus(x, u, i):
    return lax.dynamic_update_slice(x, u, (i,))

def gather_mode(x, idx, mode):
    return x.at[idx].get(mode=mode)

def two_errors(x, y):
    a = jnp.log(x)       # NaN first in program order
    b = y // 0           # then a division by zero
    return a, b

def two_errors_reversed(x, y):
    b = y // 0
    a = jnp.log(x)
    return a, b

def scan_log(xs):
    def body(c, x):
        return c + jnp.log(x), c
    return lax.scan(body, 0.0, xs)

def scan_check(xs):
    def body(c, x):
        checkify.check(x < 10, "element {} too big", x)
        return c + x, c * 2
    return lax.scan(body, 0.0, xs)

def while_check(n):
    def cond(c):
        return c[0] < n
    def body(c):
        i, acc = c
        checkify.check(i < 3, "step {} reached", i)
        return i + 1, acc + jnp.log(3.0 - i)
    return lax.while_loop(cond, body, (0, 0.0))

def while_cond_error(x):
    def cond(c):
        return c + c // x < 5
    return lax.while_loop(cond, lambda c: c + 1, 0)

def fori_index(x, i):
    return lax.fori_loop(0, 3, lambda k, acc: acc + x[i + k], 0.0)

def cond_log(p, x):
    return lax.cond(p, jnp.log, lambda v: v * 2.0, x)

def cond_check(p, x):
    def yes(v):
        checkify.check(v > 0, "branch got {}", v)
        return v + 1.0
    return lax.cond(p, yes, lambda v: v - 1.0, x)

def nested_jit(x):
    return jax.jit(lambda v: jnp.sqrt(v) + 1.0)(x) * 2.0

def remat_log(x):
    return jax.checkpoint(lambda v: jnp.log(v) * 2.0)(x)

@jax.custom_jvp
def safe_log(x):
    return jnp.log(x)

@safe_log.defjvp
def _safe_log_jvp(p, t):
    return safe_log(p[0]), t[0] / p[0]

def sqrt_sum(x):
    return jnp.sum(jnp.sqrt(x))

def run(f, errors, *args):
    err, out = checkify.checkify(f, errors=errors)(*args)
    return err.get(), out

def run_jit(f, errors, *args):
    err, out = jax.jit(checkify.checkify(f, errors=errors))(*args)
    return err.get(), out

def throw(err):
    try:
        err.throw()
    except Exception as e:
        return type(e).__name__, str(e)
    return None
'''

A = "jnp.array"
CASES = [
    # user checks
    ("check_ok", "result = run(pos_check, checkify.user_checks, jnp.float32(1.0))"),
    ("check_fail", "result = run(pos_check, checkify.user_checks, jnp.float32(-1.0))"),
    ("check_fail_jit", "result = run_jit(pos_check, checkify.user_checks, jnp.float32(-2.0))"),
    ("check_fail_vmap", "err, out = jax.vmap(checkify.checkify(pos_check))(jnp.array([1.0, -1.0, 2.0, -3.0]))\n"
                        "result = err.get(), out"),
    ("check_kwargs", f"result = run(kw_check, checkify.all_checks, {A}([1, 5, 2]))"),
    ("check_format_float_array", "result = run(lambda x: checkify.check(jnp.all(x < 0), 'values {}', x), checkify.user_checks, jnp.array([1.5, 2.0, -0.25]))"),
    ("check_format_spec", "result = run_jit(lambda x: checkify.check(x < 0, 'value {v:.3f} / {w}', v=x, w=x.astype(jnp.int32)), checkify.user_checks, jnp.float32(2.0))"),
    ("check_format_pytree", "result = run_jit(lambda x: checkify.check(x[0] < 0, 'got {} and {}', {'a': x}, (x[0],)), checkify.user_checks, jnp.array([3.0, 4.0]))"),
    ("check_not_enabled", "result = run(pos_check, checkify.float_checks, jnp.float32(-1.0))"),
    ("check_grad", "(out, err), g = jax.value_and_grad(lambda x: checkify.checkify(pos_check)(x)[::-1], has_aux=True)(-1.0)\n"
                   "result = err.get(), out, g"),
    ("check_throw", "result = throw(checkify.checkify(pos_check)(jnp.float32(-1.0))[0])"),
    ("check_no_error_throw", "result = throw(checkify.checkify(pos_check)(jnp.float32(1.0))[0])"),
    ("check_eager_unfunctionalized", "pos_check(-1.0)\nresult = 'no error'"),
    ("check_eager_unfunctionalized_ok", "result = pos_check(1.0)"),
    ("check_eager_unfunctionalized_arr", "pos_check(jnp.float32(-1.0))\nresult = 'no error'"),
    ("check_eager_unfunctionalized_arr_ok", "result = pos_check(jnp.float32(1.0))"),
    ("check_jit_unfunctionalized", "result = jax.jit(pos_check)(jnp.float32(1.0))"),
    ("check_vmap_unfunctionalized", "result = jax.vmap(pos_check)(jnp.array([1.0, -1.0]))"),
    ("check_grad_unfunctionalized", "result = jax.grad(pos_check)(jnp.float32(-1.0))"),
    ("check_scan_unfunctionalized", "result = scan_check(jnp.array([1.0, 2.0]))"),
    ("check_nonscalar_pred", "checkify.check(jnp.array([True, False]), 'msg')\nresult = 1"),
    ("check_fmt_not_array", "checkify.checkify(lambda x: checkify.check(x > 0, 'bad {}', 3))(1.0)\nresult = 1"),
    ("debug_check_eager", "checkify.debug_check(jnp.array(False), 'ignored')\nresult = 'no error'"),
    ("debug_check_jit", "result = jax.jit(lambda x: (checkify.debug_check(x > 0, 'dbg {}', x), x * 2)[1])(-1.0)"),
    ("debug_check_checkify", "result = run_jit(lambda x: (checkify.debug_check(x > 0, 'dbg {}', x), x * 2)[1], checkify.user_checks, -1.0)"),
    ("check_error_rechecked", "def g(x):\n    err, out = jax.jit(checkify.checkify(pos_check))(x)\n    checkify.check_error(err)\n    return out\n"
                              "result = run(g, checkify.user_checks, -4.0)"),
    ("check_error_eager", "try:\n    checkify.check_error(checkify.checkify(pos_check)(jnp.float32(-1.0))[0])\n    result = None\n"
                          "except Exception as e:\n    result = type(e).__name__, str(e)"),
    ("check_error_bad_arg", "checkify.check_error(3)\nresult = 1"),
    # NaN checks
    ("nan_ok", "result = run(logf, checkify.nan_checks, 2.0)"),
    ("nan_eager", f"result = run(logf, checkify.nan_checks, {A}([1.0, -1.0]))"),
    ("nan_jit", f"result = run_jit(logf, checkify.float_checks, {A}([1.0, -1.0]))"),
    ("nan_vmap", "err, out = jax.vmap(checkify.checkify(logf, errors=checkify.nan_checks))(jnp.array([1.0, -1.0, -2.0]))\n"
                 "result = err.get(), out"),
    ("nan_not_enabled", f"result = run(logf, checkify.div_checks, {A}([1.0, -1.0]))"),
    ("nan_of_grad", "result = run(jax.grad(sqrt_sum), checkify.nan_checks, jnp.array([1.0, -1.0]))"),
    ("nan_grad_of_checkify", "(out, err), g = jax.value_and_grad(lambda x: checkify.checkify(sqrt_sum, errors=checkify.nan_checks)(x)[::-1], has_aux=True)(jnp.array([4.0, -1.0]))\n"
                             "result = err.get(), out, g"),
    ("nan_nested_jit", "result = run(nested_jit, checkify.nan_checks, -1.0)"),
    ("nan_remat", "result = run_jit(remat_log, checkify.nan_checks, -1.0)"),
    ("nan_custom_jvp", "result = run_jit(safe_log, checkify.nan_checks, -1.0)"),
    ("nan_custom_jvp_grad", "result = run(jax.grad(lambda x: safe_log(x) * 2.0), checkify.nan_checks, 2.0)"),
    ("nan_sin_inf", "result = run_jit(jnp.sin, checkify.nan_checks, jnp.inf)"),
    ("nan_mul", "result = run_jit(lambda x: x * 0.0, checkify.nan_checks, jnp.array([1.0, jnp.inf]))"),
    ("nan_sub", "result = run_jit(lambda x: x - x, checkify.nan_checks, jnp.inf)"),
    ("nan_dot", "result = run_jit(jnp.dot, checkify.nan_checks, jnp.array([jnp.inf, 1.0]), jnp.array([0.0, 1.0]))"),
    ("nan_sum", "result = run_jit(jnp.sum, checkify.nan_checks, jnp.array([jnp.inf, -jnp.inf]))"),
    ("nan_pow", "result = run_jit(lambda x: x ** 0.5, checkify.nan_checks, -1.0)"),
    ("nan_fmod", "result = run_jit(jnp.fmod, checkify.nan_checks, 1.0, 0.0)"),
    ("nan_passthrough_abs", "result = run_jit(jnp.abs, checkify.nan_checks, jnp.nan)"),
    ("nan_cumsum", "result = run_jit(jnp.cumsum, checkify.nan_checks, jnp.array([jnp.inf, -jnp.inf]))"),
    ("nan_int_only", "result = run_jit(lambda x: x * 2 + 1, checkify.nan_checks, jnp.arange(3))"),
    ("nan_throw", f"result = throw(checkify.checkify(logf, errors=checkify.nan_checks)({A}([-1.0]))[0])"),
    # division checks
    ("div_int", f"result = run(floordiv, checkify.div_checks, {A}([4, 5]), {A}([2, 0]))"),
    ("div_int_jit", f"result = run_jit(floordiv, checkify.div_checks, {A}([4, 5]), {A}([2, 0]))"),
    ("div_int_ok", f"result = run_jit(floordiv, checkify.div_checks, {A}([4, 5]), {A}([2, 3]))"),
    ("div_float", f"result = run(fdiv, checkify.div_checks, {A}([1.0]), {A}([0.0]))"),
    ("div_float_nan", f"result = run(fdiv, checkify.float_checks, {A}([0.0]), {A}([0.0]))"),
    ("div_vmap", "err, out = jax.vmap(checkify.checkify(floordiv, errors=checkify.div_checks))(jnp.array([4, 5, 6]), jnp.array([0, 1, 0]))\n"
                 "result = err.get(), out"),
    # index checks
    ("index_dynamic_slice", f"result = run_jit(take, checkify.index_checks, {A}([1.0, 2.0]), 5)"),
    ("index_negative_ok", f"result = run_jit(take, checkify.index_checks, {A}([1.0, 2.0]), -1)"),
    ("index_negative_oob", f"result = run_jit(take, checkify.index_checks, {A}([1.0, 2.0]), -3)"),
    ("index_gather", f"result = run(take_many, checkify.index_checks, {A}([1.0, 2.0, 3.0]), {A}([0, 7, 1]))"),
    ("index_gather_jit", f"result = run_jit(take_many, checkify.index_checks, {A}([1.0, 2.0, 3.0]), {A}([0, 7, 1]))"),
    ("index_gather_2d", f"result = run_jit(lambda x, i, j: x[i, j], checkify.index_checks, jnp.ones((2, 3)), {A}([0, 1]), {A}([2, 3]))"),
    ("index_gather_fill", f"result = run_jit(lambda x, i: gather_mode(x, i, 'fill'), checkify.index_checks, {A}([1.0, 2.0]), {A}([0, 4]))"),
    ("index_gather_clip", f"result = run_jit(lambda x, i: gather_mode(x, i, 'clip'), checkify.index_checks, {A}([1.0, 2.0]), {A}([0, 4]))"),
    ("index_scatter", f"result = run_jit(add_at, checkify.index_checks, jnp.zeros(3), {A}([1, 3]))"),
    ("index_scatter_ok", f"result = run_jit(add_at, checkify.index_checks, jnp.zeros(3), {A}([1, 2]))"),
    ("index_dus", "result = run_jit(dus, checkify.index_checks, jnp.zeros(4), jnp.ones(2), 3)"),
    ("index_set_scalar", "result = run_jit(lambda x, i: x.at[i].set(1.0), checkify.index_checks, jnp.zeros(3), 5)"),
    ("index_set_scalar_ok", "result = run_jit(lambda x, i: x.at[i].set(1.0), checkify.index_checks, jnp.zeros(3), -1)"),
    ("index_scalars_2d", "result = run_jit(lambda x, i, j: x[i, j], checkify.index_checks, jnp.ones((2, 3)), 1, 3)"),
    ("index_dynamic_slice_window", "result = run_jit(lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 2)), checkify.index_checks, jnp.ones((3, 3)), 2)"),
    ("index_take", "result = run_jit(lambda x, i: jnp.take(x, i), checkify.index_checks, jnp.arange(4.0), jnp.array([1, 4]))"),
    ("index_take_along_axis", "result = run_jit(lambda x, i: jnp.take_along_axis(x, i, axis=1), checkify.index_checks, jnp.ones((2, 3)), jnp.array([[0], [5]]))"),
    ("index_scatter_2d", "result = run_jit(lambda x, i: x.at[i, 1].add(2.0), checkify.index_checks, jnp.zeros((2, 2)), jnp.array([0, 2]))"),
    ("index_static_int", "result = run(take, checkify.index_checks, jnp.array([1.0, 2.0]), 5)"),
    ("index_static_negative", "result = run(take, checkify.index_checks, jnp.array([1.0, 2.0]), -3)"),
    ("index_static_in_bounds", "result = run(take, checkify.index_checks, jnp.array([1.0, 2.0]), -2)"),
    ("index_vmap", "err, out = jax.vmap(checkify.checkify(take, errors=checkify.index_checks), in_axes=(None, 0))(jnp.array([1.0, 2.0]), jnp.array([0, 2, 1, 9]))\n"
                   "result = err.get(), out"),
    ("index_not_enabled", "result = run_jit(take, checkify.nan_checks, jnp.array([1.0, 2.0]), 5)"),
    # precedence and combinations
    ("two_errors", f"result = run_jit(two_errors, checkify.all_checks, -1.0, {A}([3]))"),
    ("two_errors_reversed", f"result = run_jit(two_errors_reversed, checkify.all_checks, -1.0, {A}([3]))"),
    ("float_checks_only", f"result = run_jit(two_errors, checkify.float_checks, 1.0, {A}([3]))"),
    ("automatic_checks", f"result = run_jit(lambda x, i: jnp.log(x)[i], checkify.automatic_checks, {A}([1.0, 2.0]), 4)"),
    # control flow
    ("scan_nan", f"result = run(scan_log, checkify.nan_checks, {A}([1.0, 2.0, -1.0, 3.0]))"),
    ("scan_nan_jit", f"result = run_jit(scan_log, checkify.nan_checks, {A}([1.0, 2.0, -1.0, 3.0]))"),
    ("scan_check", f"result = run(scan_check, checkify.user_checks, {A}([1.0, 20.0, 30.0]))"),
    ("scan_check_ok", f"result = run_jit(scan_check, checkify.user_checks, {A}([1.0, 2.0, 3.0]))"),
    ("scan_vmap", "err, out = jax.vmap(checkify.checkify(scan_check))(jnp.array([[1.0, 2.0], [11.0, 3.0]]))\n"
                  "result = err.get(), out"),
    ("while_check", "result = run(while_check, checkify.all_checks, 5)"),
    ("while_check_jit", "result = run_jit(while_check, checkify.all_checks, 5)"),
    ("while_check_ok", "result = run_jit(while_check, checkify.all_checks, 3)"),
    ("while_nan_only", "result = run_jit(while_check, checkify.nan_checks, 5)"),
    ("while_cond_error", f"result = run_jit(while_cond_error, checkify.div_checks, {A}(0))"),
    ("fori_index", f"result = run_jit(fori_index, checkify.index_checks, {A}([1.0, 2.0, 3.0]), 1)"),
    ("cond_nan_taken", "result = run_jit(cond_log, checkify.nan_checks, True, -1.0)"),
    ("cond_nan_not_taken", "result = run_jit(cond_log, checkify.nan_checks, False, -1.0)"),
    ("cond_check", "result = run(cond_check, checkify.user_checks, True, -1.0)"),
    ("cond_check_vmap", "err, out = jax.vmap(checkify.checkify(cond_check))(jnp.array([True, False, True]), jnp.array([1.0, -1.0, -2.0]))\n"
                        "result = err.get(), out"),
    ("checkify_of_vmap", "result = run(jax.vmap(pos_check), checkify.user_checks, jnp.array([1.0, -2.0, -3.0]))"),
    ("checkify_of_vmap_nan", "result = run(jax.vmap(logf), checkify.nan_checks, jnp.array([1.0, -2.0]))"),
    ("checkify_of_vmap_while", "result = run(jax.vmap(while_check), checkify.user_checks, jnp.array([2, 5]))"),
    ("pmap_check", "result = run(jax.pmap(pos_check), checkify.user_checks, jnp.array([-1.0]))"),
    ("pmap_nan_jit", "result = run_jit(jax.pmap(logf), checkify.nan_checks, jnp.array([-1.0]))"),
    ("pmap_ok", "result = run_jit(jax.pmap(logf), checkify.all_checks, jnp.array([2.0]))"),
    ("div_scan", "result = run_jit(lambda xs: lax.scan(lambda c, x: (c + 10 // x, c), 0, xs), checkify.div_checks, jnp.array([1, 2, 0, 5]))"),
    ("div_cond", "result = run_jit(lambda p, x: lax.cond(p, lambda v: 7 // v, lambda v: v, x), checkify.div_checks, True, jnp.array([1, 0]))"),
    ("index_cond", "result = run_jit(lambda p, x, i: lax.cond(p, lambda: x[i], lambda: x[0]), checkify.index_checks, True, jnp.arange(3.0), jnp.array(4))"),
    ("index_grad", "(out, err), g = jax.value_and_grad(lambda x, i: (lambda e, o: (o.sum(), e))(*checkify.checkify(take_many, errors=checkify.index_checks)(x, i)), has_aux=True)(jnp.arange(3.0), jnp.array([1, 3]))\n"
                   "result = err.get(), g"),
    ("index_while", "result = run_jit(lambda x: lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] + x[c[0]]), (0, 0.0)), checkify.index_checks, jnp.arange(3.0))"),
    ("all_checks_jit_of_vmap", "result = run_jit(jax.vmap(lambda x, i: jnp.log(x)[i]), checkify.all_checks, jnp.ones((2, 3)), jnp.array([0, 3]))"),
    # the error value
    ("error_str", "err, _ = checkify.checkify(logf, errors=checkify.nan_checks)(-1.0)\nresult = str(err)"),
    ("error_str_none", "err, _ = checkify.checkify(logf, errors=checkify.nan_checks)(1.0)\nresult = str(err)"),
    ("init_error", "result = checkify.init_error.get()"),
    ("categories", "result = sorted(c.__name__ for c in checkify.all_checks), "
                   "sorted(c.__name__ for c in checkify.float_checks), "
                   "sorted(c.__name__ for c in checkify.automatic_checks)"),
    ("runtime_error_class", "result = [c.__name__ for c in checkify.JaxRuntimeError.__mro__]"),
]

# jax_debug_nans / jax_debug_infs: (id, flags, source); `result` is FloatingPointError's text.
DEBUG_PRELUDE = '''
def f(x):
    y = x * 2.0
    z = jnp.log(y)
    return z + 1.0

def g(x):
    def body(c, _):
        return jnp.log(c - 1.5), None
    return lax.scan(body, x, None, length=3)[0]

def inner(x):
    return jax.jit(lambda v: jnp.sqrt(v) * 3.0)(x) + 1.0

def catch(fn, *args):
    try:
        fn(*args)
    except FloatingPointError as e:
        return "FloatingPointError", str(e)
    return None
'''
DEBUG_NANS = {"jax_debug_nans": True}
DEBUG_INFS = {"jax_debug_infs": True}
DEBUG_CASES = [
    ("eager", DEBUG_NANS, "result = catch(f, jnp.float32(-1.0))"),
    ("jit", DEBUG_NANS, "result = catch(jax.jit(f), jnp.float32(-1.0))"),
    ("jit_ok", DEBUG_NANS, "result = catch(jax.jit(f), jnp.float32(1.0))"),
    ("grad", DEBUG_NANS, "result = catch(jax.grad(lambda x: jnp.sqrt(x)), jnp.float32(-1.0))"),
    ("jit_grad", DEBUG_NANS, "result = catch(jax.jit(jax.grad(lambda x: jnp.sqrt(x))), jnp.float32(-1.0))"),
    ("scan", DEBUG_NANS, "result = catch(g, jnp.float32(2.0))"),
    ("jit_scan", DEBUG_NANS, "result = catch(jax.jit(g), jnp.float32(2.0))"),
    ("nested_jit", DEBUG_NANS, "result = catch(jax.jit(inner), jnp.float32(-1.0))"),
    ("inf_eager", DEBUG_INFS, "result = catch(lambda x: 1.0 / x, jnp.float32(0.0))"),
    ("inf_jit", DEBUG_INFS, "result = catch(jax.jit(lambda x: jnp.exp(x) * 2.0), jnp.float32(100.0))"),
    ("nan_with_infs_only", DEBUG_INFS, "result = catch(jax.jit(f), jnp.float32(-1.0))"),
]


def run_case(src, ns, encode):
    scope = dict(ns)
    try:
        exec(src, scope)
        return encode(scope["result"])
    except Exception as e:  # noqa: BLE001 (the class and message are the result)
        return {"error": type(e).__name__, "message": str(e)}


def main():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.experimental import checkify
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from recorded_cases import encode

    ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "checkify": checkify}
    exec(PRELUDE, ns)
    out = {"cases": {cid: run_case(src, ns, encode) for cid, src in CASES}, "debug": {}}
    dns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(DEBUG_PRELUDE, dns)
    for cid, flags, src in DEBUG_CASES:
        for k, v in flags.items():
            jax.config.update(k, v)
        try:
            out["debug"][cid] = run_case(src, dns, encode)
        finally:
            for k in flags:
                jax.config.update(k, False)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkify.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"wrote {len(out['cases'])} checkify cases and {len(out['debug'])} debug cases to {path}")


if __name__ == "__main__":
    main()
