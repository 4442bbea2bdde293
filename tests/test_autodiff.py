"""Automatic differentiation (issue 3).

- Every differentiable lax primitive (the rows of `op_table.LAX_OPS`) and the differentiable
  `pyjax.numpy` / `pyjax.nn` functions (`JNP_GRADS` below) pass `check_grads` in forward and
  reverse mode, to second order (first where JAX supports only first), in float32 and again in
  float64 with tighter tolerances. Primitives with a zero derivative are checked to give zero
  (or float0) tangents and cotangents.
- Coverage: every primitive with a JVP rule is exercised here, and the primitives without a JVP
  or transpose rule are listed explicitly (`NO_JVP`).
- Closed forms, JAX's values at special points, the API's errors, jit composition (traced and
  compiled once), custom_jvp / custom_vjp, checkpoint and its policies (residuals counted on the
  linearized jaxpr).
"""
import functools

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import ad_api, core, dtypes
from pyjax._src.ad_checkpoint import checkpoint_name, checkpoint_p, name_p
from pyjax._src.backend import xla
from pyjax._src.custom_derivatives import custom_jvp_call_p, custom_lin_p, custom_vjp_call_p
from pyjax._src.interpreters import ad
from pyjax._src.pjit import pjit_p
from pyjax.test_util import check_grads

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
    "lgamma": dict(order=1),  # its derivative, digamma, has no JVP rule (NO_JVP)
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
    "sign", "floor", "ceil", "round", "is_finite", "nextafter", "eq", "ne", "lt", "le", "gt", "ge",
    "not", "and", "or", "xor", "population_count", "clz", "shift_left", "shift_right_logical",
    "shift_right_arithmetic", "bitcast_convert_type", "reduce_and", "reduce_or", "argmax",
    "argmin", "stop_gradient",
}

# Primitives without a JVP rule, and why (asserted exactly by `test_rule_coverage`).
NO_JVP = {
    "digamma": "its derivative needs polygamma, which has no primitive yet (JAX: polygamma(1, x))",
    "iota": "it has no operands",
}

# Primitives exercised by dedicated tests rather than the op table.
TESTED_BY = {
    "add_any": "test_fan_out_accumulates",
    "pjit": "test_jit_composition_agrees_and_compiles_once",
    "custom_jvp_call": "test_custom_jvp_nested_and_reverse",
    "custom_vjp_call": "test_custom_vjp_clip_gradient",
    "custom_lin": "test_custom_vjp_forward_mode_raises",
    "checkpoint": "test_checkpoint_same_gradient",
    "name": "test_checkpoint_save_only_these_names",
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


def _grad_cases(full=False):
    """(row, shape, dtype) for the finite-difference checks: float32 on every shape of the row
    (broadcasting shapes matter to transposes), complex64 on the first (all shapes if `full`)."""
    out = []
    for row in T.LAX_OPS:
        if row.primitive in ZERO_DERIVATIVE or row.primitive in NO_JVP or row.nargs == 0:
            continue
        for dt in (F32, C64):
            if dt not in row.dtypes:
                continue
            for shape in (row.shapes if dt == F32 or full else row.shapes[:1]):
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


@pytest.mark.parametrize("row,shape,dtype", [c for c in _grad_cases() if c.values[1] is c.values[0].shapes[0]])
def test_lax_grads_float64(x64, row, shape, dtype):
    spec = _spec(row)
    args = [a.astype(WIDE.get(a.dtype, a.dtype)) for a in _row_args(row, shape, dtype, spec.get("rng"))]
    if _out_dtype(row, args) not in (F64, C128):
        pytest.skip("output narrower than the 64-bit input (finite differences at eps=1e-6 can't resolve it)")
    _check_row(row, shape, dtype, wide=True)


@pytest.mark.slow
@pytest.mark.parametrize("row,shape,dtype", _grad_cases(full=True))
def test_lax_grads_full(x64, row, shape, dtype):
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
    assert no_jvp == sorted(NO_JVP), no_jvp
    fd_checked = {c.values[0].primitive for c in _grad_cases()}
    zero_checked = {c.values[0].primitive for c in _zero_cases()}
    exercised = fd_checked | zero_checked | set(TESTED_BY)
    missing = sorted(n for n, p in prims.items() if p.jvp is not None and n not in exercised)
    assert not missing, f"primitives with a JVP rule that no test differentiates: {missing}"
    for name, test in TESTED_BY.items():
        assert test in globals(), (name, test)
    # every transposable primitive is reached in reverse mode by some row (rev is always checked)
    transposable = sorted(n for n, p in prims.items() if p.transpose is not None)
    print("primitives with a transpose rule:", transposable)
    linear_untested = [n for n in transposable if n not in fd_checked and n not in TESTED_BY]
    assert not linear_untested, linear_untested
    # the primitives that are not linear: no transpose rule (they are never transposed)
    assert "sin" not in transposable and "exp" not in transposable


# -- pyjax.numpy and pyjax.nn ------------------------------------------------------------------

MAT, VEC = (2, 3), (4,)


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


def _jnp_args(shapes, rng, dtype, seed=0):
    rs = np.random.RandomState(seed)
    rngs = rng if isinstance(rng, tuple) else (rng,) * len(shapes)
    return [np.asarray(r(rs, s, dtype)) for r, s in zip(rngs, shapes, strict=True)]


@pytest.mark.parametrize("fn,shapes,rng,order,dtype,kw", JNP_GRADS)
def test_jnp_grads(fn, shapes, rng, order, dtype, kw):
    check_grads(fn, _jnp_args(shapes, rng, dtype), order=order, modes=("fwd", "rev"), **kw)


@pytest.mark.parametrize("fn,shapes,rng,order,dtype,kw", JNP_GRADS)
def test_jnp_grads_float64(x64, fn, shapes, rng, order, dtype, kw):
    args = [a.astype(WIDE[a.dtype]) for a in _jnp_args(shapes, rng, dtype)]
    check_grads(fn, args, order=order, modes=("fwd", "rev"), **kw)
