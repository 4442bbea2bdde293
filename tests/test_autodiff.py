"""Automatic differentiation (issue 3).

- Every differentiable lax primitive (the rows of `op_table.LAX_OPS`) and the differentiable
  `pyjax.numpy` / `pyjax.nn` functions (`JNP_GRADS` below) pass `check_grads` in forward and
  reverse mode, to second order (first where JAX supports only first), in float32 and again in
  float64 with tighter tolerances. Primitives with a zero derivative are checked to give zero
  (or float0) tangents and cotangents.
- Coverage: every primitive with a JVP rule is exercised here; the primitives without a JVP
  rule are listed, with the reason, in `op_table.MISSING_RULES["jvp"]` (`NO_JVP` below).
- Closed forms, JAX's values at special points, the API's errors, jit composition (traced and
  compiled once). custom_jvp / custom_vjp / checkpoint: test_custom_derivatives.py.

Slow tier (`-m slow`): every shape of every lax row in float64 and complex, and every float row
of `op_table.JNP_OPS` in float64 to second order.
"""
import functools

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core, dtypes
from pyjax._src.ad_checkpoint import checkpoint_p, name_p
from pyjax._src.backend import xla
from pyjax._src.custom_derivatives import custom_jvp_call_p, custom_lin_p, custom_vjp_call_p
from pyjax._src.interpreters import ad
from pyjax._src.lax.placement import ArrayCopySemantics, device_put_p
from pyjax._src.pjit import pjit_p
from pyjax._src.public_test_util import check_grads_refined as check_grads

import op_table as T

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
WIDE = {F32: F64, C64: C128}


@pytest.fixture
def x64():
    """Turn jax_enable_x64 on for one test; always restored."""
    prev = pyjax.config.read("jax_enable_x64")
    pyjax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        pyjax.config.update("jax_enable_x64", prev)


# -- input generators for well-conditioned derivatives --------------------------------------------

def rand_away_from_bounds(rs, shape, dtype):
    """Values in (-4, 6) at least 0.3 away from the clamp bounds -2 and 3."""
    x = rs.uniform(-4, 6, shape)
    x = np.where(np.abs(x + 2) < 0.3, x + 0.6, x)
    x = np.where(np.abs(x - 3) < 0.3, x + 0.6, x)
    return x.astype(dtype)


def rand_gt_one_and_half(rs, shape, dtype):
    """acosh: its derivative blows up at 1."""
    return rs.uniform(1.5, 5, shape).astype(dtype)


def rand_small_int(rs, shape, dtype):
    """Exponents in [-3, 3]."""
    return rs.randint(-3, 4, shape).astype(dtype)


def rand_distinct(rs, shape, dtype):
    """Values 0.7 apart within an array, offset at random (no ties for max/min)."""
    n = int(np.prod(shape, dtype=np.int64))
    return (rs.permutation(n).reshape(shape) * 0.7 - n * 0.3 + rs.uniform(-2, 2)).astype(dtype)


# -- the lax rows -------------------------------------------------------------------------------

# How a lax primitive's gradient is checked, where the row's inputs or order don't suit
# finite differences (kinks, ties, poles, huge values).
GRAD_SPECS = {
    "abs": dict(rng=T.rand_nonzero),
    "cbrt": dict(rng=T.rand_nonzero),
    "acosh": dict(rng=rand_gt_one_and_half),
    "igamma": dict(order=1),   # its derivative in a, igamma_grad_a, has no JVP (NO_JVP)
    "igammac": dict(order=1),
    "max": dict(rng=rand_distinct),
    "min": dict(rng=rand_distinct),
    "reduce_max": dict(rng=rand_distinct),
    "reduce_min": dict(rng=rand_distinct),
    "clamp": dict(rng=(lambda rs, s, d: np.full(s, -2, d), rand_away_from_bounds,
                       lambda rs, s, d: np.full(s, 3, d))),
    "pow": dict(rng=(T.rand_positive, T.rand_small)),
    "pow[int exponent]": dict(rng=(T.rand_positive, rand_small_int)),
    "dot_general": dict(rng=T.rand_small),
    "reduce_prod": dict(rng=T.rand_small),  # zeros are tested at the special points below
    "rem": dict(rng=(T.rand_small, lambda rs, s, d: (rs.uniform(2, 3, s)).astype(d))),
}

# Primitives whose derivative is zero wherever it exists (or whose outputs are not floats): their
# rule gives symbolic-zero tangents; checked by `test_zero_derivative`.
ZERO_DERIVATIVE = {
    "sign", "floor", "ceil", "round", "is_finite", "eq", "ne", "lt", "le", "gt", "ge",
    "not", "and", "or", "xor", "population_count", "clz", "shift_left", "shift_right_logical",
    "shift_right_arithmetic", "bitcast_convert_type", "reduce_and", "reduce_or", "argmax",
    "argmin", "stop_gradient",
}

# Primitives without a JVP rule, and why: one table for every kind of rule (asserted for every
# primitive by test_lax_ops.py::test_every_primitive_has_its_rules, here for the lax ones).
NO_JVP = T.MISSING_RULES["jvp"]

# Primitives exercised by dedicated tests rather than the op table (here or in
# test_custom_derivatives.py).
TESTED_BY = {
    "add_any": "test_fan_out_accumulates",
    pjit_p.name: "test_jit_composition_agrees_and_compiles_once",
    "custom_jvp_call": "test_custom_jvp_nested_and_reverse",
    "custom_vjp_call": "test_custom_vjp_clip_gradient",
    "custom_lin": "test_custom_vjp_forward_mode_raises",
    checkpoint_p.name: "test_checkpoint_same_gradient",
    "name": "test_checkpoint_save_only_these_names",
    "reduce_window": "test_custom_reducers_forward_mode",
    "reduce": "test_custom_reducers_forward_mode",
    "reduce_precision": "test_reduce_precision_is_its_own_derivative",
    "device_put": "test_device_put_to_host_memory_moves_tangents_and_cotangents",
}


def _out_dtype(row, args):
    return np.dtype(pyjax.eval_shape(row.fn, *args).dtype)


def _row_args(row, shape, dtype, rng_override=None):
    r = row if rng_override is None else T.Op(**{**row.__dict__, "rng": rng_override})
    return [np.asarray(a) for a in T.make_args(r, shape, dtype)]


def _float_arg_fn(fn, args):
    """`fn` as a function of its float arguments only (integer/bool ones are closed over)."""
    pos = [i for i, a in enumerate(args) if dtypes.issubdtype(a.dtype, np.inexact)]

    def f(*dyn):
        full = list(args)
        for i, d in zip(pos, dyn, strict=True):
            full[i] = d
        return fn(*full)
    return f, [args[i] for i in pos]


def _mixed(entry):
    """A shape entry giving the arguments different shapes (rank-0 or size-1 broadcasting)."""
    return isinstance(entry, list) and len(set(entry)) > 1


def _grad_cases(full=False):
    """(row, shape, dtype) for the finite-difference checks: float32 on the row's first shape and
    its broadcasting shapes (they matter to transposes), complex64 on the first; every shape of
    both if `full`."""
    out = []
    for row in T.LAX_OPS:
        if row.primitive in ZERO_DERIVATIVE or row.primitive in NO_JVP or row.nargs == 0:
            continue
        for dt in (F32, C64):
            if dt not in row.dtypes:
                continue
            shapes = row.shapes if full else [s for s in row.shapes if s is row.shapes[0] or
                                               (dt == F32 and _mixed(s))]
            for shape in shapes:
                args = _row_args(row, shape, dt)
                if not dtypes.issubdtype(_out_dtype(row, args), np.inexact):
                    continue  # e.g. float -> int conversion: `test_zero_derivative`
                if np.dtype(_out_dtype(row, args)).itemsize < 4:
                    continue  # -> f16/bf16: finite differences can't resolve it (closed form below)
                out.append(pytest.param(row, shape, dt, id=T.case_id(row, shape, dt)))
    return out


def _spec(row):
    return GRAD_SPECS.get(row.name, GRAD_SPECS.get(row.primitive, {}))


def _check_row(row, shape, dtype, wide=False):
    spec = _spec(row)
    args = _row_args(row, shape, dtype, spec.get("rng"))
    if wide:
        args = [a.astype(WIDE.get(a.dtype, a.dtype)) for a in args]
    f, dyn = _float_arg_fn(row.fn, args)
    check_grads(f, dyn, order=spec.get("order", 2), modes=("fwd", "rev"))


@pytest.mark.parametrize("row,shape,dtype", _grad_cases())
def test_lax_grads(row, shape, dtype):
    _check_row(row, shape, dtype)


@pytest.mark.parametrize("row,shape,dtype", [c for c in _grad_cases()
                                             if c.values[1] is c.values[0].shapes[0] and c.values[2] == F32])
def test_lax_grads_float64(x64, row, shape, dtype):
    _check_row_float64(row, shape, dtype)


@pytest.mark.slow
@pytest.mark.parametrize("row,shape,dtype", _grad_cases(full=True))
def test_lax_grads_full(x64, row, shape, dtype):
    _check_row_float64(row, shape, dtype)


def _check_row_float64(row, shape, dtype):
    args = [a.astype(WIDE.get(a.dtype, a.dtype)) for a in _row_args(row, shape, dtype)]
    if _out_dtype(row, args) not in (F64, C128):
        pytest.skip("a 32-bit output of 64-bit inputs: finite differences at eps=1e-6 can't resolve it")
    _check_row(row, shape, dtype, wide=True)


def _zero_cases():
    out = []
    for row in T.LAX_OPS:
        float_dts = [dt for dt in (F32, C64) if dt in row.dtypes]
        for dt in float_dts or row.dtypes[:1]:  # integer-only rows: float0 tangents in and out
            if row.nargs == 0:
                continue
            args = _row_args(row, row.shapes[0], dt)
            out_dt = _out_dtype(row, args)
            if row.primitive in ZERO_DERIVATIVE or not dtypes.issubdtype(out_dt, np.inexact):
                out.append(pytest.param(row, dt, id=T.case_id(row, row.shapes[0], dt)))
    return out


@pytest.mark.parametrize("row,dtype", _zero_cases())
def test_zero_derivative(row, dtype):
    args = _row_args(row, row.shapes[0], dtype)
    f, dyn = _float_arg_fn(row.fn, args)
    if not dyn:
        f, dyn = row.fn, args
    tangents = [np.ones_like(a) if dtypes.issubdtype(a.dtype, np.inexact)
                else np.zeros(a.shape, dtypes.float0) for a in dyn]
    out, t_out = pyjax.jvp(f, dyn, tangents)
    want_dt = out.dtype if dtypes.issubdtype(out.dtype, np.inexact) else dtypes.float0
    assert t_out.dtype == want_dt and t_out.shape == out.shape
    if want_dt != dtypes.float0:
        np.testing.assert_array_equal(np.asarray(t_out), 0)
    _, f_vjp = pyjax.vjp(f, *dyn)
    ct = np.ones(out.shape, out.dtype) if want_dt != dtypes.float0 else np.zeros(out.shape, dtypes.float0)
    for c, a in zip(f_vjp(ct), dyn, strict=True):
        assert c.shape == a.shape
        assert c.dtype == (a.dtype if dtypes.issubdtype(a.dtype, np.inexact) else dtypes.float0)
        if c.dtype == dtypes.float0:
            continue
        np.testing.assert_array_equal(np.asarray(c), 0)


def test_rule_coverage():
    """Every primitive with a JVP rule is exercised; those without one are exactly `NO_JVP`."""
    prims = dict(T.lax_primitives())
    for p in (ad.add_any_p, pjit_p, custom_jvp_call_p, custom_vjp_call_p, custom_lin_p,
              checkpoint_p, name_p):
        prims[p.name] = p
    no_jvp = sorted(n for n, p in prims.items() if p.jvp is None)
    print("primitives without a JVP rule:", no_jvp)
    assert no_jvp == sorted(n for n in NO_JVP if n in prims), no_jvp
    fd_checked = {c.values[0].primitive for c in _grad_cases()}
    zero_checked = {c.values[0].primitive for c in _zero_cases()}
    exercised = fd_checked | zero_checked | set(TESTED_BY)
    missing = sorted(n for n, p in prims.items() if p.jvp is not None and n not in exercised)
    assert not missing, f"primitives with a JVP rule that no test differentiates: {missing}"
    import test_custom_derivatives
    for name, test in TESTED_BY.items():
        assert test in globals() or hasattr(test_custom_derivatives, test), (name, test)
    # every transposable primitive is reached in reverse mode by some row (rev is always checked)
    transposable = sorted(n for n, p in prims.items() if p.transpose is not None)
    print("primitives with a transpose rule:", transposable)
    linear_untested = [n for n in transposable if n not in fd_checked and n not in TESTED_BY]
    assert not linear_untested, linear_untested
    # the primitives that are not linear: no transpose rule (they are never transposed)
    assert "sin" not in transposable and "exp" not in transposable


def _to_memory(x, space):
    return device_put_p.bind(x, devices=(space,), srcs=(None,),
                             copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,))[0]


def test_device_put_to_host_memory_moves_tangents_and_cotangents():
    """device_put to another memory (the checkpoint policies that offload bind it): tangents
    move with their primals (typed in host memory), cotangents go back where the primal came
    from, and the values are unchanged."""
    host, dev = core.MemorySpace.Host, core.MemorySpace.Device
    x = np.arange(4, dtype=np.float32)
    f = lambda v: _to_memory(_to_memory(v * v, host) * 3, dev)
    y, t = pyjax.jvp(lambda v: _to_memory(v * v, host), (x,), (np.ones(4, np.float32),))
    assert str(pyjax.typeof(t)) == "float32<host>[4]"
    np.testing.assert_allclose(t, 2 * x)
    np.testing.assert_allclose(pyjax.grad(lambda v: f(v).sum())(x), 6 * x)
    np.testing.assert_allclose(pyjax.jit(pyjax.grad(lambda v: f(v).sum()))(x), 6 * x)
    text = str(pyjax.make_jaxpr(pyjax.grad(lambda v: f(v).sum()))(x))
    assert text.count("devices=(MemorySpace.Device,)") == 2, text  # (one back per move)


def test_custom_reducers_forward_mode():
    """reduce_window with a Python reducer: forward mode only (no transpose, as JAX); reduce
    (differentiated as a tree of reducer applications, as JAX) both ways."""
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    rw = lambda x: lax.reduce_window(x, 1.0, lambda a, b: a * b + 0.25, (2, 2), (1, 1), "VALID")
    # (an associative reducer, (1 + a)(1 + b) - 1, as lax.reduce requires: its JVP regroups it)
    rd = lambda x: lax.reduce(x / 4, 0.0, lambda a, b: a + b + a * b, (1,))
    check_grads(rw, (x,), order=2, modes=("fwd",))
    check_grads(rd, (x,), order=2, modes=("fwd", "rev"))


def test_vjp_of_a_two_operand_reduce_over_all_axes():
    """Issue 23: reverse mode through a variadic lax.reduce raised "primal outputs depend on
    tangents". Values recorded from JAX 0.10.2:
        x = np.arange(15, dtype=np.float32).reshape(3, 5) / 4 - 1.3; y = np.cos(x)
        jax.vjp(f, x, y)[1]((np.float32(1), np.float32(2)))  # f below; the grad of g"""
    x = np.arange(15, dtype=np.float32).reshape(3, 5) / 4 - 1.3
    y = np.cos(x).astype(np.float32)

    def maxarg(acc, v):
        pick = v[0] > acc[0]
        return jnp.where(pick, v[0], acc[0]), jnp.where(pick, v[1], acc[1])
    f = lambda a, b: lax.reduce((a, b), (np.float32(-np.inf), np.float32(0)), maxarg, (0, 1))
    out, vjp = pyjax.vjp(f, x, y)
    np.testing.assert_allclose(out, (2.2, -0.58850116), rtol=1e-6)
    gx, gy = vjp((np.float32(1), np.float32(2)))
    np.testing.assert_array_equal(gx, np.eye(1, 15, 14, dtype=np.float32).reshape(3, 5))
    np.testing.assert_array_equal(gy, 2 * np.eye(1, 15, 14, dtype=np.float32).reshape(3, 5))
    g = lambda a: lax.reduce((a, a * a), (np.float32(0), np.float32(1)),
                             lambda c, v: (c[0] + jnp.sin(v[0]), c[1] * v[1]), (1,))
    grad = pyjax.grad(lambda a: g(a)[0].sum() + g(a)[1].sum())(x)
    np.testing.assert_allclose(grad, [[9.5005417e-01, 1.6153784e-01, 6.1554474e-01, 7.3447067e-01, -3.0332208e-03],
                                      [9.9964178e-01, 5.2905470e-01, 9.0048689e-01, 7.6486772e-01, 3.0770895e-01],
                                      [2.6938599e+02, 2.2147774e+02, 1.8932007e+02, 1.6479042e+02, 1.4676588e+02]],
                               rtol=1e-5, atol=1e-7)
    empty = np.zeros((0, 2), np.float32)
    p, t = pyjax.jvp(lambda a: lax.reduce(a, np.float32(0), lambda c, v: c + v * v, (0,)), (empty,), (empty,))
    np.testing.assert_array_equal(p, [0, 0])
    np.testing.assert_array_equal(t, [0, 0])


def test_reduce_precision_is_its_own_derivative():
    """Piecewise constant, but linear by definition (as in JAX): tangents and cotangents are
    rounded the same way."""
    x, t = np.float32([1.3, 2.7]), np.float32([0.123456, 3.14159])
    f = lambda v: lax.reduce_precision(v, 5, 2)
    np.testing.assert_array_equal(pyjax.jvp(f, (x,), (t,))[1], f(t))
    np.testing.assert_array_equal(pyjax.vjp(f, x)[1](t)[0], f(t))


# -- pyjax.numpy and pyjax.nn ------------------------------------------------------------------

MAT = (2, 3)


def jg(name, fn, *shapes, rng=T.rand_default, order=2, dtype=F32, **kw):
    """A jnp/nn gradient case: `fn` on float arguments of `shapes` (one rng, or one per arg)."""
    return pytest.param(fn, shapes, rng, order, dtype, kw, id=name)


def _pos(rs, s, d):
    return rs.uniform(0.5, 3, s).astype(d)


def _unit(rs, s, d):
    return rs.uniform(-0.8, 0.8, s).astype(d)


JNP_GRADS = [
    *[jg(n, getattr(jnp, n), MAT) for n in (
        "sin", "cos", "sinh", "cosh", "tanh", "arctan", "arcsinh", "exp", "exp2", "expm1",
        "negative", "square", "sinc", "deg2rad", "rad2deg", "positive")],
    jg("tan", jnp.tan, MAT, rng=_unit),
    *[jg(n, getattr(jnp, n), MAT, rng=_unit) for n in ("arcsin", "arccos", "arctanh")],
    jg("arccosh", jnp.arccosh, MAT, rng=rand_gt_one_and_half),
    *[jg(n, getattr(jnp, n), MAT, rng=_pos) for n in ("log", "log1p", "log2", "log10", "sqrt",
                                                      "reciprocal", "cbrt")],
    jg("abs", jnp.abs, MAT, rng=T.rand_nonzero),
    jg("add", jnp.add, MAT, (3,)),
    jg("subtract", jnp.subtract, (3,), MAT),
    jg("multiply[broadcast]", jnp.multiply, (2, 1), (1, 3)),
    jg("true_divide", jnp.true_divide, MAT, MAT, rng=(T.rand_default, T.rand_nonzero)),
    jg("power", jnp.power, MAT, MAT, rng=(_pos, T.rand_small)),
    jg("power[int]", lambda x: jnp.power(x, 3), MAT),
    jg("float_power", jnp.float_power, MAT, MAT, rng=(_pos, T.rand_small)),
    jg("maximum", jnp.maximum, MAT, MAT, rng=rand_distinct),
    jg("minimum", jnp.minimum, (3,), MAT, rng=rand_distinct),
    jg("arctan2", jnp.arctan2, MAT, MAT),
    jg("hypot", jnp.hypot, MAT, MAT, rng=T.rand_nonzero),
    jg("logaddexp", jnp.logaddexp, MAT, MAT),
    jg("logaddexp2", jnp.logaddexp2, MAT, MAT),
    jg("remainder", lambda x, y: jnp.remainder(x, y), MAT, MAT,
       rng=(_pos, lambda rs, s, d: rs.uniform(3.5, 4, s).astype(d))),
    jg("where", lambda x, y: jnp.where(x > 0, x, y), MAT, MAT),
    jg("clip", lambda x: jnp.clip(x, -1.0, 1.0), MAT, rng=rand_away_from_bounds),
    # reductions
    jg("sum", lambda x: jnp.sum(x, axis=1), MAT),
    jg("sum[all]", jnp.sum, MAT),
    jg("prod", lambda x: jnp.prod(x, axis=0), (3, 4), rng=T.rand_small),
    jg("max", lambda x: jnp.max(x, axis=1), (3, 4), rng=rand_distinct),
    jg("min", jnp.min, (3, 4), rng=rand_distinct),
    jg("mean", lambda x: jnp.mean(x, axis=0, keepdims=True), MAT),
    jg("var", lambda x: jnp.var(x, axis=1), (3, 4)),
    jg("std", jnp.std, (3, 4)),
    jg("ptp", lambda x: jnp.ptp(x, axis=1), (3, 4), rng=rand_distinct),
    jg("cumsum", lambda x: jnp.cumsum(x, axis=1), (2, 5)),
    jg("cumprod", lambda x: jnp.cumprod(x), (5,), rng=T.rand_small),
    jg("logsumexp", lambda x: pyjax.nn.logsumexp(x, axis=1), (3, 4)),
    # shapes and indexing
    jg("reshape", lambda x: jnp.reshape(x, (3, 2)), MAT),
    jg("ravel", jnp.ravel, MAT),
    jg("transpose", jnp.transpose, (2, 3, 4)),
    jg("swapaxes", lambda x: jnp.swapaxes(x, 0, 2), (2, 3, 4)),
    jg("moveaxis", lambda x: jnp.moveaxis(x, 0, -1), (2, 3, 4)),
    jg("squeeze", jnp.squeeze, (2, 1, 3)),
    jg("expand_dims", lambda x: jnp.expand_dims(x, 1), MAT),
    jg("broadcast_to", lambda x: jnp.broadcast_to(x, (4, 2, 3)), (2, 1)),
    jg("concatenate", lambda a, b: jnp.concatenate([a, b], axis=1), MAT, (2, 2)),
    jg("stack", lambda a, b: jnp.stack([a, b], axis=-1), MAT, MAT),
    jg("split", lambda x: jnp.split(x, 2, axis=1)[1], (2, 4)),
    jg("tile", lambda x: jnp.tile(x, (2, 1)), MAT),
    jg("repeat", lambda x: jnp.repeat(x, 2, axis=0), MAT),
    jg("flip", jnp.flip, MAT),
    jg("rot90", jnp.rot90, MAT),
    jg("pad", lambda x: jnp.pad(x, ((1, 0), (2, 1))), MAT),
    jg("diagonal", jnp.diagonal, (3, 3)),
    jg("trace", jnp.trace, (3, 3)),
    jg("tril", jnp.tril, (3, 3)),
    jg("triu", lambda x: jnp.triu(x, 1), (3, 4)),
    jg("getitem[slices]", lambda x: x[1:, ::2], (3, 4)),
    jg("getitem[int]", lambda x: x[-1], (3, 4)),
    jg("getitem[newaxis]", lambda x: x[:, None, 1], (3, 4)),
    jg("getitem[traced index]", lambda x: x[jnp.int32(2)], (3, 4)),
    jg("at.set", lambda x, v: jnp.asarray(x).at[1].set(v), (3, 4), (4,)),
    jg("at.add", lambda x, v: jnp.asarray(x).at[0, 1:3].add(v), (3, 4), (2,)),
    # contractions
    jg("dot", jnp.dot, MAT, (3,)),
    jg("matmul[batch]", jnp.matmul, (2, 2, 3), (3, 4)),
    jg("vdot", jnp.vdot, (3,), (3,)),
    jg("inner", jnp.inner, MAT, (4, 3)),
    jg("outer", jnp.outer, (2,), (3,)),
    jg("tensordot", lambda a, b: jnp.tensordot(a, b, axes=([1], [0])), MAT, (3, 2)),
    jg("einsum", lambda a, b: jnp.einsum("ij,jk->ik", a, b), MAT, (3, 2)),
    jg("einsum[trace]", lambda a: jnp.einsum("ii", a), (3, 3)),
    # complex
    jg("complex mul", lambda a, b: a * b, MAT, MAT, dtype=C64),
    jg("complex abs", jnp.abs, MAT, rng=T.rand_nonzero, dtype=C64),
    jg("real imag conj", lambda z: jnp.real(z) * jnp.imag(z) + jnp.conj(z), MAT, dtype=C64),
    jg("angle", jnp.angle, MAT, rng=T.rand_nonzero, dtype=C64),
    jg("complex exp", jnp.exp, MAT, rng=T.rand_small, dtype=C64),
    # pyjax.nn
    *[jg(f"nn.{n}", getattr(pyjax.nn, n), MAT, rng=T.rand_nonzero) for n in (
        "relu", "relu6", "sigmoid", "softplus", "silu", "elu", "leaky_relu", "log_sigmoid",
        "hard_tanh")],
    jg("nn.gelu", pyjax.nn.gelu, MAT),
    jg("nn.gelu[exact]", functools.partial(pyjax.nn.gelu, approximate=False), MAT),
    jg("nn.softmax", pyjax.nn.softmax, (3, 4)),
    jg("nn.log_softmax", lambda x: pyjax.nn.log_softmax(x, axis=0), (3, 4)),
    jg("nn.standardize", pyjax.nn.standardize, (3, 4)),
]


# The rows of `op_table.JNP_OPS` swept by `test_jnp_table_grads` (slow), except these functions
# (piecewise constant, or not differentiable in JAX either) and these cases.
JNP_TABLE_SKIP = {"rint", "round", "floor", "ceil", "trunc", "sign", "nextafter", "spacing"}
JNP_TABLE_SKIP_CASES = {
    "std-f32[]": "the std of one element is 0, where sqrt's derivative is inf (nan, as JAX)",
    "std-c64[]": "the std of one element is 0, where sqrt's derivative is inf (nan, as JAX)",
    "mean[dtype=bf16]-f32[2,3]": "a bfloat16 result: finite differences can't resolve it",
}


def _no_specials(rng):
    """The row's generator, with NaN/inf-sprinkled inputs replaced by ordinary ones."""
    if isinstance(rng, tuple):
        return tuple(_no_specials(r) for r in rng)
    return T.rand_default if rng is T.rand_special else rng


def _jnp_table_cases():
    out = []
    for row in T.JNP_OPS:
        if row.name.split("[")[0] in JNP_TABLE_SKIP:
            continue
        for dt in (F32, C64):
            if dt not in row.dtypes:
                continue
            for shape in row.shapes:
                args = [np.asarray(a) for a in T.make_args(row, shape, dt)]
                f, dyn = _float_arg_fn(row.fn, args)
                outs = pyjax.tree_util.tree_leaves(pyjax.eval_shape(f, *dyn)) if dyn else []
                if not outs or not all(dtypes.issubdtype(o.dtype, np.inexact) for o in outs):
                    continue
                case = T.case_id(row, shape, dt)
                marks = [pytest.mark.skip(reason=JNP_TABLE_SKIP_CASES[case])] if case in JNP_TABLE_SKIP_CASES else []
                out.append(pytest.param(row, shape, dt, id=case, marks=marks))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("row,shape,dtype", _jnp_table_cases())
def test_jnp_table_grads(x64, row, shape, dtype):
    """Every float row of the jnp table, in float64, to second order."""
    r = T.Op(**{**row.__dict__, "rng": _no_specials(row.rng)})
    args = [np.asarray(a) for a in T.make_args(r, shape, dtype)]
    f, dyn = _float_arg_fn(row.fn, [a.astype(WIDE.get(a.dtype, a.dtype)) for a in args])
    check_grads(f, dyn, order=2, modes=("fwd", "rev"))


def _jnp_args(shapes, rng, dtype, seed=0):
    rs = np.random.RandomState(seed)
    rngs = rng if isinstance(rng, tuple) else (rng,) * len(shapes)
    return [np.asarray(r(rs, s, dtype)) for r, s in zip(rngs, shapes, strict=True)]


@pytest.mark.parametrize("fn,shapes,rng,order,dtype,kw", JNP_GRADS)
def test_jnp_grads(fn, shapes, rng, order, dtype, kw):
    check_grads(fn, _jnp_args(shapes, rng, dtype), order=order, modes=("fwd", "rev"), **kw)


@pytest.mark.slow
@pytest.mark.parametrize("fn,shapes,rng,order,dtype,kw", JNP_GRADS)
def test_jnp_grads_float64(x64, fn, shapes, rng, order, dtype, kw):
    args = [a.astype(WIDE[a.dtype]) for a in _jnp_args(shapes, rng, dtype)]
    check_grads(fn, args, order=order, modes=("fwd", "rev"), **kw)


# -- closed forms ----------------------------------------------------------------------------------

def test_closed_forms():
    x = np.linspace(-2, 2, 7, dtype=np.float32)
    np.testing.assert_allclose(pyjax.vmap(pyjax.grad(jnp.sin))(x), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(pyjax.vmap(pyjax.grad(lambda v: v ** 3))(x), 3 * x ** 2, rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(lambda v: jnp.sum(v ** 3))(x), 3 * x ** 2, rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(pyjax.grad(lambda v: v ** 3))(2.0), 12.0)
    np.testing.assert_allclose(pyjax.grad(pyjax.grad(pyjax.grad(jnp.sin)))(0.5), -np.cos(0.5), rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(jnp.tanh)(0.3), 1 - np.tanh(0.3) ** 2, rtol=1e-6)
    y, t = pyjax.jvp(jnp.exp, (1.5,), (2.0,))
    np.testing.assert_allclose([y, t], [np.exp(1.5), 2 * np.exp(1.5)], rtol=1e-6)


def _mlp_loss(params, x, labels):
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    logp = pyjax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(logp * labels, axis=1))


def _mlp_numpy_backprop(params, x, labels):
    """Hand-written backprop: tanh layer, linear layer, softmax cross-entropy."""
    (w1, b1), (w2, b2) = [(np.asarray(w, np.float64), np.asarray(b, np.float64)) for w, b in params]
    n = x.shape[0]
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    loss = -np.mean(np.sum(np.log(p) * labels, 1))
    d_logits = (p - labels) / n  # softmax cross-entropy
    d_w2, d_b2 = h.T @ d_logits, d_logits.sum(0)
    d_h = d_logits @ w2.T
    d_pre = d_h * (1 - h ** 2)
    d_w1, d_b1 = x.T @ d_pre, d_pre.sum(0)
    return loss, ((d_w1, d_b1), (d_w2, d_b2))


def test_tanh_mlp_matches_numpy_backprop():
    rs = np.random.RandomState(0)
    x = rs.randn(8, 5).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[rs.randint(0, 3, 8)]
    params = [(0.5 * rs.randn(5, 4).astype(np.float32), 0.1 * rs.randn(4).astype(np.float32)),
              (0.5 * rs.randn(4, 3).astype(np.float32), 0.1 * rs.randn(3).astype(np.float32))]
    loss, grads = pyjax.jit(pyjax.value_and_grad(_mlp_loss))(params, x, labels)
    want_loss, want = _mlp_numpy_backprop(params, x.astype(np.float64), labels)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-5)
    for g, w in zip(pyjax.tree_util.tree_leaves(grads), pyjax.tree_util.tree_leaves(want), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)
    check_grads(lambda p: _mlp_loss(p, x, labels), (params,), order=2)


def test_softmax_cross_entropy_gradient():
    logits = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], np.float32)
    labels = np.array([[0, 1, 0], [1, 0, 0]], np.float32)
    loss = lambda z: -jnp.sum(labels * pyjax.nn.log_softmax(z))
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    np.testing.assert_allclose(pyjax.grad(loss)(logits), p - labels, rtol=1e-5, atol=1e-7)


def test_jacobians_and_hessian_closed_form():
    x = np.array([0.5, -1.0, 2.0], np.float32)
    np.testing.assert_allclose(pyjax.jacfwd(jnp.sin)(x), np.diag(np.cos(x)), rtol=1e-6)
    np.testing.assert_allclose(pyjax.jacrev(jnp.sin)(x), np.diag(np.cos(x)), rtol=1e-6)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    f = lambda v: a @ jnp.tanh(v)
    want = a * (1 - np.tanh(x) ** 2)
    np.testing.assert_allclose(pyjax.jacfwd(f)(x), want, rtol=1e-5)
    np.testing.assert_allclose(pyjax.jacrev(f)(x), want, rtol=1e-5)
    np.testing.assert_allclose(pyjax.hessian(lambda v: jnp.sum(v ** 3))(x), np.diag(6 * x), rtol=1e-6)
    # several arguments, pytree output
    jx, jy = pyjax.jacrev(lambda u, v: u * v, argnums=(0, 1))(x, 2 * x)
    np.testing.assert_allclose(jx, np.diag(2 * x))
    np.testing.assert_allclose(jy, np.diag(x))
    jx, jy = pyjax.jacfwd(lambda u, v: u * v, argnums=(0, 1))(x, 2 * x)
    np.testing.assert_allclose(jx, np.diag(2 * x))
    np.testing.assert_allclose(jy, np.diag(x))
    jac = pyjax.jacrev(lambda v: {"s": jnp.sum(v), "sq": v ** 2})(x)
    np.testing.assert_allclose(jac["s"], np.ones(3))
    np.testing.assert_allclose(jac["sq"], np.diag(2 * x))
    h = pyjax.hessian(lambda m: jnp.sum(m ** 2) * m[0, 0])(np.eye(2, dtype=np.float32))
    assert h.shape == (2, 2, 2, 2)


# -- JAX's values at special points ----------------------------------------------------------------

def test_special_points():
    assert pyjax.grad(jnp.abs)(0.0) == 1.0  # JAX 0.10.2: the slope of abs at 0 is +1
    assert pyjax.grad(lax.abs)(-0.0) == 1.0
    assert pyjax.grad(jnp.abs)(-2.0) == -1.0
    assert pyjax.grad(jnp.maximum, argnums=(0, 1))(1.0, 1.0) == (0.5, 0.5)
    assert pyjax.grad(jnp.minimum, argnums=(0, 1))(1.0, 1.0) == (0.5, 0.5)
    assert pyjax.grad(jnp.maximum, argnums=(0, 1))(2.0, 1.0) == (1.0, 0.0)
    assert pyjax.grad(jnp.sqrt)(0.0) == np.inf
    assert pyjax.grad(pyjax.nn.relu)(0.0) == 0.0
    assert pyjax.grad(pyjax.nn.relu)(1.0) == 1.0
    np.testing.assert_array_equal(pyjax.grad(jnp.max)(jnp.array([1.0, 1.0, 0.0])), [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(pyjax.grad(jnp.min)(jnp.array([0.0, 2.0, 0.0])), [0.5, 0.0, 0.5])
    np.testing.assert_array_equal(pyjax.grad(jnp.prod)(jnp.array([0.0, 2.0, 3.0])), [6.0, 0.0, 0.0])
    np.testing.assert_array_equal(pyjax.grad(jnp.prod)(jnp.array([0.0, 0.0, 3.0])), [0.0, 0.0, 0.0])
    h = pyjax.hessian(jnp.prod)(jnp.array([0.0, 2.0, 3.0]))
    np.testing.assert_array_equal(h, [[0, 3, 2], [3, 0, 0], [2, 0, 0]])
    # clamp at a bound: neither the operand nor the bound gets the gradient (lax.clamp), but
    # jnp.clip is max/min, which split ties
    assert pyjax.grad(lambda x: lax.clamp(0.0, x, 1.0))(0.0) == 0.0
    assert pyjax.grad(lambda x: lax.clamp(0.0, x, 1.0))(1.0) == 0.0
    assert pyjax.grad(lambda lo: lax.clamp(lo, 0.0, 1.0))(0.0) == 0.0
    assert pyjax.grad(lambda lo: lax.clamp(lo, -1.0, 1.0))(0.0) == 1.0
    assert pyjax.grad(lambda x: jnp.clip(x, 0.0, 1.0))(0.0) == 0.5
    # powers at zero
    assert np.isnan(pyjax.grad(lambda x: lax.pow(x, 0.0))(0.0))
    assert pyjax.grad(lambda x: lax.pow(x, 1.0))(0.0) == 1.0
    assert pyjax.grad(lambda x: lax.pow(x, np.int32(0)))(0.0) == 0.0
    assert pyjax.grad(lambda y: lax.pow(0.0, y))(1.0) == 0.0
    assert pyjax.grad(lambda x: x ** 2)(0.0) == 0.0
    # where: the unselected branch's nan does not leak into the gradient of the selected one
    assert pyjax.grad(lambda x: jnp.where(x > 0, x, 0.0))(-1.0) == 0.0
    # logaddexp is smooth: at x1 == x2 its slope is sigmoid(0) = 1/2 and its curvature 1/4
    # (autodiff of the stable max + log1p form would give 0 and 0; JAX's custom JVP, as ours)
    assert pyjax.grad(jnp.logaddexp, argnums=(0, 1))(1.0, 1.0) == (0.5, 0.5)
    assert pyjax.grad(jnp.logaddexp2, argnums=(0, 1))(1.0, 1.0) == (0.5, 0.5)
    np.testing.assert_allclose(pyjax.grad(pyjax.grad(jnp.logaddexp))(1.0, 1.0), 0.25, rtol=1e-6)
    assert pyjax.grad(jnp.logaddexp)(np.inf, np.inf) == 1.0


def test_weak_types_of_gradients():
    g = pyjax.grad(jnp.sin)(0.0)
    assert g.weak_type and g.dtype == np.float32
    assert not pyjax.grad(jnp.sin)(np.float32(0.0)).weak_type
    assert pyjax.grad(lambda x: 2.0 * x)(1.0).weak_type
    assert not pyjax.grad(lambda x: np.float32(3.0) * x)(np.float32(1.0)).weak_type


def test_low_precision_conversion_closed_form():
    f = lambda x: lax.convert_element_type(x, np.float16)
    y, t = pyjax.jvp(f, (np.float32(1.5),), (np.float32(2.0),))
    assert y.dtype == t.dtype == np.float16 and t == 2.0
    g = pyjax.grad(lambda x: lax.convert_element_type(f(x), np.float32) * 3)(np.float32(1.0))
    assert g.dtype == np.float32 and g == 3.0


# -- the API -------------------------------------------------------------------------------------

def test_integer_inputs():
    with pytest.raises(TypeError, match=r"but got int32 \(argument 0"):
        pyjax.grad(lambda x: x * 1.0)(1)
    with pytest.raises(TypeError, match=r"but got int32 \(argument 1.*allow_int"):
        pyjax.grad(lambda x, n: x * n, argnums=(0, 1))(1.0, 2)
    g = pyjax.grad(lambda x: x * 1.0, allow_int=True)(1)
    assert g.dtype == dtypes.float0 and g.shape == ()
    gx, gn = pyjax.grad(lambda x, n: jnp.sum(x * n), argnums=(0, 1), allow_int=True)(2.0, np.arange(3))
    assert gx == 3.0 and gn.dtype == dtypes.float0 and gn.shape == (3,)
    # vjp gives float0 cotangents for integer inputs; jvp takes float0 tangents for them
    (ct,) = pyjax.vjp(lambda n: n * 2.0, 3)[1](1.0)
    assert ct.dtype == dtypes.float0
    out, t = pyjax.jvp(lambda x, n: x * n, (2.0, 3), (1.0, np.zeros((), dtypes.float0)))
    assert (out, t) == (6.0, 3.0)
    # an integer output has a float0 tangent
    _, t = pyjax.jvp(lambda x: jnp.argmax(x), (np.ones(3, np.float32),), (np.ones(3, np.float32),))
    assert t.dtype == dtypes.float0


def test_grad_errors():
    with pytest.raises(TypeError, match=r"scalar-output.*shape: \(3,\)"):
        pyjax.grad(lambda x: x * 2)(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="two-element tuple"):
        pyjax.grad(lambda x: x, has_aux=True)(1.0)
    with pytest.raises(TypeError, match="two-element tuple"):
        pyjax.grad(lambda x: (x, 1.0, 2.0), has_aux=True)(1.0)
    with pytest.raises(TypeError, match="real-valued outputs"):
        pyjax.grad(lambda x: x * 1j)(1.0)
    with pytest.raises(TypeError, match=r"^grad requires real-valued outputs .* but got int32\. For "
                                        r"differentiation of functions with integer outputs, use jax\.vjp"):
        pyjax.grad(lambda x: x.sum(), allow_int=True)(np.arange(3))  # JAX 0.10.2's message
    with pytest.raises(TypeError, match="argnums"):
        pyjax.grad(lambda x: x, argnums=2)(1.0)
    with pytest.raises(TypeError, match="holomorphic"):
        pyjax.grad(lambda x: x, holomorphic=True)(1.0)


def test_grad_argnums_aux_and_pytrees():
    f = lambda x, y, z: jnp.sum(x * y) + z["a"] ** 2
    x, y = np.arange(3, dtype=np.float32), np.ones(3, np.float32)
    gx = pyjax.grad(f)(x, y, {"a": 2.0})
    np.testing.assert_array_equal(gx, y)
    gy, gz = pyjax.grad(f, argnums=(1, 2))(x, y, {"a": 2.0})
    np.testing.assert_array_equal(gy, x)
    assert gz == {"a": 4.0}
    (gz,) = pyjax.grad(f, argnums=(-1,))(x, y, {"a": 3.0})
    assert gz["a"] == 6.0
    g, aux = pyjax.grad(lambda v: (jnp.sum(v ** 2), {"n": v.shape[0], "v": v}), has_aux=True)(x)
    np.testing.assert_array_equal(g, 2 * x)
    assert aux["n"] == 3
    np.testing.assert_array_equal(aux["v"], x)
    (val, aux), (g0, g1) = pyjax.value_and_grad(lambda a, b: (a * b, a + b), argnums=(0, 1), has_aux=True)(3.0, 4.0)
    assert (val, aux, g0, g1) == (12.0, 7.0, 4.0, 3.0)
    val, g = pyjax.value_and_grad(lambda a, k=2.0: a * k)(3.0, k=5.0)
    assert (val, g) == (15.0, 5.0)


def test_vjp_and_linearize():
    x = np.array([0.3, -0.7], np.float32)
    y, f_vjp, aux = pyjax.vjp(lambda v: (jnp.sin(v), jnp.cos(v)), x, has_aux=True)
    np.testing.assert_allclose(aux, np.cos(x))
    (ct,) = f_vjp(np.ones(2, np.float32))
    np.testing.assert_allclose(ct, np.cos(x), rtol=1e-6)
    out, f_vjp = pyjax.vjp(lambda a, b: {"p": a * b, "s": a + b}, 2.0, 3.0)
    assert f_vjp({"p": 1.0, "s": 10.0}) == (13.0, 12.0)
    with pytest.raises(TypeError, match="structure"):
        f_vjp((1.0, 1.0))
    with pytest.raises(ValueError, match="shape"):
        pyjax.vjp(jnp.sin, x)[1](np.ones(3, np.float32))

    calls = []

    def f(v):
        calls.append(1)
        return jnp.sum(jnp.sin(v) * v)
    y, f_jvp = pyjax.linearize(f, x)
    for t in (np.ones(2, np.float32), np.array([2.0, -1.0], np.float32)):
        np.testing.assert_allclose(f_jvp(t), pyjax.jvp(f, (x,), (t,))[1], rtol=1e-6)
    assert len(calls) == 1 + 2  # linearize traced f once; f_jvp reruns only the linear part
    np.testing.assert_allclose(y, f(x))
    y, f_jvp, aux = pyjax.linearize(lambda v: (v * 2, "aux"), 1.0, has_aux=True)
    assert (y, f_jvp(3.0), aux) == (2.0, 6.0, "aux")


def test_linear_transpose():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    f = lambda v: (a @ v, 2 * v)
    x = np.ones(3, np.float32)
    ct = (np.array([1.0, -1.0], np.float32), np.array([1.0, 2.0, 3.0], np.float32))
    (got,) = pyjax.linear_transpose(f, x)(ct)
    np.testing.assert_allclose(got, a.T @ ct[0] + 2 * ct[1])
    # several inputs, fan-out, a slice and a transpose
    g = lambda u, v: jnp.sum(u[1:]) * 3.0 + jnp.transpose(v).sum() - u[0]
    tu, tv = pyjax.linear_transpose(g, x, a)(np.float32(2.0))
    np.testing.assert_allclose(tu, [-2.0, 6.0, 6.0])
    np.testing.assert_allclose(tv, np.full((2, 3), 2.0))
    with pytest.raises(TypeError, match="cotangent tree does not match"):
        pyjax.linear_transpose(f, x)(ct[0])
    # JAX's checks (api_test test_linear_transpose_error): dtypes, cotangent types
    with pytest.raises(TypeError, match="linear_transpose only supports"):
        pyjax.linear_transpose(lambda v: 2. * v, 1)
    for fn, c in [(lambda v: jnp.stack([v, v]), 1.0), (lambda v: 1j * v, 1.0), (lambda v: v, 1j)]:
        with pytest.raises(TypeError, match="cotangent type does not match"):
            pyjax.linear_transpose(fn, 1.0)(c)
    np.testing.assert_allclose(pyjax.linear_transpose(lambda v: 3. * v, 1.0)(1.0)[0], 3.0)
    # primals given as abstract values (as JAX allows; equinox's noinline transposes so)
    (got,) = pyjax.linear_transpose(f, core.ShapedArray((3,), np.float32))(ct)
    np.testing.assert_allclose(got, a.T @ ct[0] + 2 * ct[1])


def test_fwd_and_bwd_is_vjp_split_in_two_jitted_halves():
    """jax.fwd_and_bwd: the forward returns vjp's (out, residual pytree), the backward the
    cotangents; jitted, a second step traces nothing (no_tracing)."""
    f = lambda x, w: jnp.tanh(x @ w)  # noqa: E731
    x, w = np.ones((2, 3), np.float32), np.full((3, 4), 0.5, np.float32)
    ct = np.ones((2, 4), np.float32)
    want_y, f_vjp = pyjax.vjp(f, x, w)
    fwd, bwd = pyjax.fwd_and_bwd(f, argnums=(0, 1))
    y, res = fwd(x, w)
    for a, b in zip((y, *bwd(res, ct)), (want_y, *f_vjp(ct)), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    with pyjax.no_tracing():
        y, res = fwd(x, w)
        bwd(res, ct)
    fwd1, bwd1 = pyjax.fwd_and_bwd(f, argnums=1, jitted=False)
    np.testing.assert_allclose(bwd1(fwd1(x, w)[1], ct), f_vjp(ct)[1], rtol=1e-6)


def test_linearize_and_jacfwd_check_their_inputs_as_jax():
    """linearize's linear function refuses tangents that are not the primals' tangent types,
    and jacfwd complex or integer inputs (unless holomorphic), in JAX 0.10.2's words."""
    x = jnp.array([1, 2, 3])
    _, f_jvp = pyjax.linearize(jnp.sum, x)
    with pytest.raises(ValueError, match="tangent values inconsistent with the original primal"):
        f_jvp(jnp.ones((3, 2)))
    _, f_jvp = pyjax.linearize(lambda v: v, 1.0)
    assert float(f_jvp(2.0)) == 2.0
    with pytest.raises(ValueError, match="tangent values inconsistent"):
        f_jvp(1)
    _, f_jvp = pyjax.linearize(lambda v: v, np.ones(2, np.int32))
    assert f_jvp(np.zeros(2, pyjax.dtypes.float0)).dtype == pyjax.dtypes.float0
    with pytest.raises(TypeError, match=r"jacfwd requires real-valued inputs .* but got complex"):
        pyjax.jacfwd(lambda v: v ** 2)(3.0 + 1j)
    np.testing.assert_allclose(pyjax.jacfwd(lambda v: v ** 2, holomorphic=True)(3.0 + 1j), 6.0 + 2j)


def test_jvp_errors():
    with pytest.raises(TypeError, match="tree structure"):
        pyjax.jvp(lambda a, b: a * b, (1.0, 2.0), (1.0,))
    with pytest.raises(TypeError, match="tree structure"):
        pyjax.jvp(lambda d: d["a"], ({"a": 1.0},), ({"b": 1.0},))
    with pytest.raises(ValueError, match=r"different primal and tangent shapes;Got primal shape \(3,\) and tangent shape as \(2,\)"):
        pyjax.jvp(jnp.sin, (np.ones(3, np.float32),), (np.ones(2, np.float32),))
    with pytest.raises(TypeError, match="float16"):
        pyjax.jvp(jnp.sin, (np.ones(3, np.float32),), (np.ones(3, np.float16),))
    with pytest.raises(TypeError, match="float0"):
        pyjax.jvp(lambda n: n * 2, (np.int32(1),), (np.float32(1.0),))
    with pytest.raises(TypeError, match="tuples or lists"):
        pyjax.jvp(jnp.sin, 1.0, 1.0)


def test_fan_out_accumulates():
    f = lambda x: jnp.sin(x) * x + x * x + jnp.exp(x)  # x used four times: add_any in reverse
    x = np.float32(0.7)
    want = np.cos(x) * x + np.sin(x) + 2 * x + np.exp(x)
    np.testing.assert_allclose(pyjax.grad(f)(x), want, rtol=1e-6)
    jaxpr = pyjax.make_jaxpr(pyjax.grad(f))(x)
    assert "add_any" in str(jaxpr)
    check_grads(f, (x,), order=3)
    # under vmap too (add_any's batching rule)
    xs = np.linspace(0, 1, 4, dtype=np.float32)
    np.testing.assert_allclose(pyjax.vmap(pyjax.grad(f))(xs), np.cos(xs) * xs + np.sin(xs) + 2 * xs + np.exp(xs), rtol=1e-5)


def test_nested_perturbations_are_distinguished():
    # d/dx [x * d/dy (x + y)] = 1 (perturbation confusion would give 2)
    f = lambda x: x * pyjax.grad(lambda y: x + y)(1.0)
    assert pyjax.grad(f)(3.0) == 1.0
    g = lambda x: pyjax.jvp(lambda y: x * y, (2.0,), (1.0,))[1]
    assert pyjax.jvp(g, (3.0,), (1.0,))[1] == 1.0


def test_missing_transpose_rule_is_clear():
    with pytest.raises(NotImplementedError, match="transpose rule for 'sin'"):
        pyjax.linear_transpose(jnp.sin, 1.0)(1.0)
    # a primitive declared linear in its JVP but with no transpose rule
    double_p = core.Primitive("double_without_transpose")
    double_p.def_abstract_eval(lambda x: x)
    double_p.def_impl(lambda x: jnp.multiply(x, 2.0))
    double_p.def_jvp(lambda primals, tangents: (double_p.bind(*primals), double_p.bind(*tangents)))
    assert pyjax.jvp(double_p.bind, (1.0,), (1.0,)) == (2.0, 2.0)
    with pytest.raises(NotImplementedError, match="transpose rule for 'double_without_transpose'"):
        pyjax.grad(lambda x: double_p.bind(x))(1.0)
    with pytest.raises(NotImplementedError, match="differentiation rule for 'nextafter'"):
        pyjax.grad(lambda x: lax.nextafter(x, 2.0))(1.0)


# -- jit under AD and AD under jit ---------------------------------------------------------------

def _new_executables():
    s = xla.cache_stats()
    return s["compiles"] + s["disk_hits"]


def test_jit_composition_agrees_and_compiles_once():
    rs = np.random.RandomState(0)
    x, w = rs.randn(4, 3).astype(np.float32), rs.randn(3, 2).astype(np.float32)
    traces = []

    def make_f():  # a fresh function per variant: traces are shared by all jits of one function
        def f(x, w):
            traces.append(1)  # a Python side effect: runs once per trace
            return jnp.sum(jnp.tanh(x @ w) ** 2)
        return f

    def want(x, w):
        t = np.tanh(x @ w)
        return x.T @ (2 * t * (1 - t ** 2))

    variants = {
        "grad(jit(f))": lambda f: pyjax.grad(pyjax.jit(f), argnums=1),
        "jit(grad(f))": lambda f: pyjax.jit(pyjax.grad(f, argnums=1)),
        "jit(grad(jit(f)))": lambda f: pyjax.jit(pyjax.grad(pyjax.jit(f), argnums=1)),
        "jit(value_and_grad(f))": lambda f: pyjax.jit(lambda *a: pyjax.value_and_grad(f, argnums=1)(*a)[1]),
    }
    for name, make in variants.items():
        traces.clear()
        g = make(f := make_f())
        np.testing.assert_allclose(g(x, w), want(x, w), rtol=1e-5, atol=1e-6, err_msg=name)
        before = _new_executables()
        np.testing.assert_allclose(g(x + 1, w), want(x + 1, w), rtol=1e-5, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(g(x, 2 * w), want(x, 2 * w), rtol=1e-5, atol=1e-6, err_msg=name)
        assert len(traces) == 1, f"{name}: f traced {len(traces)} times"
        assert _new_executables() == before, f"{name}: recompiled on a call with the same shapes"
    # the jitted function's own cache holds one entry after differentiating through it
    jf = pyjax.jit(f)
    pyjax.grad(jf)(x, w), pyjax.grad(jf, argnums=1)(x, w), jf(x, w)
    assert jf._cache_size() == 1
    # the pjit equation survives into the jaxprs of its derivatives
    assert f"{pjit_p.name}[" in str(pyjax.make_jaxpr(pyjax.grad(pyjax.jit(f)))(x, w))


def test_jit_inside_jvp_vjp_and_higher_order():
    f = pyjax.jit(lambda x: jnp.sin(x) * x)
    x = np.float32(0.4)
    check_grads(f, (x,), order=3, modes=("fwd", "rev"))
    check_grads(lambda v: f(f(v)), (x,), order=2)
    # jit of a function with closed-over constants and integer arguments
    c = np.arange(3, dtype=np.float32)
    g = pyjax.jit(lambda v, n: jnp.sum(v * c) * n, static_argnums=())
    np.testing.assert_allclose(pyjax.grad(g)(np.ones(3, np.float32), 2.0), 2 * c)
    gx, gn = pyjax.grad(g, argnums=(0, 1), allow_int=True)(np.ones(3, np.float32), 2)
    np.testing.assert_allclose(gx, 2 * c)
    assert gn.dtype == dtypes.float0
    # linear_transpose through jit
    (t,) = pyjax.linear_transpose(pyjax.jit(lambda v: 3.0 * v + c), np.ones(3, np.float32))(np.ones(3, np.float32))
    np.testing.assert_allclose(t, 3.0)


@pytest.mark.parametrize("wrap", [pyjax.jit, pyjax.checkpoint], ids=["jit", "checkpoint"])
def test_integer_outputs_of_call_primitives(wrap):
    """float0 tangents of integer outputs stay symbolic (they cannot be lowered)."""
    f = wrap(lambda v: (v * 2, jnp.argmax(v)))
    for g in (pyjax.grad(lambda x: jnp.sum(f(x)[0])), pyjax.jit(pyjax.grad(lambda x: jnp.sum(f(x)[0])))):
        np.testing.assert_array_equal(g(np.ones(3, np.float32)), 2.0)
    _, (t, t_int) = pyjax.jvp(f, (np.ones(3, np.float32),), (np.ones(3, np.float32),))
    assert t_int.dtype == dtypes.float0


def test_complex_and_holomorphic():
    z = np.complex64(1 + 2j)
    # holomorphic: the complex derivative f'(z)
    np.testing.assert_allclose(pyjax.grad(lambda v: v ** 2, holomorphic=True)(z), 2 * z, rtol=1e-6)
    zs = np.array([1 + 1j, 2 - 1j], np.complex64)
    for jac in (pyjax.jacfwd, pyjax.jacrev):
        np.testing.assert_allclose(jac(lambda v: v ** 2, holomorphic=True)(zs), np.diag(2 * zs), rtol=1e-6)
    # real-valued functions of complex inputs: JAX's convention (the conjugate of the Wirtinger
    # derivative times 2): d|z|^2 = 2 conj(z), d Re(c z) = c
    np.testing.assert_allclose(pyjax.grad(lambda v: jnp.abs(v) ** 2)(z), 2 * np.conj(z), rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(lambda v: jnp.real(v * (2 + 3j)))(z), 2 + 3j, rtol=1e-6)
    with pytest.raises(TypeError, match="holomorphic"):
        pyjax.grad(lambda v: v ** 2)(z)


def test_vjp_returns_a_pytree_that_jit_can_return():
    """Issue 23: as JAX 0.10.2, vjp's backward function is a `VJP` pytree whose leaves are the
    residuals, so it can be returned from (and passed into) jit. Values recorded from JAX:
        jax.jit(lambda x: jax.vjp(lambda v: jnp.sin(v) * v, x)[1])(jnp.arange(3.0))(jnp.ones(3))"""
    g = pyjax.jit(lambda x: pyjax.vjp(lambda v: jnp.sin(v) * v, x)[1])(jnp.arange(3.0))
    assert type(g).__name__ == "VJP" and len(pyjax.tree_util.tree_leaves(g)) > 0
    expected = np.float32([0.0, 1.3817732, 0.07700372])
    np.testing.assert_allclose(g(jnp.ones(3))[0], expected, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda f, c: f(c))(g, jnp.ones(3))[0], expected, rtol=1e-6)
    doubled = pyjax.tree_util.tree_map(lambda r: 2 * r, g)
    assert type(doubled).__name__ == "VJP"
    _, f = pyjax.vjp(jnp.sin, 1.0)
    with pytest.raises(TypeError, match="must be called with a single argument"):
        f(1.0, 2.0)


def test_jvp_values_with_zero_tangents_stay_primals():
    # JAX 0.10.2: an input or output whose tangent is a symbolic zero or float0 is the primal
    # itself, not a JVP tracer, also across jit (equinox's filter_jvp sorts outputs so)
    seen = []

    def f(x, n):
        a, b = pyjax.jit(lambda a, b: (a * 2, b + 1))(x, n)
        c = n * 3
        seen.append([isinstance(v, core.Tracer) for v in (x, n, a, b, c)])
        return a, b, c

    p, t = pyjax.jvp(f, (1.0, 2), (1.0, np.zeros((), dtypes.float0)))
    assert seen == [[True, False, True, False, False]]
    assert (float(p[0]), int(p[1]), p[2]) == (2.0, 3, 6) and type(p[2]) is int
    assert float(t[0]) == 2.0
    assert all(isinstance(v, np.ndarray) and v.dtype == dtypes.float0 for v in t[1:])


def test_vmap_of_remat_keeps_unbatched_outputs_unbatched():
    """As JAX's api_test (test_remat_vmap): a remat's JVP under vmap (jacfwd) keeps its primal
    output unbatched (it does not depend on the basis vector), and a remat body may use the
    vmap's named axis."""
    g = pyjax.remat(lambda x: lax.sin(lax.sin(x)))
    x = np.arange(3.0, dtype=np.float32)
    np.testing.assert_allclose(pyjax.jacfwd(g)(x), np.diag(np.cos(np.sin(x)) * np.cos(x)),
                               rtol=1e-6, atol=1e-7)
    h = pyjax.remat(lambda x: x - lax.psum(x, "i") / 3)
    np.testing.assert_allclose(pyjax.vmap(h, axis_name="i")(x), x - x.sum() / 3, rtol=1e-6)
    closed = pyjax.make_jaxpr(pyjax.vmap(lambda x, y: pyjax.remat(lambda a, b: (a * 2, b + 1))(x, y),
                                         in_axes=(0, None)))(x, 1.0)
    eqn, = [e for e in closed.jaxpr.eqns if e.primitive is checkpoint_p]
    assert [v.aval.shape for v in eqn.outvars] == [(3,), ()]   # b + 1 stays unbatched


def test_grad_through_an_enable_x64_block():
    """Issue 23 (JAX's x64_context_test test_grad/test_custom_jvp): vjp makes Python-scalar
    primals arrays of their canonical type first (a block inside cannot widen them past their
    tangents), and grad's cotangent of a float64 output keeps float64 without x64. Values
    recorded from JAX 0.10.2."""
    def fun(x):
        with pyjax.enable_x64(True):
            return jnp.sin(x)

    g = pyjax.grad(fun)(0.5)
    assert (g.dtype, g.weak_type) == (np.float32, True)
    np.testing.assert_allclose(g, 0.87758255, rtol=1e-6)

    @pyjax.custom_jvp
    def f(x):
        return x ** 2.

    @f.defjvp
    def f_jvp(xs, ts):
        return f(xs[0]), ts[0] * jnp.sin(xs[0])

    def h(x):
        with pyjax.enable_x64():
            return f(jnp.array(x, jnp.float64))

    assert h(5.).dtype == np.float64
    for fn, want in [(pyjax.grad(h), -0.9589243), (pyjax.grad(pyjax.grad(h)), 0.2836622)]:
        out = fn(5.)
        assert (out.dtype, out.weak_type) == (np.float32, True)
        np.testing.assert_allclose(out, want, rtol=1e-6)
    y, h_vjp = pyjax.vjp(h, 5.)
    with pytest.raises(ValueError):  # the cotangent of a float64 output is float64
        h_vjp(jnp.ones((), jnp.float32))


def test_linearize_returns_jax_s_partial():
    """Issue 23 (JAX's api_test test_remat_custom_policy & co): linearize's linear function is a
    tree_util.Partial whose func.args[0] is the linear jaxpr and whose leaves are the residuals
    (so it can be returned from jit). Values recorded from JAX 0.10.2."""
    y, f = pyjax.linearize(lambda x: jnp.sin(x) * x, 1.0)
    assert type(f).__name__ == "Partial"
    assert "add_any" in str(f.func.args[0]) and "mul" in str(f.func.args[0])
    np.testing.assert_allclose([y, f(2.0)], [0.84147096, 2.7635465], rtol=1e-6)
    g = pyjax.jit(lambda: pyjax.linearize(jnp.sin, 1.0)[1])()
    np.testing.assert_allclose(g(3.0), 1.6209068, rtol=1e-6)


def test_vjp_args_res_and_opaque_residuals():
    """Issue 23 (JAX's api_test InputSavedVJPTest): vjp's backward function keeps the primals it
    needs as `args_res` (NotNeeded where unused; a program may drop and restore them, also
    through jit) and the other residuals as `opaque_residuals`; a cotangent of the wrong type is
    JAX's ValueError."""
    from pyjax._src.ad_api import NotNeeded
    y, f_vjp = pyjax.vjp(lambda x, w: x * w, 2., 3.)
    assert not f_vjp.opaque_residuals and len(f_vjp.args_res) == 2
    f_vjp.args_res = [None, None]
    f_vjp.args_res = [2., 3.]
    np.testing.assert_allclose(f_vjp(1.), (3., 2.))
    _, s_vjp = pyjax.vjp(jnp.sin, 3.)
    assert isinstance(s_vjp.args_res[0], NotNeeded) and s_vjp.opaque_residuals

    @pyjax.jit
    def g():
        _, v = pyjax.vjp(lambda x, w: x * w, 2., 3.)
        v.args_res = [None, None]
        return v

    @pyjax.jit
    def h(v):
        v.args_res = [2., 3.]
        return v(1.)

    np.testing.assert_allclose(h(g()), (3., 2.))
    x, w = jnp.ones((3, 4)), jnp.ones((4, 4))
    _, m_vjp = pyjax.vjp(lambda x, w: 2. * ((1. * x) @ w), x, w)
    with pytest.raises(ValueError, match="unexpected JAX type"):
        m_vjp(jnp.ones((2, 4)))
