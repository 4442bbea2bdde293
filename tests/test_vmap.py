"""vmap: every lax primitive against a per-example loop stacked with NumPy (driven by
`op_table.LAX_OPS`, over choices of batched arguments and batch-axis positions, negative in_axes
and out_axes included); jit/vmap composition; nested vmap; in_axes pytrees; the errors; and the
collectives inside vmap against NumPy.

Cost: the op-table sweep compiles one jitted function per row (every shape and in_axes choice of
the row batched together), so it stays at ~one executable per primitive variant."""

import functools

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core
from pyjax._src.interpreters import batching

from op_table import LAX_OPS, MISSING_RULES, arg_shapes, assert_close, lax_primitives, make_args, numpy_eval

B = 3  # examples per batch


# -- the op-table sweep ------------------------------------------------------------------------

def _axis_choices(ranks):
    """(label, in_axes, out_axes) choices for a row with per-example argument `ranks`."""
    n = len(ranks)
    if n == 0:
        return [("axis_size", (), 0), ("axis_size out -1", (), -1)]
    out = [("all 0", (0,) * n, 0), ("all -1", (-1,) * n, -1)]
    if n > 1:
        out += [(f"only arg {i}", tuple(0 if j == i else None for j in range(n)), -1) for i in range(n)]
    mid = tuple(min(1, r) for r in ranks)  # a middle axis where there is one
    if mid != (0,) * n:
        out.append(("middle", mid, None))  # out_axes set from the output rank
    return out


def _stack(xs, axis):
    return np.stack([np.asarray(x) for x in xs], axis=axis)


def _build_cases(op, dtype, shapes_list):
    """Inputs, in_axes/out_axes and the NumPy-stacked expectation of each (shape, choice)."""
    cases = []
    for shapes in shapes_list:
        examples = [make_args(op, shapes, dtype, seed=k) for k in range(B)]
        ranks = [len(s) for s in arg_shapes(op, shapes)]
        for label, in_axes, out_axes in _axis_choices(ranks):
            # unbatched arguments: every example uses example 0's value
            ref_args = [[examples[0 if a is None else k][i] for i, a in enumerate(in_axes)] for k in range(B)]
            args = [examples[0][i] if a is None else _stack([e[i] for e in examples], a)
                    for i, a in enumerate(in_axes)]
            refs = [numpy_eval(pyjax.make_jaxpr(op.fn)(*r), *r)[0] for r in ref_args]
            out_rank = np.ndim(refs[0])
            if label == "middle":
                out_axes = min(1, out_rank)
            cases.append((f"{shapes} {label} in_axes={in_axes} out_axes={out_axes}",
                          args, in_axes, out_axes, _stack(refs, out_axes)))
    return cases


def _run_vmapped(op, cases):
    """All cases in one jitted function (one compile), checking its jaxpr."""
    def run(*flat_args):
        it = iter(flat_args)
        outs = []
        for _, args, in_axes, out_axes, _ in cases:
            mine = [next(it) for _ in args]
            f = pyjax.vmap(op.fn, in_axes=in_axes, out_axes=out_axes, axis_size=B if not args else None)
            outs.append(f(*mine))
        return outs
    flat = [a for c in cases for a in c[1]]
    core.check_jaxpr(pyjax.make_jaxpr(run)(*flat).jaxpr)
    return pyjax.jit(run)(*flat)


def _check_row(op, dtype, shapes_list):
    cases = _build_cases(op, dtype, shapes_list)
    outs = _run_vmapped(op, cases)
    for (what, *_, expected), out in zip(cases, outs, strict=True):
        what = f"vmap {op.name} {np.dtype(dtype).name} {what}"
        assert out.dtype == expected.dtype, what
        assert_close(out, expected, op.tol, what)


@pytest.mark.parametrize("op", LAX_OPS, ids=lambda o: o.name)
def test_vmap_lax_op(op):
    # every shape of the row on its first dtype
    _check_row(op, op.dtypes[0], op.shapes)


@pytest.mark.slow
@pytest.mark.parametrize("op", LAX_OPS, ids=lambda o: o.name)
def test_vmap_lax_op_all_dtypes(op):
    for dtype in op.dtypes[1:]:
        _check_row(op, dtype, op.shapes)


def test_every_lax_primitive_has_a_batching_rule():
    from pyjax._src.lax import parallel
    from pyjax._src.pjit import pjit_p
    prims = list(lax_primitives().values()) + [pjit_p] + [
        v for k, v in vars(parallel).items() if k.endswith("_p") and isinstance(v, core.Primitive)]
    missing = sorted(p.name for p in prims if p.batch is None and p.name not in MISSING_RULES["batch"])
    assert not missing, f"primitives without a batching rule: {missing}"


def test_vmap_eager_matches_jit():
    """Rules run eagerly too (each primitive on concrete arrays)."""
    rs = np.random.RandomState(0)
    x, y = rs.randn(3, 4, 5).astype(np.float32), rs.randn(5, 4).astype(np.float32)
    i = np.array([0, 2, 7], np.int32)

    def f(x, y, i):
        z = jnp.tanh(x) @ y + lax.dynamic_slice(x, (i, 0), (2, 4)).sum()
        return lax.pad(z, 1.0, [(1, 0, 1), (0, 1, 0)]).T

    g = pyjax.vmap(f, in_axes=(0, None, 0))
    assert_close(g(x, y, i), pyjax.jit(g)(x, y, i), 1e-5)
    expected = np.stack([f(x[k], y, i[k]) for k in range(3)])
    assert_close(g(x, y, i), expected, 1e-5)


# -- rules that must not move the batch axis ---------------------------------------------------

def _eqn_names(f, *args):
    return [e.primitive.name for e in pyjax.make_jaxpr(f)(*args).eqns]


def test_no_needless_transposes():
    x = np.ones((4, 3, 5), np.float32)
    # elementwise ops on operands batched at the same axis, reductions, broadcasts, squeeze,
    # transpose and slices keep the batch axis where it is
    f = pyjax.vmap(lambda a, b: jnp.sum(jnp.sin(a) * b + 1.0, axis=0), in_axes=(1, 1))
    assert "transpose" not in _eqn_names(f, x, x)
    g = pyjax.vmap(lambda a: lax.broadcast_in_dim(a[:, 1:3], (4, 7, 2), (0, 2)), in_axes=2, out_axes=-1)
    assert "transpose" not in _eqn_names(g, x)
    h = pyjax.vmap(lambda a: lax.transpose(a, (1, 0)) * 2.0, in_axes=1, out_axes=1)
    assert _eqn_names(h, x) == ["transpose", "mul"]
    # one batched operand of dot_general: its batch axis is a free dimension
    d = pyjax.vmap(lambda a, w: a @ w, in_axes=(2, None), out_axes=1)
    assert _eqn_names(d, x, np.ones((3, 7), np.float32)) == ["dot_general"]


def test_dot_general_both_batched_uses_batch_dimensions():
    f = pyjax.vmap(jnp.dot, in_axes=(0, 1))
    jaxpr = pyjax.make_jaxpr(f)(np.ones((5, 2, 3), np.float32), np.ones((3, 5, 4), np.float32))
    (eqn,) = jaxpr.eqns
    assert eqn.params["dimension_numbers"] == (((2,), (0,)), ((0,), (1,)))
    assert eqn.outvars[0].aval.shape == (5, 2, 4)


# -- the API: in_axes / out_axes, kwargs, axis_size, nesting ------------------------------------

def test_in_axes_pytree_and_negative_out_axes():
    tree = {"x": np.arange(6.0).reshape(2, 3), "y": np.float32(10)}
    out = pyjax.vmap(lambda t: t["x"] + t["y"], in_axes=({"x": 1, "y": None},), out_axes=-1)(tree)
    np.testing.assert_allclose(out, np.arange(6.0).reshape(2, 3) + 10)


def test_in_axes_dict_prefix_and_list():
    f = pyjax.vmap(lambda a, b: a["p"] * b[0] + b[1], in_axes=[{"p": 0}, (None, 1)])
    a = {"p": np.arange(3.0)}
    b = (np.float32(2), np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(f(a, b), np.arange(3.0)[:, None] * 2 + np.arange(6.0).reshape(2, 3).T)


def test_kwargs_are_mapped_over_axis_0():
    f = pyjax.vmap(lambda x, y: x * y, in_axes=(1,))
    np.testing.assert_allclose(f(np.ones((2, 3)), y=np.arange(3.0)), np.arange(3.0)[:, None] * np.ones((3, 2)))


def test_axis_size_without_mapped_args_and_constant_outputs():
    out = pyjax.vmap(lambda x: (x * 2, 1.0), in_axes=None, axis_size=3, out_axes=(1, 0))(np.ones(2, np.float32))
    np.testing.assert_allclose(out[0], np.full((2, 3), 2.0))
    np.testing.assert_allclose(out[1], np.ones(3))
    same = pyjax.vmap(lambda x: x + 1, in_axes=None, axis_size=3, out_axes=None)(np.ones(2, np.float32))
    np.testing.assert_allclose(same, np.full(2, 2.0))


def test_nested_vmap_pairwise_distances():
    rs = np.random.RandomState(0)
    a, b = rs.randn(4, 3).astype(np.float32), rs.randn(5, 3).astype(np.float32)
    dist = lambda x, y: jnp.sqrt(jnp.sum((x - y) ** 2))  # noqa: E731
    pairwise = pyjax.vmap(pyjax.vmap(dist, in_axes=(None, 0)), in_axes=(0, None))
    expected = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))
    assert_close(pairwise(a, b), expected, 1e-5)
    assert_close(pyjax.jit(pairwise)(a, b), expected, 1e-5)
    # every order of nesting, batch axes not in front
    other = pyjax.vmap(pyjax.vmap(dist, in_axes=(1, None), out_axes=0), in_axes=(None, 1), out_axes=1)
    assert_close(other(a.T, b.T), expected, 1e-5)


def test_vmap_preserves_metadata():
    def my_function(x):
        """Docs."""
        return x
    f = pyjax.vmap(my_function)
    assert f.__name__ == "my_function"
    # as JAX 0.10.2: the vmapped function's docstring says so, then quotes the original
    assert f.__doc__ == ("Vectorized version of my_function. Takes similar arguments as "
                         "my_function but with additional array axes over which my_function is "
                         "mapped.\n\nOriginal documentation:\n\nDocs.")


def test_vmap_of_jnp_functions_and_methods():
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    f = pyjax.vmap(lambda v: (v.T @ v).sum(axis=0) / v.shape[0] + jnp.mean(v, axis=1).max(), in_axes=2)
    expected = np.stack([(x[..., k].T @ x[..., k]).sum(0) / 2 + x[..., k].mean(1).max() for k in range(4)])
    assert_close(f(x), expected, 1e-5)
    g = pyjax.vmap(lambda v, i: v[i] + v[1:, ::2].sum())
    idx = np.array([1, 0], np.int32)
    expected = np.stack([x[k][idx[k]] + x[k][1:, ::2].sum() for k in range(2)])
    assert_close(g(x, idx), expected, 1e-5)


_UNARY_UFUNCS = ["abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt", "ceil",
                 "conj", "cos", "cosh", "deg2rad", "exp", "exp2", "expm1", "fabs", "floor", "isfinite",
                 "isinf", "isnan", "log", "log10", "log1p", "log2", "negative", "positive", "rad2deg",
                 "reciprocal", "rint", "sign", "signbit", "sin", "sinc", "sinh", "sqrt", "square", "tan",
                 "tanh", "trunc", "logical_not"]
_BINARY_UFUNCS = ["add", "arctan2", "copysign", "divide", "equal", "floor_divide", "fmod", "greater",
                  "heaviside", "hypot", "less_equal", "logaddexp", "logaddexp2", "logical_and",
                  "maximum", "minimum", "mod", "multiply", "nextafter", "not_equal", "power",
                  "remainder", "subtract", "true_divide"]
# (name, f(x, y)) with x: f32[3, 4], y: f32[4] per example
JNP_FUNCS = [(n, lambda x, y, n=n: getattr(jnp, n)(x)) for n in _UNARY_UFUNCS] + \
    [(n, lambda x, y, n=n: getattr(jnp, n)(x, y)) for n in _BINARY_UFUNCS] + [
    ("sum", lambda x, y: jnp.sum(x, axis=0)), ("mean", lambda x, y: x.mean(1)),
    ("var", lambda x, y: jnp.var(x, axis=0)), ("std", lambda x, y: x.std()),
    ("max", lambda x, y: jnp.max(x, axis=1)), ("min", lambda x, y: x.min()),
    ("prod", lambda x, y: jnp.prod(x, axis=0)), ("ptp", lambda x, y: jnp.ptp(x, axis=1)),
    ("argmax", lambda x, y: jnp.argmax(x, axis=1)), ("argmin", lambda x, y: jnp.argmin(x)),
    ("all", lambda x, y: jnp.all(x > 0, axis=0)), ("any", lambda x, y: jnp.any(x > 1)),
    ("count_nonzero", lambda x, y: jnp.count_nonzero(x > 0, axis=1)),
    ("cumsum", lambda x, y: jnp.cumsum(x, axis=1)), ("cumprod", lambda x, y: jnp.cumprod(y)),
    ("where", lambda x, y: jnp.where(x > 0, x, y)), ("clip", lambda x, y: jnp.clip(x, -0.5, y)),
    ("round", lambda x, y: jnp.round(x, 1)), ("isclose", lambda x, y: jnp.isclose(x, y)),
    ("matmul", lambda x, y: x @ y), ("dot", lambda x, y: jnp.dot(y, x.T)),
    ("outer", lambda x, y: jnp.outer(x[0], y)), ("inner", lambda x, y: jnp.inner(x, y)),
    ("tensordot", lambda x, y: jnp.tensordot(x, x, axes=([1], [1]))),
    ("einsum", lambda x, y: jnp.einsum("ij,j->i", x, y)), ("vdot", lambda x, y: jnp.vdot(x[0], y)),
    ("trace", lambda x, y: jnp.trace(x)), ("diagonal", lambda x, y: jnp.diagonal(x, 1)),
    ("tril", lambda x, y: jnp.tril(x)), ("triu", lambda x, y: jnp.triu(x, 1)),
    ("concatenate", lambda x, y: jnp.concatenate([x, y[None]])), ("stack", lambda x, y: jnp.stack([y, x[1]], 1)),
    ("hstack", lambda x, y: jnp.hstack([x[0], y])), ("vstack", lambda x, y: jnp.vstack([x, y])),
    ("split", lambda x, y: jnp.split(x, 2, axis=1)[1]), ("tile", lambda x, y: jnp.tile(y, 2)),
    ("repeat", lambda x, y: jnp.repeat(x, 2, axis=0)), ("pad", lambda x, y: jnp.pad(x, ((1, 0), (0, 2)))),
    ("flip", lambda x, y: jnp.flip(x, 1)), ("rot90", lambda x, y: jnp.rot90(x)),
    ("swapaxes", lambda x, y: jnp.swapaxes(x, 0, 1)), ("moveaxis", lambda x, y: jnp.moveaxis(x, 0, -1)),
    ("reshape", lambda x, y: x.reshape(2, 6)), ("ravel", lambda x, y: x.ravel()),
    ("expand_dims", lambda x, y: jnp.expand_dims(y, 0)), ("squeeze", lambda x, y: jnp.squeeze(x[:1])),
    ("broadcast_to", lambda x, y: jnp.broadcast_to(y, (2, 4))), ("T", lambda x, y: x.T),
    ("astype", lambda x, y: x.astype(jnp.int32)), ("zeros_like", lambda x, y: jnp.zeros_like(x) + y),
    ("index", lambda x, y: x[1, ::2]), ("index neg step", lambda x, y: x[::-1, None, 1]),
    ("index traced", lambda x, y: x[jnp.argmax(y) % 3]),
    ("index traced 2", lambda x, y: x[1, jnp.argmin(y)]),
    ("at set", lambda x, y: x.at[0, 1].set(y[0])),
    ("at add traced", lambda x, y: x.at[jnp.argmax(y) % 3].add(y)),
    ("arange", lambda x, y: jnp.arange(4.0) * y), ("linspace", lambda x, y: jnp.linspace(0, 1, 4) + y),
    ("eye", lambda x, y: jnp.eye(4) @ y), ("full", lambda x, y: jnp.full((2,), 3.0) * y[0]),
]


def _jnp_sweep(run_batched):
    """vmap (the examples stacked on a middle axis) against the functions per example; both
    sides evaluated with the primitives' NumPy implementations unless `run_batched` says."""
    rs = np.random.RandomState(0)
    xs = rs.randn(B, 3, 4).astype(np.float32)
    ys = rs.randn(B, 4).astype(np.float32)
    fns = [f for _, f in JNP_FUNCS]
    all_fns = lambda x, y: [f(x, y) for f in fns]  # noqa: E731
    vmapped = pyjax.vmap(all_fns, in_axes=(1, 0))
    jaxpr = pyjax.make_jaxpr(vmapped)(xs.transpose(1, 0, 2), ys)
    core.check_jaxpr(jaxpr.jaxpr)
    single = pyjax.make_jaxpr(all_fns)(xs[0], ys[0])
    with np.errstate(all="ignore"):
        batched = run_batched(vmapped, jaxpr, xs.transpose(1, 0, 2), ys)
        per_example = [numpy_eval(single, xs[k], ys[k]) for k in range(B)]
    for i, (name, _) in enumerate(JNP_FUNCS):
        expected = np.stack([np.asarray(p[i]) for p in per_example])
        assert batched[i].dtype == per_example[0][i].dtype, name
        assert_close(batched[i], expected, 1e-5, f"vmap of jnp.{name}")


def test_vmap_of_jnp_functions():
    _jnp_sweep(lambda f, jaxpr, *args: numpy_eval(jaxpr, *args))


@pytest.mark.slow
def test_vmap_of_jnp_functions_compiled():
    # one XLA compile of ~600 operations: seconds
    _jnp_sweep(lambda f, jaxpr, *args: pyjax.jit(f)(*args))


def test_batched_dynamic_update_slice_and_index_updates():
    x = np.zeros((3, 5), np.float32)
    upd = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    idx = np.array([0, 3, 9], np.int32)  # the last one is clamped to 3
    f = pyjax.vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (i,)))
    expected = np.zeros((3, 5), np.float32)
    for k, s in enumerate([0, 3, 3]):
        expected[k, s:s + 2] = upd[k]
    assert_close(f(x, upd, idx), expected)
    assert_close(pyjax.jit(f)(x, upd, idx), expected)


# -- jit composition ---------------------------------------------------------------------------

def test_vmap_of_jit_compiles_once_per_batched_signature():
    calls = []

    @pyjax.jit
    def f(x, w):
        calls.append(1)
        return jnp.tanh(x @ w)
    w = np.ones((3, 2), np.float32)
    g = pyjax.vmap(f, in_axes=(0, None))
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    from pyjax._src import dispatch
    compiled_before = set(map(id, dispatch._compiled.keys()))
    r1 = g(x, w)
    jaxpr_before = len(batching._batched_jaxprs)
    r2 = g(x + 1, w)
    assert len(calls) == 1  # f traced once
    assert len(batching._batched_jaxprs) == jaxpr_before
    new = [k for k in dispatch._compiled.keys() if id(k) not in compiled_before]
    assert len(new) == 1  # one batched executable for both calls
    assert_close(r1, np.tanh(x @ w), 1e-5)
    assert_close(r2, np.tanh((x + 1) @ w), 1e-5)


def test_jit_of_vmap_and_vmap_of_jit_agree():
    rs = np.random.RandomState(1)
    x = rs.randn(5, 4).astype(np.float32)
    f = lambda v: jnp.exp(v) / jnp.sum(jnp.exp(v))  # noqa: E731
    a = pyjax.jit(pyjax.vmap(f))(x)
    b = pyjax.vmap(pyjax.jit(f))(x)
    c = pyjax.vmap(pyjax.jit(f), in_axes=1, out_axes=1)(x.T)
    expected = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    for r in (a, b, c.T):
        assert_close(r, expected, 1e-5)


def test_vmap_of_jit_with_unbatched_and_constant_arguments():
    @pyjax.jit
    def f(x, y):
        return x * y, y + 1
    out = pyjax.vmap(f, in_axes=(0, None))(np.arange(3.0, dtype=np.float32), np.float32(2))
    np.testing.assert_allclose(out[0], [0, 2, 4])
    np.testing.assert_allclose(out[1], [3, 3, 3])


# -- autodiff composition ----------------------------------------------------------------------

def _mlp_loss(p, x, y):
    return (jnp.tanh(x @ p[0]) @ p[1] - y) ** 2


def test_per_example_gradients_and_grad_of_vmap():
    rs = np.random.RandomState(0)
    params = (rs.randn(3, 8).astype(np.float32), rs.randn(8).astype(np.float32))
    xs, ys = rs.randn(5, 3).astype(np.float32), rs.randn(5).astype(np.float32)
    loop = [pyjax.grad(_mlp_loss)(params, xs[k], ys[k]) for k in range(5)]
    expected = [np.stack([g[j] for g in loop]) for j in range(2)]
    per_example = pyjax.vmap(pyjax.grad(_mlp_loss), in_axes=(None, 0, 0))
    for got in (per_example(params, xs, ys), pyjax.jit(per_example)(params, xs, ys)):
        for g, e in zip(got, expected, strict=True):
            assert_close(g, e, 1e-5)
    total = lambda p: jnp.sum(pyjax.vmap(_mlp_loss, in_axes=(None, 0, 0))(p, xs, ys))  # noqa: E731
    for g, e in zip(pyjax.grad(total)(params), expected, strict=True):
        assert_close(g, e.sum(0), 1e-4)


def test_vmap_of_jacobians_and_custom_derivatives():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    f = lambda v: jnp.sin(v) * jnp.sum(v)  # noqa: E731
    jac = np.stack([np.diag(np.cos(v) * v.sum()) + np.sin(v)[:, None] for v in x])
    assert_close(pyjax.vmap(pyjax.jacrev(f))(x), jac, 1e-5)
    assert_close(pyjax.vmap(pyjax.jacfwd(f))(x), jac, 1e-5)

    @pyjax.custom_jvp
    def g(v):
        return jnp.sin(v)
    g.defjvp(lambda p, t: (jnp.sin(p[0]), 10 * t[0]))

    @pyjax.custom_vjp
    def h(v):
        return jnp.sin(v)
    h.defvjp(lambda v: (jnp.sin(v), None), lambda _, ct: (100 * ct,))
    v = np.arange(3.0, dtype=np.float32)
    assert_close(pyjax.vmap(g)(v), np.sin(v), 1e-6)
    assert_close(pyjax.vmap(pyjax.grad(g))(v), np.full(3, 10.0))
    assert_close(pyjax.vmap(pyjax.grad(h))(v), np.full(3, 100.0))


def test_grad_with_collectives_matches_jax():
    # values from JAX 0.10.2
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    f = pyjax.vmap(pyjax.grad(lambda v: jnp.sum(v - lax.pmean(v, "i")) ** 2), axis_name="i")
    assert_close(f(x), [[-8, -8], [0, 0], [8, 8]])
    g = pyjax.vmap(pyjax.grad(lambda v: jnp.sum(v * lax.psum(v, "i"))), axis_name="i")
    assert_close(g(x), [[12, 18]] * 3)
    h = pyjax.vmap(pyjax.grad(lambda v: jnp.sum(lax.all_gather(v, "i") ** 2)), axis_name="i")
    assert_close(h(x), 6 * x)
    k = pyjax.grad(lambda v: jnp.sum(pyjax.vmap(lambda u: u * lax.psum(u, "i"), axis_name="i")(v)))
    assert_close(k(np.arange(3.0, dtype=np.float32)), [6, 6, 6])


# -- errors ------------------------------------------------------------------------------------

def test_error_inconsistent_sizes():
    with pytest.raises(ValueError, match=r"inconsistent sizes(.|\n)*size 3: axis 0 of argument a of type "
                                         r"float32\[3\](.|\n)*size 4: axis 0 of argument b"):
        pyjax.vmap(lambda a, b: a + b)(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"`axis_size` argument was 4"):
        pyjax.vmap(lambda a: a, axis_size=4)(np.ones(3))


def test_error_in_axes_out_of_range():
    with pytest.raises(ValueError, match="along axis 2, which implies that its rank should be at least 3"):
        pyjax.vmap(lambda a: a, in_axes=2)(np.ones((3, 2)))
    with pytest.raises(ValueError, match="along axis -3"):
        pyjax.vmap(lambda a: a, in_axes=-3)(np.ones((3, 2)))
    with pytest.raises(ValueError, match="rank should be at least 1, but is only 0"):
        pyjax.vmap(lambda a: a)(1.0)


def test_error_in_axes_not_a_prefix():
    with pytest.raises(ValueError, match="len\\(in_axes\\)=2, len\\(args\\)=1"):
        pyjax.vmap(lambda a: a, in_axes=(0, 0))(np.ones(3))
    with pytest.raises(ValueError, match="vmap in_axes"):
        pyjax.vmap(lambda a: a, in_axes=({"a": 0},))({"b": np.ones(3)})
    with pytest.raises(TypeError, match="must be an int, None, or"):
        pyjax.vmap(lambda a: a, in_axes=[0.5])


def test_error_out_axes():
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        pyjax.vmap(lambda a: a, out_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match="out of bounds"):
        pyjax.vmap(lambda a: a, out_axes=2)(np.ones(3))
    with pytest.raises(ValueError, match="at least one non-None value in in_axes"):
        pyjax.vmap(lambda a: a, in_axes=None)(np.ones(3))


def test_error_out_axes_none_of_a_mapped_output_in_jax_words():
    # JAX 0.10.2's messages: the output's path, or the axis name when the vmap has one
    f = lambda x: {"a": x, "broadcast": (x.T, 1.0)}
    axes = {"a": 0, "broadcast": None}
    with pytest.raises(ValueError) as e:
        pyjax.vmap(f, in_axes=1, out_axes=axes)(np.ones((2, 3)))
    assert str(e.value) == ("at vmap out_axes['broadcast'][0], got axis spec None but output was "
                            "batched on axis 1")
    with pytest.raises(ValueError) as e:
        pyjax.vmap(lambda x: x.T, in_axes=1, out_axes=None)(np.ones((2, 3)))
    assert str(e.value) == "at vmap out_axes, got axis spec None but output was batched on axis 1"
    with pytest.raises(ValueError) as e:
        pyjax.vmap(f, in_axes=1, out_axes=axes, axis_name="i")(np.ones((2, 3)))
    assert str(e.value) == "vmap has mapped output (axis_name=i) but out_axes is None"


def test_unbatched_values_under_vmap_stay_concrete():
    # as JAX: an operation on values vmap does not map (here a jitted one, and random's key
    # functions) computes them concretely, not as tracers of the vmap; lineax's tests cache
    # matrices built inside a vmap (functools.cache) and use them after it
    key = pyjax.random.PRNGKey(0)
    seen = []

    @functools.cache
    def matrix():
        return pyjax.random.normal(pyjax.random.fold_in(key, 1), (3, 3))

    def f():
        k = pyjax.random.fold_in(key, 1)
        m = pyjax.jit(lambda a: a * 2)(matrix())
        seen.extend([k, m])
        return 0

    pyjax.vmap(pyjax.vmap(f, axis_size=2), axis_size=3)()
    assert not any(isinstance(v, core.Tracer) for v in seen)
    np.testing.assert_array_equal(seen[1], 2 * np.asarray(matrix()))
    assert pyjax.jit(lambda m: m.sum())(matrix()).shape == ()


def test_error_unbound_axis_name():
    with pytest.raises(NameError, match="Found an unbound axis name: k. To fix this, please "
                                        "call psum under `jax.shard_map`"):  # (JAX's words)
        pyjax.vmap(lambda a: lax.psum(a, "k"), axis_name="i")(np.ones(3))
    with pytest.raises(NameError, match="unbound axis name"):
        lax.psum(1.0, "i")
    with pytest.raises(NameError):
        lax.axis_index("i")


# -- collectives inside vmap, against NumPy ----------------------------------------------------

X = np.arange(24.0, dtype=np.float32).reshape(4, 6)  # 4 examples of shape (6,)


def _both(f, *args):
    """vmap eagerly and under jit; both results."""
    return [f(*args), pyjax.jit(f)(*args)]


@pytest.mark.parametrize("name,fn,expected", [
    ("psum", lambda v: lax.psum(v, "i"), np.broadcast_to(X.sum(0), X.shape)),
    ("pmean", lambda v: lax.pmean(v, "i"), np.broadcast_to(X.mean(0), X.shape)),
    ("pmax", lambda v: lax.pmax(-v, "i"), np.broadcast_to((-X).max(0), X.shape)),
    ("pmin", lambda v: lax.pmin(v, "i"), np.broadcast_to(X.min(0), X.shape)),
    ("center", lambda v: v - lax.pmean(v, "i"), X - X.mean(0)),
    ("psum const", lambda v: v * lax.psum(2, "i"), X * 8),
    ("axis_size", lambda v: v + lax.axis_size("i"), X + 4),
    ("axis_index", lambda v: v * lax.axis_index("i"), X * np.arange(4)[:, None]),
    ("all_gather", lambda v: lax.all_gather(v, "i"), np.broadcast_to(X, (4, 4, 6))),
    ("all_gather axis=1", lambda v: lax.all_gather(v, "i", axis=1), np.broadcast_to(X.T, (4, 6, 4))),
    ("all_gather tiled", lambda v: lax.all_gather(v, "i", tiled=True), np.broadcast_to(X.reshape(-1), (4, 24))),
    ("psum_scatter tiled", lambda v: lax.psum_scatter(jnp.concatenate([v, v[:2]]), "i", tiled=True),
     np.concatenate([X, X[:, :2]], 1).sum(0).reshape(4, 2)),
    ("psum_scatter", lambda v: lax.psum_scatter(v[:4], "i"), X[:, :4].sum(0)),
    ("ppermute", lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 3)]),
     np.concatenate([np.zeros((1, 6), np.float32), X[:3]])),
    ("pshuffle", lambda v: lax.pshuffle(v, "i", [3, 0, 1, 2]), X[[3, 0, 1, 2]]),
    ("all_to_all", lambda v: lax.all_to_all(v[:4], "i", 0, 0), X[:, :4].T),
    ("all_to_all tiled", lambda v: lax.all_to_all(v[:4].reshape(4, 1), "i", 0, 1, tiled=True),
     X[:, :4].T.reshape(4, 1, 4)),
    ("all_to_all tiled blocks", lambda v: lax.all_to_all(jnp.concatenate([v, v[:2]]).reshape(8, 1), "i", 0, 1,
                                                         tiled=True),
     np.concatenate([X, X[:, :2]], 1).reshape(4, 4, 2).transpose(1, 2, 0)),
])
def test_collective_in_vmap(name, fn, expected):
    for out in _both(pyjax.vmap(fn, axis_name="i"), X):
        assert_close(out, expected, 1e-5, name)


def test_psum_of_unbatched_value_and_out_axes_none():
    f = pyjax.vmap(lambda v, w: lax.psum(w, "i"), in_axes=(0, None), axis_name="i", out_axes=None)
    np.testing.assert_allclose(f(X, np.float32(2)), 8.0)
    g = pyjax.vmap(lambda v: lax.psum(v, "i"), axis_name="i", out_axes=None)
    np.testing.assert_allclose(g(X), X.sum(0))


def test_axis_size_and_psum_of_python_numbers_are_python_numbers():
    seen = []

    def f(v):
        seen.append((lax.axis_size("i"), lax.psum(1, "i"), lax.psum(2.5, "i"), lax.pmax(7, "i")))
        return v * lax.axis_size("i")
    jaxpr = pyjax.make_jaxpr(pyjax.vmap(f, axis_name="i"))(X)
    assert seen[0] == (4, 4, 10.0, 7) and [type(s) for s in seen[0]] == [int, int, float, int]
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["mul"]  # (JAX 0.10.2: the same jaxpr)


def test_all_to_all_untiled_other_axes():
    y = np.arange(4 * 4 * 3, dtype=np.float32).reshape(4, 4, 3)  # split axis 0 of size 4
    out = pyjax.vmap(lambda v: lax.all_to_all(v, "i", 0, 1), axis_name="i")(y)
    # example i gets y[j, i, :] for every j, stacked at axis 1: out[i, c, j] = y[j, i, c]
    np.testing.assert_allclose(out, y.transpose(1, 2, 0))
    out = pyjax.vmap(lambda v: lax.all_to_all(v, "i", 1, 0), axis_name="i")(y.transpose(0, 2, 1))
    np.testing.assert_allclose(out, y.transpose(1, 0, 2))


def test_nested_vmaps_with_different_names():
    y = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    nest = lambda f: pyjax.vmap(pyjax.vmap(f, axis_name="j"), axis_name="i")  # noqa: E731
    cases = [
        (lambda v: lax.psum(v, "i"), np.broadcast_to(y.sum(0), y.shape)),
        (lambda v: lax.psum(v, "j"), np.broadcast_to(y.sum(1, keepdims=True), y.shape)),
        (lambda v: lax.psum(v, ("i", "j")), np.broadcast_to(y.sum((0, 1)), y.shape)),
        (lambda v: lax.pmax(v, ("j", "i")), np.broadcast_to(y.max((0, 1)), y.shape)),
        (lambda v: v * 0 + lax.axis_index(("i", "j")), np.broadcast_to(np.arange(6.0).reshape(2, 3, 1), y.shape)),
        (lambda v: lax.all_gather(v, "i"), np.broadcast_to(y.transpose(1, 0, 2)[None], (2, 3, 2, 4))),
        (lambda v: lax.all_gather(v, ("i", "j")), np.broadcast_to(y.reshape(6, 4), (2, 3, 6, 4))),
        (lambda v: lax.psum_scatter(jnp.concatenate([v, v[:2]]), ("i", "j")),
         np.concatenate([y, y[..., :2]], -1).sum((0, 1)).reshape(2, 3)),
    ]
    for f, expected in cases:
        for out in _both(nest(f), y):
            assert_close(out, expected, 1e-5)


def test_collective_inside_jit_inside_vmap_and_grad_style_use():
    f = pyjax.jit(lambda v: v / lax.psum(v, "b"))
    out = pyjax.vmap(f, axis_name="b")(X)
    assert_close(out, X / X.sum(0), 1e-5)
    # an outer vmap's name used inside an inner vmap of a jitted function
    g = pyjax.vmap(pyjax.vmap(pyjax.jit(lambda v: v - lax.pmean(v, "outer"))), axis_name="outer")
    y = np.arange(12.0, dtype=np.float32).reshape(2, 3, 2)
    assert_close(g(y), y - y.mean(0), 1e-5)


def test_collective_outside_vmap_lowering_error():
    from pyjax._src.lax import parallel
    with pytest.raises(NameError, match="unbound axis name in psum"):  # as JAX 0.10.2
        parallel.psum_p.bind(np.ones(3, np.float32), axes=("i",), axis_index_groups=None)
