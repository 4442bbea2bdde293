"""pyjax.experimental.checkify against JAX 0.10.2.

Every case of tests/data/record_checkify.py (user checks, NaN / division / index checks, under
eager, jit, vmap, grad, scan, while_loop, cond, nested jit, checkpoint, custom_jvp; which error
wins; unfunctionalized checks) ran on real JAX, which recorded `err.get()`'s text, the outputs
and exception classes and messages in tests/data/checkify.json. Here the same sources run on
pyjax and must give the same. Further tests check what the recording cannot: that the checked
outputs equal the unchecked function's, that a failing check names the user's line, that the
error is a pytree that crosses jit, and that `check` is an effect jit keeps.
"""
import importlib.util
import json
import os
import traceback

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.experimental import checkify
from recorded_cases import assert_matches, encode

_HERE = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(_HERE, "checkify.json")) as _f:
    DATA = json.load(_f)
_spec = importlib.util.spec_from_file_location("record_checkify",
                                               os.path.join(_HERE, "record_checkify.py"))
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)  # the sources; imports jax only when run as a script

NS = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "checkify": checkify}
exec(record.PRELUDE, NS)
SOURCES = dict(record.CASES)


def _run(src):
    return record.run_case(src, NS, encode)


# Cases where pyjax deliberately differs from JAX 0.10.2: id -> why.
DIFFERENCES = {
    # NB: JAX refuses checkify-of-vmap-of-while (its batched while has a batched predicate);
    # pyjax's batched while keeps a scalar predicate (any lane live), so the loop checkifies.
    "checkify_of_vmap_while": "pyjax checkifies a while loop vmapped inside checkify",
}


@pytest.mark.parametrize("case", sorted(set(DATA["cases"]) - set(DIFFERENCES)))
def test_matches_jax(case):
    expected = DATA["cases"][case]
    actual = _run(SOURCES[case])
    assert_matches(actual, expected, err_msg=case)
    if "error" in expected:  # the message too (JAX's text, word for word)
        assert actual["message"] == expected["message"], case


# -- what the recording cannot show -----------------------------------------------------------


@pytest.mark.parametrize("f,args,errors", [
    ("logf", (jnp.array([1.0, -1.0, 3.0]),), checkify.all_checks),
    ("scan_log", (jnp.array([1.0, 2.0, 0.5]),), checkify.all_checks),
    ("while_check", (5,), checkify.all_checks),
    ("add_at", (jnp.zeros(3), jnp.array([1, 3])), checkify.all_checks),
    ("floordiv", (jnp.array([4, 5]), jnp.array([2, 0])), checkify.all_checks),
])
@pytest.mark.parametrize("jit", [False, True])
def test_outputs_equal_the_unchecked_function(f, args, errors, jit):
    fun = NS[f]
    checked = checkify.checkify(fun, errors=errors)
    if jit:
        checked = jax.jit(checked)
    _, out = checked(*args)
    if f == "while_check":  # (its check is unfunctionalized without checkify)
        ref = jax.jit(checkify.checkify(fun))(*args)[1]
    else:
        ref = fun(*args)
    for a, b in zip(jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(ref), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_no_error_is_none_and_throw_is_silent():
    err, out = jax.jit(checkify.checkify(NS["logf"], errors=checkify.all_checks))(2.0)
    assert err.get() is None and err.get_exception() is None
    err.throw()
    checkify.check_error(err)
    np.testing.assert_allclose(out, np.log(2.0), rtol=1e-6)


def test_vmap_matches_a_loop():
    f = checkify.checkify(NS["take"], errors=checkify.index_checks)
    x = jnp.array([1.0, 2.0, 3.0])
    idx = np.array([0, 3, 2, -5, 1])
    err, out = jax.vmap(f, in_axes=(None, 0))(x, jnp.asarray(idx))
    lines = []
    for k, i in enumerate(idx):
        e, o = jax.jit(f)(x, int(i))
        np.testing.assert_array_equal(out[k], o)
        if e.get() is not None:
            lines.append(f"at mapped index {k}: {e.get()}")
    assert err.get() == "\n".join(lines)


def test_grad_through_checkify_matches_grad_of_the_function():
    def f(x):
        checkify.check(jnp.all(x > 0), "nonpositive")
        return jnp.sum(jnp.log(x) * x)
    x = jnp.array([0.5, 2.0])
    g_checked = jax.grad(lambda v: checkify.checkify(f)(v)[1])(x)
    g_plain = jax.grad(lambda v: jnp.sum(jnp.log(v) * v))(x)
    np.testing.assert_allclose(g_checked, g_plain, rtol=1e-6)
    np.testing.assert_allclose(g_checked, np.log(np.asarray(x)) + 1, rtol=1e-6)


def test_error_is_a_pytree_that_crosses_jit_and_vmap():
    f = checkify.checkify(NS["logf"], errors=checkify.nan_checks)
    err, _ = f(-1.0)
    leaves, tree = jax.tree_util.tree_flatten(err)
    assert len(leaves) == 2 and leaves[0].dtype == np.bool_ and leaves[1].dtype == np.int32
    again = jax.tree_util.tree_unflatten(tree, leaves)
    assert again.get() == err.get() == "nan generated by primitive: log."
    # an Error passed into a jitted function and re-raised there is functionalized again
    recheck = jax.jit(lambda e: checkify.check_error(e))
    err2, _ = checkify.checkify(recheck, errors=checkify.nan_checks)(err)
    assert err2.get() == err.get()
    # ... and dropped when its kind is not enabled (as in JAX)
    assert checkify.checkify(recheck, errors=checkify.user_checks)(err)[0].get() is None


def test_check_is_an_effect_jit_keeps():
    def f(x):
        checkify.check(x > 0, "positive")
        return x * 0.0 + 1.0   # the output does not depend on the check
    jaxpr = jax.make_jaxpr(f)(1.0)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert "check" in names
    assert any(isinstance(e, checkify.JaxRuntimeError.__class__) or "ErrorEffect" in repr(e)
               for e in jaxpr.jaxpr.effects)
    err, _ = jax.jit(checkify.checkify(f))(-1.0)
    assert err.get() == "positive (`check` failed)"


def _user_line_of(text):
    import inspect
    for i, line in enumerate(inspect.getsource(_failing).splitlines()):
        if text in line:
            return inspect.getsourcelines(_failing)[1] + i
    raise AssertionError(text)


def _failing(x):
    y = jnp.sin(x)
    z = jnp.log(y - 2.0)  # the NaN
    checkify.check(x < 0, "x was {}", x)  # the check
    return z


@pytest.mark.parametrize("errors,text,jit", [
    (checkify.nan_checks, "the NaN", False), (checkify.nan_checks, "the NaN", True),
    (checkify.user_checks, "the check", True),
])
def test_throw_names_the_users_line(errors, text, jit):
    f = checkify.checkify(_failing, errors=errors)
    err, _ = (jax.jit(f) if jit else f)(jnp.float32(1.0))
    with pytest.raises(checkify.JaxRuntimeError) as info:
        err.throw()
    line = _user_line_of(text)
    where = f"{__file__}:{line} (_failing)"
    assert any(where in n for n in getattr(info.value, "__notes__", [])), info.value.__notes__
    # the cause's traceback is the user's frame at that line, as in JAX
    frames = traceback.extract_tb(info.value.__cause__.__traceback__)
    assert (frames[-1].filename, frames[-1].lineno) == (__file__, line)


def test_check_error_type_and_message_formatting():
    err, _ = checkify.checkify(NS["kw_check"])(jnp.array([1, 2]))
    assert err.get() is None
    with pytest.raises(TypeError, match="scalar pred"):
        checkify.check(jnp.array([True]), "x")


def test_checkify_of_jit_of_scan_with_index_errors():
    def f(x, idx):
        def body(c, i):
            return c + x[i], x[i]
        return jax.jit(lambda: lax.scan(body, 0.0, idx))()
    err, (c, ys) = checkify.checkify(f, errors=checkify.index_checks)(
        jnp.arange(4.0), jnp.array([0, 1, 6, 2]))
    assert err.get() == ("out-of-bounds indexing for array of shape (4,): index 6 is out of "
                         "bounds for axis 0 with size 4. ")
    np.testing.assert_array_equal(ys, [0.0, 1.0, 3.0, 2.0])


_MULTI_DEVICE = r'''
import json
import pyjax as jax, pyjax.numpy as jnp
from pyjax.experimental import checkify
from pyjax.sharding import PartitionSpec as P

def f(x):
    checkify.check(jnp.all(x > 0), "neg {}", x)
    return jnp.log(x)

n = len(jax.devices())
x = jnp.arange(n, dtype=jnp.float32) - 1.0
out = {"n": n}
err, y = checkify.checkify(jax.pmap(f))(x)
out["pmap"] = err.get()
out["pmap_loop"] = "\n".join(f"at mapped index {i}: {checkify.checkify(f)(x[i])[0].get()}"
                             for i in range(n) if checkify.checkify(f)(x[i])[0].get())
out["pmap_y"] = [float(v) for v in y]
err, _ = jax.jit(checkify.checkify(jax.pmap(f), errors=checkify.all_checks))(x + 5.0)
out["pmap_ok"] = err.get()
mesh = jax.make_mesh((n,), ("i",))
g = jax.shard_map(lambda v: jnp.log(v) + jax.lax.psum(v, "i"), mesh=mesh, in_specs=P("i"),
                  out_specs=P("i"))
err, _ = checkify.checkify(g, errors=checkify.nan_checks)(jnp.arange(2 * n, dtype=jnp.float32) - 3.0)
out["shard_map"] = err.get()
print(json.dumps(out))
'''


def test_pmap_and_shard_map_report_each_failing_device():
    from test_sharding import run_with_devices
    out = run_with_devices(_MULTI_DEVICE, n=4)
    assert out["n"] == 4
    assert out["pmap"] == out["pmap_loop"]
    assert out["pmap"].startswith("at mapped index 0: neg -1.0 (`check` failed)\n"
                                  "at mapped index 1: neg 0.0")
    np.testing.assert_allclose(out["pmap_y"][2:], np.log([1.0, 2.0]), rtol=1e-6)
    assert out["pmap_ok"] is None
    # devices 0 and 1 hold -3, -2 and -1, 0: logs of negatives are NaNs on those two only
    assert out["shard_map"] == ("at mapped index 0: nan generated by primitive: log.\n"
                                "at mapped index 1: nan generated by primitive: log.")
