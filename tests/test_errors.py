"""Errors: wrong ranks, shapes, axes and dtypes raise TypeError/ValueError naming the operation and
the shapes (never a crash or an XLA error); traced values used as concrete ones raise the
`pyjax.errors` classes with the user's line and the fix. Exception classes follow JAX 0.10.2."""
import re

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import errors, lax
from pyjax._src.core import ShapedArray

f3, f4 = jnp.ones(3), jnp.ones(4)
M34 = jnp.ones((3, 4))
DOT = (((1,), (0,)), ((), ()))


def _cases(rows):
    """pytest params named by their message fragments (duplicates get pytest's suffixes)."""
    return [pytest.param(*row, id=" ".join(row[2])) for row in rows]


def raises(exc, *fragments):
    """pytest.raises that also requires every fragment (a literal) in the message."""
    return pytest.raises(exc, match="(?s)" + "".join(f"(?=.*{re.escape(f)})" for f in fragments))


# -- lax: shapes, ranks, axes, dtypes -----------------------------------------------------------

@pytest.mark.parametrize("thunk,exc,fragments", _cases([
    (lambda: lax.add(f3, f4), TypeError, ["add", "f32[3]", "f32[4]"]),
    (lambda: lax.add(f3, jnp.ones(3, np.int32)), TypeError, ["add", "f32[3]", "i32[3]", "same dtype"]),
    (lambda: lax.mul(jnp.ones((2, 3)), jnp.ones((3, 2))), TypeError, ["mul", "f32[2,3]", "f32[3,2]"]),
    (lambda: lax.dot_general(M34, jnp.ones((5, 2)), DOT), TypeError,
     ["dot_general", "contracting", "f32[3,4]", "f32[5,2]"]),
    (lambda: lax.dot_general(jnp.ones((2, 3, 4)), jnp.ones((5, 4, 2)), (((2,), (1,)), ((0,), (0,)))),
     TypeError, ["dot_general", "batch", "f32[2,3,4]", "f32[5,4,2]"]),
    (lambda: lax.dot_general(M34, jnp.ones((4, 2)), (((2,), (0,)), ((), ()))), TypeError,
     ["dot_general", "(2,)", "f32[3,4]"]),
    (lambda: lax.dot_general(M34, jnp.ones((4, 2)), (((1,), (0, 1)), ((), ()))), TypeError,
     ["dot_general", "equal lengths"]),
    # as JAX: operands may differ in dtype, but an integer preferred_element_type can't narrow
    (lambda: lax.dot_general(jnp.ones((3, 4), np.int32), jnp.ones((4, 2), np.int32), DOT,
                             preferred_element_type=np.int8), TypeError,
     ["dot_general", "preferred_element_type", "int8", "int32"]),
    (lambda: lax.dot(jnp.ones((2, 2, 2)), f3), ValueError, ["dot", "f32[2,2,2]"]),  # as JAX
    (lambda: lax.sin(jnp.ones(3, np.int32)), TypeError, ["sin", "int32", "i32[3]"]),
    (lambda: lax.floor(jnp.ones(3, np.int32)), TypeError, ["floor", "int32"]),
    (lambda: lax.bitwise_and(f3, f3), TypeError, ["and", "float32"]),
    (lambda: lax.shift_left(f3, f3), TypeError, ["shift_left", "float32"]),
    (lambda: lax.pow(jnp.ones(2, np.int32), jnp.ones(2, np.int32)), TypeError, ["pow", "int32"]),
    (lambda: lax.lt(jnp.ones(2, np.complex64), jnp.ones(2, np.complex64)), TypeError, ["lt", "complex64"]),
    (lambda: lax.rem(jnp.ones(2, np.complex64), jnp.ones(2, np.complex64)), TypeError, ["rem", "complex64"]),
    (lambda: lax.complex(jnp.ones(2, np.float16), jnp.ones(2, np.float16)), TypeError, ["complex", "float16"]),
    (lambda: lax.abs(jnp.ones(2, np.uint8)), TypeError, ["abs", "uint8"]),
    (lambda: lax.neg(jnp.ones(2, bool)), TypeError, ["neg", "bool"]),
    (lambda: lax.reduce_and(f3, (0,)), TypeError, ["reduce_and", "float32"]),
    (lambda: lax.reduce_sum(jnp.ones(2, bool), (0,)), TypeError, ["reduce_sum", "bool"]),
    (lambda: lax.reduce_sum(f3, (1,)), ValueError, ["1", "out of bounds", "rank 1"]),
    (lambda: lax.transpose(M34, (0, 0)), TypeError, ["transpose", "(0, 0)", "f32[3,4]"]),
    (lambda: lax.transpose(M34, (0,)), TypeError, ["transpose", "(0,)", "f32[3,4]"]),
    (lambda: lax.slice(M34, (0, 0), (4, 4)), TypeError, ["slice", "dimension 0", "size 3", "f32[3,4]"]),
    (lambda: lax.slice(M34, (-1, 0), (2, 4)), TypeError, ["slice", "f32[3,4]"]),
    (lambda: lax.slice(M34, (2, 0), (1, 4)), TypeError, ["slice", "[2:1:1]"]),
    (lambda: lax.slice(M34, (0,), (2,)), ValueError, ["slice", "one entry per dimension", "f32[3,4]"]),
    (lambda: lax.reshape(M34, (5,)), TypeError, ["reshape", "f32[3,4]", "(5,)"]),
    (lambda: lax.broadcast_in_dim(f3, (4, 2), (1,)), TypeError, ["broadcast_in_dim", "f32[3]", "(4, 2)"]),
    (lambda: lax.broadcast_in_dim(f3, (4, 3), ()), TypeError, ["broadcast_in_dim", "f32[3]"]),
    (lambda: lax.broadcast_in_dim(jnp.ones((2, 3)), (2, 3), (0, 0)), TypeError, ["broadcast_in_dim", "duplicates", "f32[2,3]"]),
    (lambda: lax.pad(f3, 0., [(1, 1, -1)]), ValueError, ["pad", "interior"]),
    (lambda: lax.pad(f3, 0., [(1, 1, 0), (0, 0, 0)]), ValueError, ["pad", "f32[3]"]),
    (lambda: lax.pad(f3, jnp.int32(0), [(1, 1, 0)]), TypeError, ["pad", "f32[3]", "i32[]"]),
    (lambda: lax.pad(f3, 0., [(-3, -1, 0)]), ValueError, ["pad", "negative size"]),
    (lambda: lax.squeeze(f3, (0,)), ValueError, ["squeeze", "f32[3]", "size 3"]),
    (lambda: lax.squeeze(jnp.ones(1), (1,)), ValueError, ["1", "out of bounds"]),
    (lambda: lax.expand_dims(f3, (3,)), ValueError, ["3", "out of bounds"]),
    (lambda: lax.rev(f3, (1,)), TypeError, ["rev", "(1,)", "f32[3]"]),
    (lambda: lax.dynamic_slice(f3, (1,), (4,)), TypeError, ["dynamic_slice", "(4,)", "f32[3]"]),
    (lambda: lax.dynamic_slice(jnp.ones((3, 3)), (1,), (2,)), ValueError, ["dynamic_slice", "rank 2"]),
    (lambda: lax.dynamic_slice(f3, (jnp.float32(1),), (2,)), TypeError, ["dynamic_slice", "integer", "f32[]"]),
    (lambda: lax.dynamic_update_slice(f3, f4, (0,)), TypeError, ["dynamic_update_slice", "f32[4]", "f32[3]"]),
    (lambda: lax.dynamic_update_slice(f3, jnp.ones(2, np.int32), (0,)), TypeError,
     ["dynamic_update_slice", "same dtype"]),
    (lambda: lax.select_n(jnp.ones(3, bool), f3, f3, f3), TypeError, ["select_n", "bool", "3"]),
    (lambda: lax.select_n(jnp.ones(3, bool), f3, f4), TypeError, ["select_n", "f32[3]", "f32[4]"]),
    (lambda: lax.select_n(jnp.ones(2, bool), f3, f3), TypeError, ["select_n", "bool[2]"]),
    (lambda: lax.select_n(f3, f3, f3), TypeError, ["select_n", "f32[3]"]),
    (lambda: lax.select_n(jnp.ones(3, bool)), ValueError, ["select_n", "at least one"]),
    (lambda: lax.clamp(jnp.ones(2), f3, 2.), TypeError, ["clamp", "f32[2]", "f32[3]"]),
    (lambda: lax.integer_pow(jnp.ones(3, np.int32), -1), TypeError, ["integer_pow", "-1", "i32[3]"]),
    (lambda: lax.argmax(jnp.ones((0, 3)), 0, np.int32), ValueError, ["argmax", "empty", "f32[0,3]"]),
    (lambda: lax.argmax(f3, 1, np.int32), ValueError, ["1", "out of bounds"]),
    (lambda: lax.concatenate([M34, f3], 0), TypeError, ["concatenate", "f32[3,4]", "f32[3]"]),
    (lambda: lax.concatenate([M34, jnp.ones((3, 5))], 0), TypeError, ["concatenate", "f32[3,4]", "f32[3,5]"]),
    (lambda: lax.concatenate([M34, M34], 2), TypeError, ["concatenate", "dimension 2", "f32[3,4]"]),
    (lambda: lax.concatenate([M34, jnp.ones((3, 4), np.int32)], 0), TypeError, ["concatenate", "same dtype"]),
    (lambda: lax.convert_element_type(f3, "foo"), TypeError, ["foo"]),
    (lambda: lax.convert_element_type(f3, np.str_), TypeError, ["not a valid JAX dtype"]),
    (lambda: lax.bitcast_convert_type(jnp.ones(3, np.uint8), np.float32), ValueError,
     ["bitcast_convert_type", "u8[3]", "float32"]),
    (lambda: lax.iota(np.int32, -1), TypeError, ["non-negative", "(-1,)"]),
    (lambda: lax.broadcasted_iota(np.int32, (2, 3), 2), ValueError, ["2", "out of bounds"]),
    (lambda: lax.reshape(M34, (2, 1.5)), TypeError, ["new_sizes", "integers"]),
]))
def test_lax_errors(thunk, exc, fragments):
    with raises(exc, *fragments):
        thunk()


def test_lax_errors_are_raised_at_trace_time():
    """The abstract evaluation raises: the same error under jit and make_jaxpr, before XLA."""
    with raises(TypeError, "add", "f32[3]", "f32[4]"):
        pyjax.jit(lax.add)(f3, f4)
    with raises(TypeError, "dot_general", "contracting"):
        pyjax.make_jaxpr(lambda a, b: lax.dot_general(a, b, DOT))(M34, jnp.ones((5, 2)))


# -- jnp ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("thunk,exc,fragments", _cases([
    (lambda: jnp.reshape(M34, (5,)), TypeError, ["reshape", "12", "(5,)"]),
    (lambda: jnp.reshape(M34, (-1, -1)), TypeError, ["reshape", "(-1, -1)"]),
    (lambda: jnp.reshape(M34, (5, -1)), TypeError, ["reshape", "12", "(5, -1)"]),
    (lambda: jnp.sum(M34, axis=5), ValueError, ["5", "out of bounds", "rank 2"]),
    (lambda: jnp.sum(M34, axis=(0, 0)), ValueError, ["duplicate value in 'axis'", "(0, 0)"]),
    (lambda: jnp.mean(f3, axis=-2), ValueError, ["-2", "out of bounds"]),
    (lambda: jnp.argmax(f3, axis=1), ValueError, ["1", "out of bounds"]),
    (lambda: jnp.cumsum(f3, axis=1), ValueError, ["1", "out of bounds"]),
    (lambda: jnp.swapaxes(f3, 0, 1), ValueError, ["1", "out of bounds"]),
    (lambda: jnp.moveaxis(f3, 1, 0), ValueError, ["1", "out of bounds"]),
    (lambda: jnp.expand_dims(f3, 3), ValueError, ["3", "out of bounds"]),
    (lambda: jnp.flip(f3, 1), ValueError, ["1", "out of bounds"]),
    (lambda: jnp.squeeze(jnp.ones((2, 1)), 0), ValueError, ["squeeze", "(2, 1)"]),
    (lambda: jnp.concatenate([M34, f3]), TypeError, ["concatenate", "(3, 4)", "(3,)"]),
    (lambda: jnp.concatenate([M34, jnp.ones((3, 5))]), TypeError, ["concatenate", "f32[3,4]", "f32[3,5]"]),
    (lambda: jnp.concatenate([jnp.ones(()), jnp.ones(())]), ValueError, ["Zero-dimensional"]),
    (lambda: jnp.concatenate([]), ValueError, ["at least one array"]),
    (lambda: jnp.stack([f3, f4]), ValueError, ["stack", "(3,)", "(4,)"]),
    (lambda: jnp.add(f3, f4), TypeError, ["add", "(3,)", "(4,)"]),
    (lambda: jnp.where(jnp.ones(2, bool), f3, f3), ValueError, ["(2,)", "(3,)"]),
    (lambda: jnp.matmul(M34, jnp.ones((5, 2))), TypeError, ["matmul", "(3, 4)", "(5, 2)"]),
    (lambda: jnp.matmul(jnp.ones(()), jnp.ones((5, 2))), ValueError, ["matmul", "at least 1 dimension"]),
    (lambda: jnp.dot(M34, jnp.ones((5, 2))), TypeError, ["dot_general", "f32[3,4]", "f32[5,2]"]),
    (lambda: jnp.tensordot(jnp.ones((2, 3)), jnp.ones((4, 2)), 1), TypeError, ["dot_general", "contracting"]),
    (lambda: jnp.einsum("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((4, 2))), ValueError, ["'j'"]),
    (lambda: jnp.einsum("ij->k", jnp.ones((2, 3))), ValueError, ["'k'"]),
    (lambda: jnp.einsum("ij,ik,il->jkl", M34, M34, M34, optimize=[(0, 1, 2)]), NotImplementedError,
     ["simultaneous contraction of 3 or more operands"]),
    (lambda: jnp.split(jnp.arange(5), 2), ValueError, ["equal division"]),
    (lambda: jnp.transpose(jnp.ones((2, 3)), (0, 0)), TypeError, ["transpose", "(0, 0)"]),
    (lambda: jnp.transpose(jnp.ones((2, 3)), (0,)), TypeError, ["transpose", "(0,)"]),
    (lambda: jnp.repeat(f3, [1, 2]), ValueError, ["repeat", "(2,)", "3"]),
    (lambda: jnp.broadcast_to(f3, (4,)), ValueError, ["(3,)", "(4,)"]),
    (lambda: jnp.broadcast_shapes((3,), (4,)), ValueError, ["(3,)", "(4,)"]),
    (lambda: jnp.full((2, 2), jnp.ones(3)), ValueError, ["(3,)", "(2, 2)"]),
    (lambda: jnp.zeros((-1, 2)), TypeError, ["non-negative", "(-1, 2)"]),  # as JAX
    (lambda: jnp.zeros((1.5, 2)), TypeError, ["shape", "integers"]),
    (lambda: jnp.eye(-1), ValueError, ["negative"]),
    (lambda: jnp.linspace(0, 1, -1), ValueError, ["linspace", "-1"]),
    (lambda: jnp.pad(jnp.arange(3), -1), ValueError, ["pad", "negative"]),
    (lambda: jnp.array(["a"]), TypeError, ["not a valid JAX dtype"]),
    (lambda: jnp.array([[1, 2], [3]]), ValueError, ["sequence"]),
    (lambda: jnp.ones(2).astype("foo"), TypeError, ["foo"]),
    (lambda: jnp.sum(f3, dtype="foo"), TypeError, ["foo"]),
    (lambda: jnp.sum([1, 2]), TypeError, ["sum", "list", "jnp.array"]),
    (lambda: jnp.add([1, 2], 1), TypeError, ["add", "list"]),
    (lambda: jnp.invert(f3), TypeError, ["invert", "float32"]),
    (lambda: jnp.bitwise_and(f3, f3), TypeError, ["and", "float32"]),
    (lambda: jnp.floor_divide(jnp.ones(2, np.complex64), 1), TypeError, ["floor_divide", "complex"]),
    (lambda: jnp.negative(jnp.ones(2, bool)), TypeError, ["bool"]),
    (lambda: jnp.subtract(jnp.ones(2, bool), jnp.ones(2, bool)), TypeError, ["bool"]),
    (lambda: jnp.sign(jnp.ones(2, bool)), TypeError, ["sign", "bool"]),
    (lambda: jnp.round(jnp.ones(2, bool)), TypeError, ["round", "bool"]),
    (lambda: jnp.fabs(jnp.ones(2, np.complex64)), TypeError, ["fabs", "complex"]),
    (lambda: jnp.hypot(jnp.ones(2, np.complex64), 1), TypeError, ["hypot", "complex"]),
    (lambda: jnp.max(jnp.zeros((0,))), ValueError, ["max", "identity"]),
    (lambda: jnp.argmax(jnp.zeros((0,))), ValueError, ["argmax", "empty"]),
    (lambda: jnp.diagonal(f3), ValueError, ["diagonal", "two dimensions", "(3,)"]),
    (lambda: f3[1.5], TypeError, ["integer or boolean", "float"]),
    (lambda: f3[jnp.array(1.0)], TypeError, ["integer or boolean", "float32"]),
    (lambda: f3[..., ...], IndexError, ["single ellipsis"]),
    (lambda: f3[0, 0], IndexError, ["Too many indices", "1-dimensional"]),
    (lambda: jnp.zeros(0)[0], IndexError, ["out of bounds", "size 0"]),
    (lambda: M34[:, 4:][:, 0], IndexError, ["out of bounds", "axis 1"]),
]))
def test_jnp_errors(thunk, exc, fragments):
    with raises(exc, *fragments):
        thunk()


def test_every_accepted_dtype_is_swept():
    """Every lax elementwise primitive either accepts a dtype (and then runs) or raises
    TypeError; none reaches XLA with a dtype its lowering cannot take."""
    from op_table import ANY, LAX_OPS, lax_primitives
    ps = lax_primitives()
    tested = {}
    for o in LAX_OPS:
        if not o.arg_dtypes and o.nargs in (1, 2) and o.primitive == o.name:
            tested.setdefault(o.primitive, (o.nargs, set()))[1].update(o.dtypes)
    untested = []
    for name, (nargs, dts) in tested.items():
        for dt in ANY:
            try:
                ps[name].abstract_eval(*[ShapedArray((2,), dt)] * nargs)
            except TypeError:
                continue
            if dt not in dts:
                untested.append(f"{name}:{np.dtype(dt).name}")
    assert not untested, f"accepted by the abstract eval but not swept by the op table: {untested}"


# -- tracers used as concrete values -----------------------------------------------------------

def _branchy(x):
    if x > 0:  # the line the error must point at
        return x
    return -x


_BRANCH_LINE = _branchy.__code__.co_firstlineno + 1


def test_if_on_tracer():
    with pytest.raises(errors.TracerBoolConversionError) as info:
        pyjax.jit(_branchy)(1.0)
    msg = str(info.value)
    assert f"test_errors.py:{_BRANCH_LINE}" in msg
    assert "lax.cond" in msg and "static_argnums" in msg
    assert isinstance(info.value, errors.ConcretizationTypeError)
    assert isinstance(info.value, TypeError)


def test_if_on_tracer_under_make_jaxpr():
    with pytest.raises(errors.TracerBoolConversionError, match="lax.cond"):
        pyjax.make_jaxpr(_branchy)(1.0)


def test_while_on_tracer():
    def f(x):
        while x < 10:
            x = x * 2
        return x
    with pytest.raises(errors.TracerBoolConversionError, match="while_loop"):
        pyjax.jit(f)(1.0)


def test_static_argnums_avoids_the_error():
    assert float(pyjax.jit(_branchy, static_argnums=0)(-2.0)) == 2.0


def test_int_of_tracer():
    # JAX 0.10.2: int() raises ConcretizationTypeError; __index__ TracerIntegerConversionError
    with pytest.raises(errors.ConcretizationTypeError) as info:
        pyjax.jit(lambda x: int(x))(1.0)
    msg = str(info.value)
    assert "int()" in msg and "argument x" in msg and "test_errors.py" in msg
    assert "static_argnums" in msg


def test_tracer_as_index_or_shape():
    with pytest.raises(errors.TracerIntegerConversionError):
        pyjax.jit(lambda i: [1, 2, 3][i])(1)
    with pytest.raises(errors.TracerIntegerConversionError):
        pyjax.jit(lambda n: jnp.zeros(n))(3)
    with pytest.raises(errors.TracerIntegerConversionError):
        pyjax.jit(lambda n: jnp.ones((2, 3)).reshape(n, -1))(2)


def test_numpy_on_tracer():
    with pytest.raises(errors.TracerArrayConversionError) as info:
        pyjax.jit(lambda x: np.asarray(x))(1.0)
    assert "pyjax.numpy" in str(info.value) and "test_errors.py" in str(info.value)
    with pytest.raises(errors.TracerArrayConversionError):
        pyjax.jit(lambda x: np.sin(x))(jnp.ones(3))


@pytest.mark.parametrize("convert", [float, complex, lambda x: x.item(), lambda x: x.tolist()],
                         ids=["float", "complex", "item", "tolist"])
def test_other_concretizations(convert):
    with pytest.raises(errors.ConcretizationTypeError):
        pyjax.jit(convert)(1.0)


def test_concrete_value_needed():
    with pytest.raises(errors.ConcretizationTypeError, match="arange"):
        pyjax.jit(lambda n: jnp.arange(n))(3)
    with pytest.raises(IndexError, match="static"):
        pyjax.jit(lambda x, i: x[i:])(f3, 1)


def test_tracer_is_unhashable():
    with pytest.raises(TypeError, match="unhashable"):
        pyjax.jit(lambda x: hash(x))(1.0)


def test_leaked_tracer():
    leaked = []

    def f(x):
        leaked.append(x)
        return x * 2
    pyjax.jit(f)(1.0)
    with pytest.raises(errors.UnexpectedTracerError) as info:
        leaked[0] + 1
    assert "argument x" in str(info.value) and "escaped" in str(info.value)
    with pytest.raises(errors.UnexpectedTracerError):
        jnp.sin(leaked[0])
    with pytest.raises(errors.UnexpectedTracerError):
        pyjax.jit(lambda y: y + leaked[0])(1.0)


def test_errors_are_exported():
    for name in ("ConcretizationTypeError", "TracerBoolConversionError", "TracerArrayConversionError",
                 "TracerIntegerConversionError", "UnexpectedTracerError"):
        assert issubclass(getattr(errors, name), TypeError)


def test_jax_errors_end_with_their_error_page_link():
    """As JAX 0.10.2's (its errors_test testErrorsURL): each error of jax.errors, even built from
    a tracer of no trace, ends with its entry on JAX's error page."""
    class FakeTracer:  # like a tracer of no trace: no aval, no printable value
        def __init__(self, trace):
            self._trace = trace

        aval = property(lambda self: 1 / 0)
        __repr__ = __str__ = lambda self: 1 / 0
    for name in ("ConcretizationTypeError", "KeyReuseError", "NonConcreteBooleanIndexError",
                 "TracerArrayConversionError", "TracerBoolConversionError",
                 "TracerIntegerConversionError", "UnexpectedTracerError"):
        err = getattr(errors, name)(FakeTracer(None))
        assert str(err).endswith(f"\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.{name}")
    with pytest.raises(errors.TracerBoolConversionError,
                       match=r"\nSee https://docs\.jax\.dev/en/latest/errors\.html#jax\.errors\.TracerBool"):
        pyjax.jit(lambda x: int(x) if x > 0 else x)(1.0)


def test_transformation_argument_errors_say_jax_words():
    """Texts recorded from JAX 0.10.2 (its api_test matches them)."""
    with pytest.raises(TypeError, match=re.escape("Expected a callable value, got 3")):
        pyjax.jit(3)
    with pytest.raises(TypeError, match=re.escape(
            "jacrev with holomorphic=True requires inputs with complex dtype, but got float32.")):
        pyjax.jacrev(lambda x: x ** 2, holomorphic=True)(3.0)
    with pytest.raises(ValueError, match=re.escape(
            "vmap wrapped function must be passed at least one argument containing an array or "
            "axis_size must be specified, got empty *args=({},) and **kwargs={}")):
        pyjax.vmap(lambda x: x)({})

    def superfun(a):
        """Does things with stuff."""
    assert pyjax.vmap(superfun).__doc__ == (
        "Vectorized version of superfun. Takes similar arguments as superfun but with additional "
        "array axes over which superfun is mapped.\n\nOriginal documentation:\n\nDoes things with "
        "stuff.")
