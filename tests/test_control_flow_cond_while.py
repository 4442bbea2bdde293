"""lax.cond, lax.switch and lax.while_loop: against Python references eagerly, under jit, grad
(check_grads), vmap (batched operands, predicates and carries), nested, and their errors."""
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import errors, lax
from pyjax._src.test_util import check_grads

f32 = np.float32


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# -- cond / switch --------------------------------------------------------------------------

def _cond_fn(x):
    return lax.cond(x.sum() > 0, lambda x: jnp.sin(x) * x, lambda x: jnp.cos(x) - 1.0, x)


def _cond_ref(x):
    return np.sin(x) * x if x.sum() > 0 else np.cos(x) - 1.0


_Y = np.arange(3, dtype=f32)
_BRANCHES = [lambda x: x * _Y, lambda x: jnp.sin(x) + _Y, lambda x: (x * x) * jnp.ones(3)]
_BRANCHES_NP = [lambda x: x * _Y, lambda x: np.sin(x) + _Y, lambda x: (x * x) * np.ones(3)]


@pytest.mark.parametrize("x", [f32([0.5, 1.5]), f32([-0.5, -1.5])])
def test_cond_eager_and_jit(x):
    _close(_cond_fn(x), _cond_ref(x))
    _close(pyjax.jit(_cond_fn)(x), _cond_ref(x))


def test_cond_pytrees_operand_keyword_and_no_operands():
    out = lax.cond(True, lambda d: {"a": d["a"] + 1, "b": d["b"]}, lambda d: d, {"a": 1.0, "b": 2})
    assert float(out["a"]) == 2.0 and int(out["b"]) == 2
    assert float(lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand=1.0)) == 0.0
    assert float(pyjax.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(False)) == 2.0
    # the old per-branch form: cond(pred, true_operand, true_fun, false_operand, false_fun)
    assert float(lax.cond(True, 1.0, lambda x: x + 1, 2.0, lambda x: x - 1)) == 2.0
    # integer and float predicates mean `!= 0`
    assert float(lax.cond(np.int32(3), lambda x: x + 1, lambda x: x - 1, 1.0)) == 2.0
    assert float(lax.cond(np.uint8(0), lambda x: x + 1, lambda x: x - 1, 1.0)) == 0.0


def test_cond_traces_both_branches_with_a_concrete_predicate():
    seen = []
    lax.cond(True, lambda x: seen.append("t") or x, lambda x: seen.append("f") or x, 1.0)
    assert sorted(seen) == ["f", "t"]


@pytest.mark.parametrize("i", [-3, 0, 1, 2, 7])
def test_switch_clamps_index(i):
    want = _BRANCHES_NP[min(max(i, 0), 2)](f32(2.0))
    _close(lax.switch(i, _BRANCHES, f32(2.0)), want)
    _close(pyjax.jit(lambda i, x: lax.switch(i, _BRANCHES, x))(i, f32(2.0)), want)


def test_cond_closure_consts_and_grad_wrt_closed_over_value():
    w = jnp.array([1.0, 2.0])

    def f(v, x):
        return lax.cond(x > 0, lambda x: (w * v * x).sum(), lambda x: (v * v).sum() + x, x)
    _close(pyjax.jit(f)(jnp.array([3.0, 4.0]), 1.0), 11.0)
    _close(pyjax.grad(f)(jnp.array([3.0, 4.0]), 1.0), [1.0, 2.0])
    _close(pyjax.grad(f)(jnp.array([3.0, 4.0]), -1.0), [6.0, 8.0])
    check_grads(f, (f32([3.0, 4.0]), f32(1.0)), order=2)
    check_grads(f, (f32([3.0, 4.0]), f32(-1.0)), order=2)


@pytest.mark.parametrize("x", [f32([0.5, 1.5]), f32([-0.5, -1.5])])
def test_cond_grads(x):
    check_grads(_cond_fn, (x,), order=2, modes=("fwd", "rev"))
    check_grads(pyjax.jit(_cond_fn), (x,), order=1, modes=("fwd", "rev", "lin"))


@pytest.mark.parametrize("i", [0, 1, 2])
def test_switch_grads(i):
    check_grads(lambda x: lax.switch(i, _BRANCHES, x), (f32(1.5),), order=2)


def test_grad_of_cond_saves_residuals_of_the_taken_branch():
    f = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, jnp.cos, x)
    jaxpr = pyjax.make_jaxpr(pyjax.grad(f))(1.0)
    conds = [e for e in jaxpr.jaxpr.eqns if e.primitive.name == "cond"]
    assert len(conds) == 2   # the forward cond (outputs + residuals) and the linear one
    _close(pyjax.grad(f)(1.0), np.sin(1.0) + np.cos(1.0))
    _close(pyjax.grad(f)(-1.0), -np.sin(-1.0))


def test_cond_integer_outputs_under_grad():
    def f(x):
        y, n = lax.cond(x > 0, lambda x: (2.0 * x, 1), lambda x: (x * x, 2), x)
        return y * n
    _close(pyjax.grad(f)(3.0), 2.0)
    _close(pyjax.grad(f)(-3.0), -12.0)


def test_vmap_cond_batched_operand():
    xs = f32([[0.5, 1.5], [0.3, 0.1]])
    _close(pyjax.vmap(lambda x: lax.cond(True, jnp.sin, jnp.cos, x))(xs), np.sin(xs))


def test_vmap_cond_batched_predicate():
    xs = f32([[0.5, 1.5], [-0.3, -0.1], [2.0, -1.0]])
    want = np.stack([_cond_ref(x) for x in xs])
    _close(pyjax.vmap(_cond_fn)(xs), want)
    _close(pyjax.jit(pyjax.vmap(_cond_fn))(xs), want)
    idx = np.array([0, 5, 1, -1, 2], np.int32)
    want = np.stack([_BRANCHES_NP[min(max(i, 0), 2)](f32(2.0)) for i in idx])
    _close(pyjax.vmap(lambda i: lax.switch(i, _BRANCHES, f32(2.0)))(idx), want)


def test_vmap_of_grad_of_cond():
    xs = f32([1.0, -1.0, 0.5])
    f = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, jnp.cos, x)
    want = [np.sin(x) + x * np.cos(x) if x > 0 else -np.sin(x) for x in xs]
    _close(pyjax.vmap(pyjax.grad(f))(xs), want)
    _close(pyjax.jit(pyjax.vmap(pyjax.grad(f)))(xs), want)


def test_cond_branch_type_errors_name_the_leaf():
    with pytest.raises(TypeError, match=r"path \['b'\].*float32\[\].*int32\[\]"):
        lax.cond(True, lambda x: {"a": x, "b": x}, lambda x: {"a": x, "b": x.astype(jnp.int32)}, 1.0)
    with pytest.raises(TypeError, match="pytree structure"):
        lax.cond(True, lambda x: (x,), lambda x: x, 1.0)
    with pytest.raises(TypeError, match="branch 0.*branch 2.*int32"):
        lax.switch(1, [lambda x: x, lambda x: x, lambda x: x.astype(jnp.int32)], 1.0)
    with pytest.raises(TypeError, match="shapes do not match"):
        lax.cond(True, lambda x: x, lambda x: jnp.stack([x, x]), 1.0)


def test_cond_argument_errors():
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        lax.cond(jnp.ones(2) > 0, lambda x: x, lambda x: x, 1.0)
    with pytest.raises(TypeError, match="boolean or number"):
        lax.cond(np.complex64(1j), lambda x: x, lambda x: x, 1.0)
    with pytest.raises(TypeError, match="Index type must be an integer"):
        lax.switch(1.0, [lambda x: x], 1.0)
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(0, [], 1.0)
    with pytest.raises(TypeError, match="'operand' keyword"):
        lax.cond(True, lambda x: x, lambda x: x, 1.0, operand=2.0)


# -- while_loop ------------------------------------------------------------------------------

def _while_fn(x, n):
    return lax.while_loop(lambda c: c[1] < n, lambda c: (jnp.sin(c[0]) * x + 1.0, c[1] + 1),
                          (jnp.zeros_like(x), 0))


def _while_ref(x, n):
    c, i = np.zeros_like(x), 0
    while i < n:
        c, i = np.sin(c) * x + 1.0, i + 1
    return c, i


def test_while_eager_and_jit():
    x = f32([0.5, 2.0])
    for n in (0, 1, 5):
        want = _while_ref(x, n)
        for got in (_while_fn(x, n), pyjax.jit(_while_fn)(x, n)):
            _close(got[0], want[0])
            assert int(got[1]) == want[1]


def test_while_weak_init_takes_the_body_type():
    out = lax.while_loop(lambda c: c < 3, lambda c: c + 0.5, 0)
    assert out.dtype == np.float32 and float(out) == 3.0
    out = lax.while_loop(lambda c: c < 3, lambda c: c * f32(2), 1.0)
    assert out.dtype == np.float32 and not out.weak_type


def test_while_jvp_and_linearize():
    x = f32([0.5, 2.0])
    check_grads(lambda x: _while_fn(x, 4)[0], (x,), order=2, modes=("fwd",))
    check_grads(pyjax.jit(lambda x: _while_fn(x, 4)[0]), (x,), order=1, modes=("fwd", "lin"))


def test_while_jvp_wrt_closed_over_value():
    def f(a):
        return lax.while_loop(lambda c: c < 10.0, lambda c: c * a, 1.0)
    y, t = pyjax.jvp(f, (f32(2.0),), (f32(1.0),))   # 2**4 = 16; d/da a**4 = 4 a**3
    _close(y, 16.0)
    _close(t, 32.0)


def test_grad_of_while_raises():
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                                         "lax.while_loop.*lax.scan.*fori_loop with static"):
        pyjax.grad(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c * 2, x))(1.0)


def test_vmap_while_batched_carry_and_predicate():
    xs = f32([[0.5, 2.0], [1.0, 1.0], [0.1, 0.3]])
    ns = np.array([0, 3, 6], np.int32)
    want = [_while_ref(x, n) for x, n in zip(xs, ns)]
    for fn in (pyjax.vmap(_while_fn), pyjax.jit(pyjax.vmap(_while_fn))):
        c, i = fn(xs, ns)
        _close(c, np.stack([w[0] for w in want]))
        np.testing.assert_array_equal(np.asarray(i), [w[1] for w in want])
    # batched carry, unbatched predicate
    c, i = pyjax.vmap(_while_fn, (0, None))(xs, 3)
    _close(c, np.stack([_while_ref(x, 3)[0] for x in xs]))
    assert np.asarray(i).tolist() == [3, 3, 3]


def test_vmap_of_jvp_of_while():
    xs = f32([0.5, 1.0, 1.5])
    f = lambda a: lax.while_loop(lambda c: c < 10.0, lambda c: c * a + 1.0, 1.0)
    got = pyjax.vmap(lambda a: pyjax.jvp(f, (a,), (f32(1.0),)))(xs + 1.0)
    for a, y, t in zip(xs + 1.0, *got):
        y_ref, t_ref = pyjax.jvp(f, (a,), (f32(1.0),))
        _close(y, y_ref)
        _close(t, t_ref)


def test_while_carry_type_errors_name_the_leaf():
    with pytest.raises(TypeError, match=r"c\[1\] has type float32\[\].*int32\[\]"):
        lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1].astype(jnp.int32)), (0, 1.0))
    with pytest.raises(TypeError, match="pytree structure"):
        lax.while_loop(lambda c: c < 3, lambda c: (c,), 1.0)
    with pytest.raises(TypeError, match="cond_fun must return a boolean scalar"):
        lax.while_loop(lambda c: c, lambda c: c, 1.0)


# -- nesting ---------------------------------------------------------------------------------

def _nested(x):
    """A while whose body holds a cond holding a while."""
    def body(c):
        v, i = c
        v = lax.cond(i % 2 == 0,
                     lambda v: lax.while_loop(lambda u: u.sum() < 10.0, lambda u: u * 2.0 + 0.5, v),
                     lambda v: jnp.sqrt(v) * x[0], v)
        return v, i + 1
    return lax.while_loop(lambda c: c[1] < 4, body, (x, 0))[0]


def _nested_ref(x):
    v = x.copy()
    for i in range(4):
        if i % 2 == 0:
            while v.sum() < 10.0:
                v = v * 2.0 + 0.5
        else:
            v = np.sqrt(v) * x[0]
    return v


def test_nested_control_flow():
    x = f32([0.5, 1.0])
    _close(pyjax.jit(_nested)(x), _nested_ref(x), 1e-4)
    _close(_nested(x), _nested_ref(x), 1e-4)
    xs = f32([[0.5, 1.0], [3.0, 9.0], [0.1, 0.2]])
    _close(pyjax.jit(pyjax.vmap(_nested))(xs), np.stack([_nested_ref(x) for x in xs]), 1e-4)
    check_grads(pyjax.jit(_nested), (x,), order=1, modes=("fwd",), atol=5e-2, rtol=5e-2)


def test_cond_inside_grad_inside_while_free_function():
    # reverse mode through a cond nested in a jit inside a cond
    f = pyjax.jit(lambda x: lax.cond(x > 1.0, lambda x: lax.cond(x > 2.0, jnp.sin, jnp.cos, x),
                                     lambda x: x * x, x))
    for x in (f32(0.5), f32(1.5), f32(2.5)):
        check_grads(f, (x,), order=2)


# -- Python control flow on tracers (issue 5 item 4) ------------------------------------------

def test_python_if_on_tracer_suggests_structured_control_flow():
    def f(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(errors.TracerBoolConversionError) as info:
        pyjax.jit(f)(1.0)
    msg = str(info.value)
    for hint in ("lax.cond", "lax.while_loop", "jnp.where", "static_argnums"):
        assert hint in msg
    assert "test_control_flow_cond_while.py" in msg
    with pytest.raises(errors.TracerBoolConversionError, match="lax.cond"):
        pyjax.vmap(f)(jnp.ones(3))


# -- recorded from JAX 0.10.2 (tests/data/record_control_flow.py) --------------------------------

import json  # noqa: E402
import pathlib  # noqa: E402

_CF = json.loads((pathlib.Path(__file__).parent / "data" / "control_flow.json").read_text())


def _check_encoded(got, expected):
    if "none" in expected:
        assert got is None
    elif "dict" in expected:
        assert sorted(got) == sorted(expected["dict"])
        for k, e in expected["dict"].items():
            _check_encoded(got[k], e)
    elif "tuple" in expected:
        assert len(got) == len(expected["tuple"])
        for g, e in zip(got, expected["tuple"]):
            _check_encoded(g, e)
    else:
        # the recording names every array "Array" (JAX's class is jaxlib's ArrayImpl, as pyjax's)
        got_type = "Array" if isinstance(got, pyjax.Array) else type(got).__name__
        assert got_type == expected["type"], type(got)
        a = np.asarray(got)
        assert (a.dtype.name, list(a.shape), bool(got.weak_type)) == (
            expected["dtype"], expected["shape"], expected["weak_type"])
        np.testing.assert_array_equal(a, np.asarray(expected["value"], a.dtype))


@pytest.mark.parametrize("expr", list(_CF["cases"]))
def test_cond_switch_output_types_as_recorded_from_jax(expr):
    # Python-scalar branch outputs are Arrays with the first branch's weak types, also eagerly
    expected = _CF["cases"][expr]
    env = dict(jax=pyjax, jnp=jnp, np=np, lax=lax)
    if "error" in expected:
        with pytest.raises(Exception) as info:
            eval(expr, env)
        assert expected["error"] in [c.__name__ for c in type(info.value).__mro__]
    else:
        _check_encoded(eval(expr, env), expected["result"])


class _Counter(dict):
    def __missing__(self, key):
        return 0


def run_trace_scenario(name):
    """Run a recorded scenario with pyjax; return its trace counters and JAX's."""
    scenario = _CF["traces"][name]
    n = _Counter()
    exec(scenario["code"], dict(jax=pyjax, jnp=jnp, np=np, lax=lax, n=n))
    return dict(n), scenario["counts"]


@pytest.mark.parametrize("name", ["while_loop", "cond_switch"])
def test_eager_control_flow_traces_each_function_once_per_signature(name):
    got, expected = run_trace_scenario(name)
    assert got == expected


def test_eager_cond_trace_cache_is_not_used_under_transformations():
    calls = []

    def branch(x):
        calls.append(1)
        return x * 2.0
    f = pyjax.jit(lambda p, x: lax.cond(p, branch, branch, x))
    f(True, 1.0)
    f(False, 2.0)
    assert len(calls) == 2  # both branches traced once, by the one jit trace
    lax.cond(True, branch, branch, 1.0)
    lax.cond(True, branch, branch, 1.0)
    assert len(calls) == 3  # eagerly traced once (not reusing the jit trace's: it may hold tracers)
    pyjax.grad(lambda x: lax.cond(True, branch, branch, x))(1.0)
    pyjax.grad(lambda x: lax.cond(True, branch, branch, x))(1.0)
    assert len(calls) == 7  # under grad: traced every time


def test_branches_closing_over_one_value_share_one_operand():
    # JAX 0.10.2: `cond[...] c a` -- x closed over by both branches is passed once
    jaxpr = pyjax.make_jaxpr(lambda x: lax.cond(x > 0, lambda: x, lambda: -x))(1.0).jaxpr
    eqn, = [e for e in jaxpr.eqns if e.primitive.name == "cond"]
    assert len(eqn.invars) == 2 and all(len(b.jaxpr.invars) == 1 for b in eqn.params["branches"])
    y = 2.0 * jnp.ones(3)
    f = lambda x, i: lax.switch(i, [lambda: x * y, lambda: x + y, lambda: y])
    for i in range(3):
        np.testing.assert_allclose(pyjax.jit(f)(3.0, i), [(6.0,) * 3, (5.0,) * 3, (2.0,) * 3][i])
        check_grads(lambda x: f(x, i), (3.0,), order=2, modes=["fwd", "rev"])
    np.testing.assert_allclose(pyjax.vmap(f, (0, None))(jnp.arange(2.0), 1), [[2.0] * 3, [3.0] * 3])


def test_branch_structure_error_in_jax_words():
    # JAX 0.10.2's first lines (haiku matches them): the construct, each branch and where it is
    true_fun = lambda: (1.0, 2.0)
    false_fun = lambda: 1.0
    with pytest.raises(TypeError) as e:
        lax.cond(True, true_fun, false_fun)
    msg = str(e.value)
    assert msg.startswith("cond branch outputs must have the same pytree structure, but they "
                          "differ:\n\ntrue_fun is <lambda> at ")
    assert "\nfalse_fun is <lambda> at " in msg
    assert msg.endswith("Revise true_fun and/or false_fun so that they have the same pytree structure.")
    with pytest.raises(TypeError, match="^switch branch outputs must have the same pytree structure, "
                                        "but they differ:\n\nbranch 0 is <lambda> at "):
        lax.switch(0, [lambda: (1.0,), lambda: [1.0]])


def test_while_loop_under_disable_jit_stages_a_traced_predicate():
    """Under disable_jit the loop runs in Python while its predicate is concrete; a traced one
    (vmap of a per-example bound) stages the loop instead, as JAX 0.10.2 (values from it)."""
    def f(x):
        return lax.while_loop(lambda c: c[0] < c[1], lambda c: (c[0] + 1, c[1], c[2] * 2.0),
                              (0, x, 1.0))[2]
    with pyjax.disable_jit():
        np.testing.assert_array_equal(pyjax.vmap(f)(jnp.array([1, 3, 5])), [2.0, 8.0, 32.0])
        assert f(4) == 16.0
