"""jax.ffi: C++ handlers compiled at test time against the XLA FFI headers jaxlib ships
(tests/data/ffi_kernels.cc), registered with XLA and called eagerly, under jit and vmap, against
NumPy. The module text tests (attribute encoding, layouts, aliases) need no compiler."""
import ctypes
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import ffi
from pyjax.test_util import check_grads

KERNELS = os.path.join(os.path.dirname(__file__), "data", "ffi_kernels.cc")
TARGETS = ("RmsNorm", "SumDiff", "EchoAttrs", "MaybeFail", "Accumulate")


def _compiler():
    return (shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
            or shutil.which("clang++"))


@pytest.fixture(scope="session")
def lib(tmp_path_factory):
    """The kernels built once per session (a few seconds at -O1) and registered as
    `test_ffi_<Name>`."""
    cxx = _compiler()
    if cxx is None:
        pytest.skip("no C++ compiler (g++/c++/clang++) on PATH to build the FFI test kernels")
    if not os.path.exists(os.path.join(ffi.include_dir(), "xla", "ffi", "api", "ffi.h")):
        pytest.skip(f"jaxlib ships no XLA FFI headers under {ffi.include_dir()}")
    out = str(tmp_path_factory.mktemp("ffi") / "libffi_kernels.so")
    cmd = [cxx, "-std=c++17", "-O1", "-w", "-shared", "-fPIC", f"-I{ffi.include_dir()}", KERNELS,
           "-o", out]
    try:
        subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.skip("building the FFI test kernels took over 180 s")
    except subprocess.CalledProcessError as e:
        pytest.fail(f"building the FFI test kernels failed:\n{e.stderr[-3000:]}")
    lib = ctypes.cdll.LoadLibrary(out)
    for name in TARGETS:
        ffi.register_ffi_target(f"test_ffi_{name}", ffi.pycapsule(getattr(lib, name)),
                                platform="cpu")
    return lib


def _rms_ref(x, eps=1e-5, axis=-1):
    x = np.asarray(x, np.float32)
    return x / np.sqrt((x * x).mean(axis, keepdims=True) + np.float32(eps))


def rms_norm(x, eps=1e-5, vmap_method=None):
    call = ffi.ffi_call("test_ffi_RmsNorm", jax.ShapeDtypeStruct(x.shape, x.dtype),
                        vmap_method=vmap_method)
    return call(x, eps=np.float32(eps))


X = np.random.RandomState(0).randn(3, 5).astype(np.float32)


# -- the public surface, no compiler needed ------------------------------------------------------


def test_public_names_match_jax():
    assert {n for n in dir(ffi) if not n.startswith("_")} == {
        "build_ffi_lowering_function", "ffi_call", "ffi_lowering", "include_dir", "pycapsule",
        "register_ffi_target", "register_ffi_target_as_batch_partitionable", "register_ffi_type",
        "register_ffi_type_id"}
    assert jax.ffi is ffi


def test_include_dir_holds_the_ffi_headers():
    for h in ("ffi.h", "api.h", "c_api.h"):
        assert os.path.exists(os.path.join(ffi.include_dir(), "xla", "ffi", "api", h)), h


def test_attributes_are_encoded_as_jax_encodes_them():
    f = ffi.ffi_call("not_registered", jax.ShapeDtypeStruct((3, 4), jnp.float32))
    text = jax.jit(lambda x: f(x, eps=np.float32(1e-5), i=np.int32(3), u=np.uint8(7), n=2,
                               f=1.5, b=True, s='he said "hi"', arr=np.array([1, 2, 3], np.int32),
                               d={"k": np.float32(1.0)}, dt=np.dtype(np.float32))
                   ).lower(X[:3, :4]).as_text()
    cfg = text.split("mhlo.backend_config = ")[1].split("}, operand_layouts")[0]
    # (as JAX prints them: as_text gives MLIR's custom form of the module)
    for piece in ["eps = 9.99999974E-6 : f32", "i = 3 : i32", "u = 7 : ui8", "n = 2 : i64",
                  "f = 1.500000e+00 : f64", "b = true", r's = "he said \22hi\22"',
                  'arr = dense<[1, 2, 3]> : tensor<3xi32>',
                  "d = {k = 1.000000e+00 : f32}", "dt = f32"]:
        assert piece in cfg, piece
    assert "stablehlo.custom_call @not_registered(" in text  # (api_version 1: not printed)
    assert "operand_layouts = [dense<[1, 0]> : tensor<2xindex>]" in text


def test_unregistered_target_fails_when_compiled():
    f = ffi.ffi_call("no_such_ffi_target", jax.ShapeDtypeStruct((2,), jnp.float32))
    with pytest.raises(RuntimeError, match="No FFI handler registered for no_such_ffi_target"):
        jax.jit(f)(np.ones(2, np.float32))
    with pytest.raises(RuntimeError, match="No FFI handler registered"):
        f(np.ones(2, np.float32))


def test_bad_arguments_raise_as_jax():
    with pytest.raises(ValueError, match="vmap_method must be"):
        ffi.ffi_call("t", jax.ShapeDtypeStruct((2,), jnp.float32), vmap_method="loop")
    with pytest.raises(ValueError, match="must have 'shape' and 'dtype'.*position 1"):
        ffi.ffi_call("t", [jax.ShapeDtypeStruct((2,), jnp.float32), (2,)])
    with pytest.raises(ValueError, match="legacy_backend_config.*< 4"):
        ffi.ffi_call("t", jax.ShapeDtypeStruct((2,), jnp.float32), legacy_backend_config="x")
    f = ffi.ffi_call("t", jax.ShapeDtypeStruct((2,), jnp.float32), input_output_aliases={1: 0})
    with pytest.raises(ValueError, match="input index 1 outside the range"):
        f(np.ones(2, np.float32))
    f = ffi.ffi_call("t", jax.ShapeDtypeStruct((2,), jnp.float32), input_output_aliases={0: 0})
    with pytest.raises(ValueError, match="different abstract value f32\\[2\\]"):
        f(np.ones(3, np.float32))
    f = ffi.ffi_call("t", jax.ShapeDtypeStruct((2,), jnp.float32), input_layouts=[None, None])
    with pytest.raises(ValueError, match="number of input arguments \\(1\\) must equal"):
        f(np.ones(2, np.float32))
    f = ffi.ffi_call("t", jax.ShapeDtypeStruct((2,), jnp.float32))
    with pytest.raises(TypeError, match="Non-hashable keyword argument to ffi_call cfg"):
        f(np.ones(2, np.float32), cfg={1, 2})
    with pytest.raises(ValueError, match="register_ffi_type_id is not supported"):
        ffi.register_ffi_type_id("t", None)


def test_not_differentiable_and_not_vmappable_without_a_method():
    f = ffi.ffi_call("t", jax.ShapeDtypeStruct((2,), jnp.float32))
    with pytest.raises(ValueError, match="FFI call to `t` cannot be differentiated"):
        jax.grad(lambda x: f(x).sum())(np.ones(2, np.float32))
    with pytest.raises(NotImplementedError, match="vmap_method=None"):
        jax.vmap(f)(np.ones((3, 2), np.float32))


# -- calling compiled handlers -------------------------------------------------------------------


def test_rms_norm_eager_and_jit_match_numpy(lib):
    np.testing.assert_allclose(rms_norm(X), _rms_ref(X), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(jax.jit(rms_norm)(X), _rms_ref(X), rtol=1e-6, atol=1e-6)
    y = jax.jit(lambda x: rms_norm(x * 2, eps=0.5) + 1)(X)
    np.testing.assert_allclose(y, _rms_ref(X * 2, 0.5) + 1, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all", "legacy_vectorized"])
def test_vmap_methods_match_a_loop(lib, method):
    xs = np.random.RandomState(1).randn(4, 3, 5).astype(np.float32)
    f = lambda x: rms_norm(x, vmap_method=method)
    np.testing.assert_allclose(jax.vmap(f)(xs), _rms_ref(xs), rtol=1e-6, atol=1e-6)
    # batch axis in the middle, under jit
    out = jax.jit(jax.vmap(f, in_axes=1, out_axes=1))(xs)
    np.testing.assert_allclose(out, np.stack([_rms_ref(xs[:, i]) for i in range(3)], 1),
                               rtol=1e-6, atol=1e-6)
    # nested vmap
    np.testing.assert_allclose(jax.vmap(jax.vmap(f))(xs), _rms_ref(xs), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("method", ["sequential", "broadcast_all"])
def test_two_inputs_two_results_one_input_batched(lib, method):
    a = np.random.RandomState(2).randn(4, 6).astype(np.float32)
    b = np.arange(6, dtype=np.float32)
    sd = jax.ShapeDtypeStruct((6,), jnp.float32)
    f = ffi.ffi_call("test_ffi_SumDiff", (sd, sd), vmap_method=method)
    s, d = f(a[0], b)
    np.testing.assert_allclose(s, a[0] + b)
    np.testing.assert_allclose(d, a[0] - b)
    assert type(f(a[0], b)) is tuple
    assert type(ffi.ffi_call("test_ffi_SumDiff", [sd, sd])(a[0], b)) is list
    s, d = jax.jit(jax.vmap(f, in_axes=(0, None)))(a, b)
    np.testing.assert_allclose(s, a + b)
    np.testing.assert_allclose(d, a - b)


def test_expand_dims_gives_unbatched_inputs_a_unit_axis(lib):
    """expand_dims hands the handler an unbatched input with a leading axis of size 1 (the
    handler must broadcast): SumDiff sees operands of different sizes and says so."""
    sd = jax.ShapeDtypeStruct((6,), jnp.float32)
    f = ffi.ffi_call("test_ffi_SumDiff", (sd, sd), vmap_method="expand_dims")
    jaxpr = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(np.ones((4, 6), np.float32),
                                                         np.ones(6, np.float32))
    assert "f32[1,6]" in str(jaxpr)
    with pytest.raises(RuntimeError, match="SumDiff: operands differ in size"):
        jax.vmap(f, in_axes=(0, None))(np.ones((4, 6), np.float32), np.ones(6, np.float32))


def test_an_attribute_of_each_type(lib):
    f = ffi.ffi_call("test_ffi_EchoAttrs", jax.ShapeDtypeStruct((10,), jnp.float32))
    attrs = dict(i32=np.int32(-3), i64=7, u8=np.uint8(200), f32=np.float32(1.5), f64=2.25,
                 flag=True, name="hello", ints=np.array([1, 2, 30], np.int32),
                 floats=np.array([0.5, 0.25], np.float32))
    want = [-3, 7, 200, 1.5, 2.25, 1, 5, 33, 3, 0.75]
    np.testing.assert_array_equal(f(**attrs), np.float32(want))
    np.testing.assert_array_equal(jax.jit(lambda: f(**attrs))(), np.float32(want))
    out = np.asarray(f(**dict(attrs, flag=False, name="", i64=-(2 ** 40))))
    np.testing.assert_array_equal(out[[1, 5, 6]], np.float32([-(2 ** 40), 0, 0]))


def test_wrong_attribute_or_buffer_type_is_a_runtime_error(lib):
    f = ffi.ffi_call("test_ffi_RmsNorm", jax.ShapeDtypeStruct((3, 5), jnp.float32))
    with pytest.raises(RuntimeError):   # eps must be f32, a Python float is f64 (as in JAX)
        f(X, eps=1e-5)
    with pytest.raises(RuntimeError):   # the handler binds Buffer<F32>
        f(X.astype(np.int32), eps=np.float32(1e-5))
    with pytest.raises(RuntimeError):   # missing attribute
        f(X)


def test_handler_errors_reach_python(lib):
    f = ffi.ffi_call("test_ffi_MaybeFail", jax.ShapeDtypeStruct((3, 5), jnp.float32))
    np.testing.assert_array_equal(f(X, fail=False), X)
    with pytest.raises(RuntimeError, match="MaybeFail: asked to fail"):
        jax.jit(lambda x: f(x, fail=True))(X)


def test_column_major_layouts_reach_the_handler(lib):
    """With a column-major input/output the handler sees the same dims over column-major
    memory, so its "rows of the last axis" are runs of that memory (the same as JAX gives)."""
    f = ffi.ffi_call("test_ffi_RmsNorm", jax.ShapeDtypeStruct(X.shape, X.dtype),
                     input_layouts=[(1, 0)], output_layouts=(1, 0))
    mem = X.T.ravel().reshape(X.shape)            # the handler's view of the input
    want = _rms_ref(mem).ravel().reshape(X.shape[::-1]).T
    y = jax.jit(lambda x: f(x, eps=np.float32(1e-5)))(X)
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(f(X, eps=np.float32(1e-5)), want, rtol=1e-6, atol=1e-6)


def test_input_output_aliases(lib):
    f = ffi.ffi_call("test_ffi_RmsNorm", jax.ShapeDtypeStruct(X.shape, X.dtype),
                     input_output_aliases={0: 0})
    g = jax.jit(lambda x: f(x * 1, eps=np.float32(1e-5)))
    assert "output_operand_aliases = [#stablehlo.output_operand_alias<" in g.lower(X).as_text()
    np.testing.assert_allclose(g(X), _rms_ref(X), rtol=1e-6, atol=1e-6)


def test_side_effects_survive_dead_code_elimination(lib):
    total = jax.ShapeDtypeStruct((1,), jnp.float32)
    acc = ffi.ffi_call("test_ffi_Accumulate", total, has_side_effect=True)
    pure = ffi.ffi_call("test_ffi_Accumulate", total)

    def f(x):
        acc(x)          # result unused: kept, it has a side effect
        pure(x)         # result unused and pure: dropped
        return x + 1
    lib.ResetAccumulator()
    jf = jax.jit(f)
    jf(np.ones(3, np.float32))
    jf(np.ones(3, np.float32))
    assert "has_side_effect = true" in jf.lower(np.ones(3, np.float32)).as_text()
    np.testing.assert_array_equal(acc(np.zeros(1, np.float32)), [6.0])


def test_differentiable_through_custom_vjp(lib):
    def rms_jnp(x):
        return x / jnp.sqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-5)

    @jax.custom_vjp
    def f(x):
        return rms_norm(x)

    def fwd(x):
        return rms_norm(x), x

    def bwd(x, g):
        return jax.vjp(rms_jnp, x)[1](g)
    f.defvjp(fwd, bwd)
    x = X.astype(np.float32)
    np.testing.assert_allclose(jax.grad(lambda x: (f(x) ** 3).sum())(x),
                               jax.grad(lambda x: (rms_jnp(x) ** 3).sum())(x), rtol=1e-5, atol=1e-5)
    check_grads(f, (x,), order=1, modes=["rev"], atol=2e-2, rtol=2e-2)


def test_ffi_lowering_of_a_users_own_primitive(lib):
    from pyjax._jax_compat.interpreters import mlir
    from pyjax._src import core
    p = core.Primitive("my_rms_norm")
    p.def_abstract_eval(lambda x, **params: x)
    mlir.register_lowering(p, ffi.ffi_lowering("test_ffi_RmsNorm"))
    y = jax.jit(lambda x: p.bind(x, eps=np.float32(0.25)))(X)
    np.testing.assert_allclose(y, _rms_ref(X, 0.25), rtol=1e-6, atol=1e-6)


SHARDED = """
import ctypes, sys
import numpy as np
import pyjax as jax
from pyjax.sharding import NamedSharding, PartitionSpec as P
lib = ctypes.cdll.LoadLibrary(sys.argv[1])
jax.ffi.register_ffi_target("rms", jax.ffi.pycapsule(lib.RmsNorm))
jax.ffi.register_ffi_target_as_batch_partitionable("rms")
mesh = jax.make_mesh((8,), ("x",))
x = np.random.RandomState(0).randn(16, 5).astype(np.float32)
xs = jax.device_put(x, NamedSharding(mesh, P("x")))
call = jax.ffi.ffi_call("rms", jax.ShapeDtypeStruct(x.shape, x.dtype))
y = jax.jit(lambda x: call(x, eps=np.float32(1e-5)))(xs)
ref = x / np.sqrt((x * x).mean(-1, keepdims=True) + np.float32(1e-5))
print(float(np.abs(np.asarray(y) - ref).max()))
"""


def test_sharded_input_over_eight_devices(lib):
    """A handler called under jit on an array split over 8 devices: XLA's partitioner gathers
    the operand for the custom call (as with JAX), and the values are right."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", SHARDED, lib._name], capture_output=True,
                         text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert float(res.stdout.strip().splitlines()[-1]) < 1e-6
