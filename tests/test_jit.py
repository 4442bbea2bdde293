"""Tests of `pyjax.jit`: arguments (pytrees, kwargs, static, donated), the trace cache, nested
jit, AOT lowering/compilation, eval_shape and agreement with eager execution."""
import functools

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src.pjit import pjit_p


def counting(fn):
    """`fn` plus a list whose first element counts how many times it was traced."""
    count = [0]

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        count[0] += 1
        return fn(*args, **kwargs)
    return wrapped, count


def assert_array(x, expected, dtype=None):
    assert isinstance(x, jax.Array)
    np.testing.assert_allclose(np.asarray(x), expected, rtol=1e-6, atol=1e-6)
    if dtype is not None:
        assert x.dtype == np.dtype(dtype)


@pytest.fixture
def x64():
    """Turn 64-bit mode on for one test and restore the previous value afterwards."""
    prev = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", prev)


# --- what can be jitted ---------------------------------------------------------------------


def test_jit_of_a_closure():
    scale = jnp.arange(3.0)
    f = jax.jit(lambda x: x * scale + 1.0)
    assert_array(f(jnp.ones(3)), [1.0, 2.0, 3.0], np.float32)


def test_jit_as_a_decorator_with_and_without_options():
    @jax.jit
    def f(x):
        return x + 1

    @functools.partial(jax.jit, static_argnames="n")
    def g(x, n):
        return x * n

    assert_array(f(jnp.zeros(2)), [1, 1])
    assert_array(g(jnp.ones(2), n=3), [3, 3])


def test_jit_of_a_bound_method():
    class Scaler:
        def __init__(self, w):
            self.w = w

        def apply(self, x):
            return x * self.w

    assert_array(jax.jit(Scaler(2.0).apply)(jnp.ones(2)), [2, 2])


def test_jit_of_a_method_with_static_self():
    class Model:
        def __init__(self, k):
            self.k = k

        def __hash__(self):
            return hash(self.k)

        def __eq__(self, other):
            return isinstance(other, Model) and other.k == self.k

        @functools.partial(jax.jit, static_argnums=0)
        def apply(self, x):
            return x * self.k

    assert_array(Model(3.0).apply(jnp.ones(2)), [3, 3])
    assert_array(Model(4.0).apply(jnp.ones(2)), [4, 4])


def test_jit_keeps_the_function_metadata():
    def my_function(x):
        """Docs."""
        return x

    f = jax.jit(my_function)
    assert f.__name__ == "my_function" and f.__doc__ == "Docs."
    assert f.__wrapped__ is my_function


def test_jit_rejects_non_callables():
    with pytest.raises(TypeError, match="callable"):
        jax.jit(3)


# --- pytrees and keyword arguments -------------------------------------------------------------


def test_pytrees_in_and_out():
    @jax.jit
    def f(params, xs):
        return {"sum": params["w"] * xs[0] + params["b"], "pair": (xs[1], None), "list": [xs[0]]}

    params = {"w": jnp.full(3, 2.0), "b": jnp.ones(3)}
    out = f(params, (jnp.arange(3.0), jnp.zeros(2)))
    assert set(out) == {"sum", "pair", "list"}
    assert_array(out["sum"], [1, 3, 5])
    assert out["pair"][1] is None and isinstance(out["pair"], tuple)
    assert_array(out["pair"][0], [0, 0])
    assert isinstance(out["list"], list) and len(out["list"]) == 1


def test_namedtuple_and_empty_containers():
    from collections import namedtuple
    Point = namedtuple("Point", "x y")
    out = jax.jit(lambda p, e: (Point(p.y, p.x), e))(Point(jnp.ones(1), jnp.zeros(1)), {"a": [], "b": ()})
    assert isinstance(out[0], Point)
    assert_array(out[0].x, [0]) and out[1] == {"a": [], "b": ()}


def test_keyword_arguments():
    f = jax.jit(lambda x, y=1.0, *, z: x * y + z)
    assert_array(f(jnp.ones(2), z=jnp.ones(2)), [2, 2])
    assert_array(f(jnp.ones(2), y=3.0, z=jnp.zeros(2)), [3, 3])
    assert_array(f(jnp.ones(2), 2.0, z={"a": 1.0}["a"]), [3, 3])


def test_outputs_that_are_python_scalars_or_inputs():
    f = jax.jit(lambda x: (x, 2.0, 3))
    x = jnp.arange(2.0)
    a, b, c = f(x)
    assert_array(a, [0, 1])
    assert isinstance(b, jax.Array) and float(b) == 2.0 and b.weak_type
    assert isinstance(c, jax.Array) and c.dtype == np.int32


def test_invalid_argument_and_output_types():
    # (JAX's words, api_test test_jit_bad_input: the function and the argument's path)
    with pytest.raises(TypeError, match="Error interpreting argument to .* as an abstract array. "
                                        "The problematic value is of type .* and was passed to "
                                        "the function at path x."):
        jax.jit(lambda x: x)("a string")
    with pytest.raises(TypeError, match="not a valid JAX type"):
        jax.jit(lambda x: "a string")(1.0)


# --- static arguments ---------------------------------------------------------------------------


def test_static_argnums():
    f, count = counting(lambda x, n, s: x * n if s == "mul" else x + n)
    jf = jax.jit(f, static_argnums=(1, 2))
    assert_array(jf(jnp.ones(2), 3, "mul"), [3, 3])
    assert_array(jf(jnp.ones(2), 3, "add"), [4, 4])
    assert_array(jf(jnp.ones(2), 3, "mul"), [3, 3])
    assert count[0] == 2


def test_static_argnums_negative_index():
    f = jax.jit(lambda x, n: jnp.reshape(x, (n, -1)), static_argnums=-1)
    assert f(jnp.arange(6.0), 2).shape == (2, 3)
    assert f(jnp.arange(6.0), 3).shape == (3, 2)


def test_static_argnames_by_name_and_by_position():
    f, count = counting(lambda x, axis: jnp.sum(x, axis=axis))
    jf = jax.jit(f, static_argnames="axis")
    x = jnp.ones((2, 3))
    assert_array(jf(x, axis=0), [2, 2, 2])
    assert_array(jf(x, axis=0), [2, 2, 2])
    assert count[0] == 1
    assert_array(jf(x, 1), [3, 3])  # passed positionally: still static
    assert_array(jf(x, 1), [3, 3])
    assert count[0] == 2  # (by position and by name are different signatures, as in JAX)


def test_static_argnums_also_static_when_passed_by_name():
    jf = jax.jit(lambda x, n: x.reshape(n, -1), static_argnums=1)
    assert jf(jnp.arange(6.0), n=2).shape == (2, 3)


def test_static_python_control_flow():
    @functools.partial(jax.jit, static_argnames=("relu",))
    def f(x, relu):
        if relu:
            return jnp.maximum(x, 0.0)
        return x

    x = jnp.array([-1.0, 2.0])
    assert_array(f(x, relu=True), [0, 2])
    assert_array(f(x, relu=False), [-1, 2])


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, np.ones(2)])
def test_non_hashable_static_argument_raises_value_error(value):
    f = jax.jit(lambda x, s: x, static_argnums=1)
    with pytest.raises(ValueError, match="[Nn]on-hashable static argument"):
        f(jnp.ones(2), value)


def test_non_hashable_static_argname_raises_value_error():
    f = jax.jit(lambda x, s: x, static_argnames="s")
    with pytest.raises(ValueError, match="hashable"):
        f(jnp.ones(2), s=[1])


# --- the trace cache ------------------------------------------------------------------------------


def test_no_retrace_on_second_call():
    f, count = counting(lambda x, y: jnp.sin(x) * y)
    jf = jax.jit(f)
    x = jnp.ones((2, 3))
    first = jf(x, x)
    for _ in range(3):
        again = jf(x, x)
    assert count[0] == 1
    np.testing.assert_array_equal(np.asarray(first), np.asarray(again))
    jf(jnp.zeros((2, 3)), jnp.ones((2, 3)))  # new values, same signature
    jf(np.ones((2, 3), np.float32), x)  # a NumPy array has the same aval as an Array
    assert count[0] == 1


def test_no_retrace_for_pytree_and_kwargs_calls():
    f, count = counting(lambda p, *, k: p["a"] + k)
    jf = jax.jit(f)
    for i in range(3):
        jf({"a": jnp.ones(2)}, k=float(i))
    assert count[0] == 1


@pytest.mark.parametrize("second", [
    pytest.param(lambda: jnp.ones(4), id="shape"),
    pytest.param(lambda: jnp.ones(3, jnp.int32), id="dtype"),
    pytest.param(lambda: jnp.ones(3, jnp.float16), id="dtype-f16"),
    pytest.param(lambda: (jnp.ones(3),), id="tree-structure"),
])
def test_retrace_when_the_signature_changes(second):
    f, count = counting(lambda x: x)
    jf = jax.jit(f)
    jf(jnp.ones(3))
    jf(second())
    assert count[0] == 2
    jf(second())
    assert count[0] == 2


def test_retrace_when_weak_type_changes():
    f, count = counting(lambda x: x * 2)
    jf = jax.jit(f)
    assert jf(1.0).weak_type  # a Python float is weakly typed
    jf(2.0)
    assert count[0] == 1
    assert not jf(jnp.float32(1.0)).weak_type  # same shape/dtype, strong
    assert count[0] == 2


def test_retrace_when_a_static_value_changes():
    f, count = counting(lambda x, n: x * n)
    jf = jax.jit(f, static_argnums=1)
    jf(jnp.ones(2), 2)
    jf(jnp.ones(2), 2)
    assert count[0] == 1
    jf(jnp.ones(2), 3)
    assert count[0] == 2


def test_retrace_when_x64_changes(x64):
    f, count = counting(lambda x: x + 1)
    jf = jax.jit(f)
    assert jf(1.0).dtype == np.float64
    jax.config.update("jax_enable_x64", False)
    assert jf(1.0).dtype == np.float32
    assert count[0] == 2
    jax.config.update("jax_enable_x64", True)
    jf(1.0)
    assert count[0] == 2  # both signatures are cached


def test_repeated_recompiles_are_explained(caplog):
    jf = jax.jit(lambda x: x, )
    with caplog.at_level("WARNING", logger="pyjax"):
        for n in range(1, 6):
            jf(jnp.ones(n))
    assert "recompiling for the 4th time" in caplog.text
    assert "different input types: at x, now f32[4] and before f32[3]" in caplog.text


def test_clear_cache_forces_a_retrace():
    f, count = counting(lambda x: x)
    jf = jax.jit(f)
    jf(1.0)
    jf.clear_cache()
    jf(1.0)
    assert count[0] == 2


# --- donation --------------------------------------------------------------------------------------


def test_donation_deletes_the_donated_input():
    f = jax.jit(lambda x, y: x + y, donate_argnums=0)
    x = jnp.arange(4.0) + 0  # computed on the device
    y = jnp.ones(4) + 0
    out = f(x, y)
    assert_array(out, [1, 2, 3, 4])
    assert x.is_deleted() and not y.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)


def test_donation_of_a_pytree_argument():
    f = jax.jit(lambda p: jax.tree_util.tree_map(lambda v: v * 2, p), donate_argnums=(0,))
    p = {"a": jnp.ones(3) + 0, "b": jnp.ones(2) + 0}
    out = f(p)
    assert_array(out["a"], [2, 2, 2])
    assert p["a"].is_deleted() and p["b"].is_deleted()


def test_donation_skips_static_arguments():
    f = jax.jit(lambda x, n, y: x * n + y, static_argnums=1, donate_argnums=2)
    x, y = jnp.ones(3) + 0, jnp.ones(3) + 0
    assert_array(f(x, 2, y), [3, 3, 3])
    assert y.is_deleted() and not x.is_deleted()


def test_donate_argnums_applies_to_arguments_passed_by_keyword():
    f = jax.jit(lambda x, y: x + y, donate_argnums=1)
    x, y = jnp.ones(3) + 0, jnp.ones(3) + 0
    f(x, y=y)
    assert y.is_deleted() and not x.is_deleted()


def test_donate_argnames():
    f = jax.jit(lambda x, y: x * y, donate_argnames="y")
    x, y = jnp.ones(3) + 0, jnp.ones(3) + 1
    assert_array(f(x, y), [2, 2, 2])
    assert y.is_deleted() and not x.is_deleted()


# --- nested jit ------------------------------------------------------------------------------------


def test_nested_jit_is_a_pjit_equation_and_compiles():
    @jax.jit
    def inner(x):
        return jnp.sin(x) * 2

    def outer(x):
        return inner(x) + 1.0

    x = jnp.arange(3.0)
    closed = jax.make_jaxpr(outer)(x)
    prims = [e.primitive for e in closed.jaxpr.eqns]
    assert prims[0] is pjit_p and len(prims) == 2
    text = str(closed)
    assert f"{pjit_p.name}[" in text and "name=inner" in text and "sin" in text
    expected = np.sin(np.arange(3.0)) * 2 + 1
    assert_array(jax.jit(outer)(x), expected)
    assert_array(outer(x), expected)
    assert "stablehlo.sine" in jax.jit(outer).lower(x).as_text()


def test_jit_of_jit_with_static_args_inside():
    inner = jax.jit(lambda x, n: x ** n, static_argnums=1)
    outer = jax.jit(lambda x: inner(x, 2) + inner(x, 3))
    assert_array(outer(jnp.full(2, 2.0)), [12, 12])


# --- AOT: trace / lower / compile ---------------------------------------------------------------


def test_lower_as_text_is_stablehlo():
    f = jax.jit(lambda x, y: jnp.sin(x) @ y.T + 1.0)
    x = jnp.arange(6.0).reshape(2, 3)
    text = f.lower(x, x).as_text()
    assert isinstance(text, str)
    assert "stablehlo" in text and "func.func public @main" in text
    assert "tensor<2x3xf32>" in text and "tensor<2x2xf32>" in text
    assert "stablehlo.sine" in text and "stablehlo.dot_general" in text


def test_lower_from_shape_dtype_structs():
    f = jax.jit(lambda x: x * 2)
    text = f.lower(jax.ShapeDtypeStruct((4, 8), jnp.float32)).as_text()
    assert "tensor<4x8xf32>" in text


def test_compile_and_cost_analysis():
    f = jax.jit(lambda x, y: x @ y)
    a = jnp.ones((4, 5))
    b = jnp.ones((5, 6))
    compiled = f.lower(a, b).compile()
    cost = compiled.cost_analysis()
    assert isinstance(cost, dict) and "flops" in cost
    assert cost["flops"] > 0
    assert_array(compiled(a, b), np.full((4, 6), 5.0))


def test_compiled_rejects_a_different_argument_structure():
    compiled = jax.jit(lambda x: x).lower(jnp.ones(2)).compile()
    with pytest.raises(TypeError):
        compiled((jnp.ones(2),))


def test_trace_gives_the_jaxpr_and_out_info():
    traced = jax.jit(lambda x: (x.sum(), x.T)).trace(jnp.ones((2, 3)))
    assert [str(e.primitive) for e in traced.jaxpr.jaxpr.eqns][0] == "reduce_sum"
    s, t = traced.out_info
    assert s.shape == () and t.shape == (3, 2) and t.dtype == np.float32
    assert "stablehlo" in traced.lower().as_text()


def test_lowering_with_static_and_donated_arguments():
    f = jax.jit(lambda x, n: x * n, static_argnums=1, donate_argnums=0)
    text = f.lower(jnp.ones(3), 4).as_text()
    assert "jax.buffer_donor = true" in text or "tf.aliasing_output" in text


# --- eval_shape / ShapeDtypeStruct ------------------------------------------------------------


def test_eval_shape():
    def f(x, y):
        return {"mm": x @ y, "s": jnp.sum(x)}

    out = jax.eval_shape(f, jax.ShapeDtypeStruct((2, 3), jnp.float32), jnp.ones((3, 4)))
    assert out["mm"] == jax.ShapeDtypeStruct((2, 4), np.float32)
    assert out["s"].shape == () and out["s"].dtype == np.float32


def test_static_arguments_equal_in_value_but_not_in_type_are_other_keys():
    """1, True and 1.0 compare equal but are other static arguments (JAX's PR 9311): each
    traces once and returns its own type."""
    traces = []

    @functools.partial(jax.jit, static_argnums=(0,))
    def f(k):
        traces.append(k)
        return k

    for x in (1, True, 1.0):
        assert [repr(f(x)) for _ in range(2)] == [repr(jnp.asarray(x))] * 2
    assert [type(t) for t in traces] == [int, bool, float]


def test_tracing_takes_duck_typed_structs():
    """eval_shape, make_jaxpr and linear_transpose take any object with a shape and a dtype as
    an array of that type (JAX's shaped_abstractify); jit calls still refuse it."""
    import types

    class Struct:
        def __init__(self, shape, dtype):
            self.shape, self.dtype = shape, np.dtype(dtype)

    out = jax.eval_shape(lambda a, b, x: jnp.dot(a, x) + b, Struct((3, 4), "float32"),
                         Struct((1, 5), "float32"), Struct((4, 5), "float32"))
    assert (out.shape, out.dtype) == ((3, 5), np.float32)
    ns = types.SimpleNamespace(shape=(), dtype=np.dtype(np.float32))
    assert jax.make_jaxpr(lambda x: x + 2.0)(ns).in_avals[0].str_short() == "f32[]"
    (t,) = jax.linear_transpose(lambda x: 2 * x, types.SimpleNamespace(shape=(3,), dtype="float32"))(
        jnp.ones(3))
    np.testing.assert_allclose(t, [2.0, 2.0, 2.0])
    with pytest.raises(TypeError, match="not a valid JAX type|Error interpreting argument"):
        jax.jit(lambda x: x)(ns)


def test_eval_shape_does_not_compute():
    calls = []
    jax.eval_shape(lambda x: calls.append(1) or x, jax.ShapeDtypeStruct((3,), jnp.int32))
    assert calls == [1]  # traced once, nothing run


def test_eval_shape_passes_returned_shape_dtype_structs_through():
    # as JAX 0.10.2: eval_shape(lambda: (s, 1.0)) gives (s, ShapeDtypeStruct((), float32,
    # weak_type=True)) (lineax compares pytree structures this way)
    s = jax.ShapeDtypeStruct((4, 2), jnp.int32)
    w = jax.ShapeDtypeStruct((3,), jnp.float32, weak_type=True)
    assert jax.eval_shape(lambda: (s, w, 1.0)) == (
        s, w, jax.ShapeDtypeStruct((), np.float32, weak_type=True))


def test_shape_dtype_struct():
    s = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert s.shape == (2, 3) and s.dtype == np.float32 and s.ndim == 2 and s.size == 6
    assert s == jax.ShapeDtypeStruct([2, 3], np.float32)
    assert hash(s) == hash(jax.ShapeDtypeStruct((2, 3), "float32"))
    assert s != jax.ShapeDtypeStruct((2, 3), jnp.int32)
    assert "shape=(2, 3)" in repr(s) and "float32" in repr(s)


def test_jit_eval_shape_method():
    out = jax.jit(lambda x: x[None]).eval_shape(jnp.ones(3))
    assert out.shape == (1, 3)


# --- jit agrees with eager --------------------------------------------------------------------------


def _mlp(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    logits = x @ w + b
    logits = logits - jnp.max(logits, axis=-1, keepdims=True)
    return logits - jnp.log(jnp.sum(jnp.exp(logits), axis=-1, keepdims=True))


def test_jit_matches_eager_on_a_small_mlp():
    rng = np.random.RandomState(0)
    sizes = [4, 16, 8, 3]
    params = [(jnp.asarray(rng.randn(m, n).astype(np.float32) / np.sqrt(m)),
               jnp.asarray(rng.randn(n).astype(np.float32))) for m, n in zip(sizes[:-1], sizes[1:])]
    x = jnp.asarray(rng.randn(5, 4).astype(np.float32))
    eager = _mlp(params, x)
    jitted = jax.jit(_mlp)(params, x)
    assert jitted.shape == (5, 3) and jitted.dtype == np.float32
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.exp(np.asarray(jitted)).sum(-1), 1.0, rtol=1e-5)


# --- Python scalars and weak types ---------------------------------------------------------------


def test_python_scalar_arguments_are_weak():
    f = jax.jit(lambda a, b: a * b)
    out = f(2, 3)
    assert out.dtype == np.int32 and out.weak_type and int(out) == 6
    out = f(2, 3.0)
    assert out.dtype == np.float32 and out.weak_type
    out = f(jnp.ones(2, jnp.float16), 3.0)  # a weak scalar does not promote the array
    assert out.dtype == np.float16 and not out.weak_type
    out = f(jnp.ones(2, jnp.int8), 3)
    assert out.dtype == np.int8


def test_python_bool_argument_is_not_weak():
    out = jax.jit(lambda a: a)(True)
    assert out.dtype == np.bool_ and not out.weak_type


def test_numpy_scalar_arguments_are_strong():
    out = jax.jit(lambda a, b: a * b)(jnp.ones(2, jnp.float16), np.float32(3.0))
    assert out.dtype == np.float32


def test_python_scalars_in_x64(x64):
    out = jax.jit(lambda a: a + 1)(1.5)
    assert out.dtype == np.float64 and out.weak_type
    assert jax.jit(lambda a: a + 1)(1).dtype == np.int64


# --- disable_jit -------------------------------------------------------------------------------------


def test_disable_jit_runs_the_python_function():
    seen = []

    @jax.jit
    def f(x):
        seen.append(type(x))
        return x + 1

    with jax.disable_jit():
        f(jnp.ones(2))
        out = f(jnp.ones(2))
    assert len(seen) == 2 and all(issubclass(t, jax.Array) and t.__name__ == "ArrayImpl" for t in seen)
    assert_array(out, [2, 2])
    f(jnp.ones(2))
    assert seen[-1] is not jax.Array  # traced again once jit is back on
    assert not jax.config.jax_disable_jit


def test_disable_jit_allows_python_control_flow_on_values():
    @jax.jit
    def f(x):
        return x if float(x.sum()) > 0 else -x

    with jax.disable_jit():
        assert_array(f(jnp.array([-1.0, -2.0])), [1, 2])


def test_shardings_that_are_all_none_are_unspecified():
    # (flax.nnx.jit passes in_shardings full of None): as JAX, an ordinary one-device jit
    f = jax.jit(lambda x, y: x + y, in_shardings=(None, None), out_shardings=None)
    np.testing.assert_array_equal(f(np.ones(2, np.float32), np.ones(2, np.float32)), [2.0, 2.0])


def test_float0_arguments_and_outputs():
    # JAX 0.10.2: float0 values (integers' tangents) pass through jit, lowered as booleans; a
    # float0 output comes back as NumPy zeros of float0 (equinox's jitted filter_jvp)
    from pyjax._src import dtypes
    t = np.zeros((2,), dtypes.float0)
    f = jax.jit(lambda x, t: (x + 1, t))
    for _ in range(2):  # the second call: C++ dispatch must not take the float0 argument
        y, t_out = f(jnp.ones(2), t)
        np.testing.assert_array_equal(y, [2.0, 2.0])
        assert type(t_out) is np.ndarray and t_out.dtype == dtypes.float0 and t_out.shape == (2,)
    np.testing.assert_array_equal(jax.jit(lambda x, t: x + 1)(jnp.ones(2), t), [2.0, 2.0])


def test_cache_miss_explanations_say_jax_words(caplog):
    """Issue 23 (JAX's api_test test_cache_miss_explanations_*): under explain_cache_misses a
    retrace names what changed in JAX's words, by argument name and path."""
    @jax.jit
    def f(x, y):
        return x

    @jax.jit
    def g(*args, **kwargs):
        return args[0]

    f(np.float32(0), np.float32(1))
    g(0., 1., y=(2., 2.1))
    with caplog.at_level("WARNING", logger="pyjax"), jax.explain_cache_misses(True):
        f(np.float32(0), np.int32(1))
        g(0., (1., 1.1), y=2.)
        f(np.float32(0), {"a": [1.]})
        f(np.float32(0), {"a": [1]})
    lines = [r.getMessage() for r in caplog.records]
    assert "different input types: at y, now i32[] and before f32[]" in lines[0]
    assert "recompiling for the 2nd time" in lines[0]
    assert "different input pytree" in lines[1]
    assert ("different input types: at y['a'][0], now i32[]{weak_type=True} and before "
            "f32[]{weak_type=True}") in lines[3]


def test_inline_jit_sees_python_scalars_as_arrays_under_a_trace():
    # JAX 0.10.2 traces an inline jit's function with arrays for its dynamic arguments (blackjax
    # reads `.dtype` of a default `1.0`); static arguments stay as given; the jaxpr is inlined
    @functools.partial(jax.jit, inline=True, static_argnames=("p",))
    def f(a, b, *, p="highest"):
        assert isinstance(p, str)
        return (a * b).astype(jnp.result_type(a.dtype, b.dtype))

    np.testing.assert_array_equal(jax.vmap(lambda x: f(1.0, x))(jnp.ones((2, 2))), np.ones((2, 2)))
    np.testing.assert_array_equal(jax.jit(lambda x: f(2, x))(jnp.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(jax.grad(lambda x: f(np.float32(3), x))(1.0), 3.0)
    assert str(jax.make_jaxpr(lambda x: f(1.0, x))(jnp.ones(2))) == \
        "{ lambda ; a:f32[2]. let b:f32[2] = mul 1.0:f32[] a in (b,) }"


def test_jit_device_argument_places_the_computation():
    """Issue 23 (JAX's api_test test_jit_device): jit(device=d) runs on d (JAX's deprecated
    argument, kept), from the first call and on C++'s fast path after it."""
    d = jax.devices()[-1]
    f = jax.jit(lambda x: x * 2, device=d)
    for _ in range(2):
        assert f(3.).devices() == {d} and f(jnp.ones(2)).devices() == {d}
    assert jax.jit(device=d)(lambda x: x + 1)(1.).devices() == {d}
