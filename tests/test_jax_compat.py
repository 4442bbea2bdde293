"""The compatibility modules (`pyjax._jax_compat`, issue 13 part 2): what `jax.core`,
`jax.extend`, `jax.interpreters.*`, `jax.api_util`... give a library under the switch.

The heart of it: a primitive defined the way equinox defines its own (jax.extend.core.Primitive,
rules assigned into ad.primitive_jvps / primitive_transposes / batching.primitive_batchers /
axis_primitive_batchers and mlir.register_lowering(lower_fun(...))) works eagerly, under jit,
grad and vmap, because the tables are views of the rules stored on pyjax's primitive."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._jax_compat import api_util, core as jcore
from pyjax._jax_compat.extend import core as ecore
from pyjax._jax_compat.extend import linear_util as lu
from pyjax._jax_compat.interpreters import ad, batching, mlir
from pyjax._jax_compat.interpreters import partial_eval as pe
from pyjax._src import core

ROOT = Path(__file__).resolve().parent.parent

# -- a primitive registered through JAX's tables ------------------------------------------------

sin2_p = ecore.Primitive("compat_sin2")          # sin(2x), with every rule set the JAX way
sin2_p.def_impl(lambda x: jnp.sin(2 * x))
sin2_p.def_abstract_eval(lambda aval: jcore.ShapedArray(aval.shape, aval.dtype))
ad.primitive_jvps[sin2_p] = lambda primals, tangents: (
    sin2_p.bind(primals[0]), 2 * jnp.cos(2 * primals[0]) * tangents[0])
batching.primitive_batchers[sin2_p] = lambda args, dims: (sin2_p.bind(*args), dims[0])
mlir.register_lowering(sin2_p, mlir.lower_fun(lambda x: jnp.sin(2 * x), multiple_results=False))

triple_p = ecore.Primitive("compat_triple")      # 3x: linear, transposed through the table
triple_p.def_impl(lambda x: 3 * x)
triple_p.def_abstract_eval(lambda aval: aval)
ad.primitive_jvps[triple_p] = lambda primals, tangents: (
    triple_p.bind(*primals), triple_p.bind(ad.instantiate_zeros(tangents[0])))
ad.primitive_transposes[triple_p] = lambda ct, x: [None if type(ct) is ad.Zero else 3 * ct]
mlir.register_lowering(triple_p, mlir.lower_fun(lambda x: 3 * x, multiple_results=False))

# multiple results, with an axis batcher in JAX's 5-argument signature (equinox's vprims)
seen_axes = []


def _pair_batcher(axis_size, axis_name, trace_type, args, dims):
    seen_axes.append((axis_size, axis_name))
    (x,), (d,) = args, dims
    return pair_p.bind(x), [d, d]


pair_p = ecore.Primitive("compat_pair")
pair_p.multiple_results = True
pair_p.def_impl(lambda x: [x + 1, x * x])
pair_p.def_abstract_eval(lambda aval: [aval, aval])
batching.axis_primitive_batchers[pair_p] = _pair_batcher
mlir.register_lowering(pair_p, mlir.lower_fun(lambda x: [x + 1, x * x], multiple_results=True))

X = np.array([0.1, 0.5, -1.3], np.float32)


def test_the_tables_set_the_rules_on_the_primitive():
    assert sin2_p.jvp is ad.primitive_jvps[sin2_p]
    assert triple_p in ad.primitive_transposes and sin2_p not in ad.primitive_transposes
    assert batching.primitive_batchers[sin2_p] is not None
    assert batching.axis_primitive_batchers[pair_p] is _pair_batcher
    assert sin2_p in core.all_primitives()
    with pytest.raises(TypeError, match="keys are Primitives"):
        ad.primitive_jvps["sin"] = lambda p, t: None


def test_custom_primitive_eager_and_jit():
    np.testing.assert_allclose(sin2_p.bind(X), np.sin(2 * X), rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda x: sin2_p.bind(x))(X), np.sin(2 * X), rtol=1e-6)
    a, b = pyjax.jit(lambda x: pair_p.bind(x))(X)
    np.testing.assert_allclose(a, X + 1)
    np.testing.assert_allclose(b, X * X)
    assert "sin" in pyjax.jit(lambda x: sin2_p.bind(x)).lower(X).as_text()


def test_custom_primitive_grad():
    g = pyjax.grad(lambda x: jnp.sum(sin2_p.bind(triple_p.bind(x))))(X)
    np.testing.assert_allclose(g, 6 * np.cos(6 * X), rtol=1e-5)
    g_jit = pyjax.jit(pyjax.grad(lambda x: jnp.sum(sin2_p.bind(x))))(X)
    np.testing.assert_allclose(g_jit, 2 * np.cos(2 * X), rtol=1e-5)
    _, t = pyjax.jvp(lambda x: triple_p.bind(x), (X,), (np.ones_like(X),))
    np.testing.assert_allclose(t, 3 * np.ones_like(X))


def test_custom_primitive_vmap():
    xs = np.stack([X, 2 * X])
    np.testing.assert_allclose(pyjax.vmap(lambda x: sin2_p.bind(x))(xs), np.sin(2 * xs), rtol=1e-6)
    seen_axes.clear()
    a, b = pyjax.vmap(lambda x: pair_p.bind(x), axis_name="i")(xs)
    np.testing.assert_allclose(b, xs * xs)
    assert seen_axes == [(2, "i")]
    jitted = pyjax.jit(pyjax.vmap(lambda x: sin2_p.bind(x), in_axes=1))(xs.T)
    np.testing.assert_allclose(jitted, np.sin(2 * xs), rtol=1e-6)


# -- the other modules ---------------------------------------------------------------------------


def test_core_names_are_pyjax_objects():
    assert jcore.Tracer is core.Tracer and jcore.ShapedArray is core.ShapedArray
    assert isinstance(core.ShapedArray((2,), np.float32), jcore.AbstractValue)
    assert ecore.Jaxpr is core.Jaxpr and ecore.ClosedJaxpr is core.ClosedJaxpr
    seen = []
    pyjax.jit(lambda x: seen.append(isinstance(x, jcore.Tracer)) or x)(1.0)
    assert seen == [True]


def test_mapped_and_unmapped_aval():
    a = core.ShapedArray((3, 4), np.float32)
    assert ecore.mapped_aval(3, 0, a).shape == (4,)
    assert ecore.unmapped_aval(5, 1, a).shape == (3, 5, 4)
    assert ecore.mapped_aval(3, None, a) is a
    with pytest.raises(ValueError, match="no axis 1 of size 3"):
        ecore.mapped_aval(3, 1, a)


def test_opaque_trace_state_tells_traces_apart():
    outside = ecore.get_opaque_trace_state(convention="flax")
    assert outside == ecore.get_opaque_trace_state()
    inside = []
    pyjax.jit(lambda x: inside.append(ecore.get_opaque_trace_state()) or x)(1.0)
    assert inside[0] != outside


def test_flatten_fun_and_trace_to_jaxpr_nounits():
    f = lambda a, b: {"s": a["x"] + b, "k": 2.0 * a["y"]}  # noqa: E731
    args = ({"x": np.float32(1.0), "y": np.float32(4.0)}, np.float32(3.0))
    leaves, in_tree = pyjax.tree_util.tree_flatten(args)
    flat, out_tree = api_util.flatten_fun_nokwargs(lu.wrap_init(f), in_tree)
    # x and b unknown, y known: "k" depends on y only, so it is computed now (flax's lazy_init)
    pvals = [pe.PartialVal.unknown(core.ShapedArray((), np.float32)),
             pe.PartialVal.known(leaves[1]),
             pe.PartialVal.unknown(core.ShapedArray((), np.float32))]
    jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(flat, pvals)
    out = pyjax.tree_util.tree_unflatten(out_tree(), out_pvals)
    assert out["k"].is_known() and float(out["k"].const) == 8.0
    assert not out["s"].is_known() and out["s"].get_aval().shape == ()
    assert len(jaxpr.invars) == 2 and len(jaxpr.outvars) == 1
    assert float(core.eval_jaxpr(jaxpr, consts, 1.0, 3.0)[0]) == 4.0


def test_dce_jaxpr_drops_unused_inputs():
    closed = pyjax.make_jaxpr(lambda a, b: (a * 2.0, b + 1.0))(1.0, 2.0)
    jaxpr, used = pe.dce_jaxpr(closed.jaxpr, [True, False])
    assert used == [True, False] and len(jaxpr.invars) == 1 and len(jaxpr.eqns) == 1


def test_unsupported_names_fail_when_used_not_imported():
    with pytest.raises(NotImplementedError, match="ir_constant is not implemented by pyjax"):
        mlir.ir_constant(1)


# -- the switch: the names a library reaches, in a fresh process ---------------------------------

_SWITCH_CHILD = r"""
import json, pyjax
pyjax.as_jax()
import jax
# attributes after a bare `import jax`, as libraries use them
out = {"core": jax.core.Tracer is pyjax._src.core.Tracer,
       "typing": jax.typing.ArrayLike is pyjax.typing.ArrayLike,
       "version": jax.version.__version_info__ == (0, 10, 2),
       "stages": jax.stages.Lowered is pyjax._src.pjit.Lowered}
from jax import core                                  # from-imports of shims
from jax.experimental import checkify
from jax._src import traceback_util, compiler
import jax._src.traceback_util as tb2                 # the `import a.b.c as d` form
from jax._src.dtypes import TypePromotionError
import jax.extend.core, jax.interpreters.ad as ad, jax.interpreters.batching as batching
from jax.extend import linear_util as lu
from jax.interpreters import partial_eval as pe
out["tb"] = tb2 is traceback_util
out["own_modules_kept"] = (jax._src.dtypes is pyjax._src.dtypes
                           and jax._src.core is pyjax._src.core)
out["jvps"] = ad.primitive_jvps is pyjax._src.interpreters.ad.primitive_jvps
out["pmap_applies"] = callable(jax.pmap(lambda x: x)) and jax.pmap is pyjax.pmap
try:
    jax.pmap(lambda x: x)(1.0)  # a scalar has no axis to map (ValueError, as in JAX)
except ValueError as e:
    out["pmap_error"] = str(e)
print(json.dumps(out))
"""


def test_switch_exposes_the_compat_modules():
    proc = subprocess.run([sys.executable, "-c", _SWITCH_CHILD], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "rank 0" in out.pop("pmap_error")
    assert all(out.values()), out


def test_registered_library_files_are_skipped_for_the_user_frame():
    from pyjax._jax_compat.internal import traceback_util
    from pyjax._src.source_info import user_frame
    ns = {"user_frame": user_frame}
    exec(compile("def lib_call():\n    return user_frame()\n", "/fake/lib/mod.py", "exec"), ns)
    assert ns["lib_call"]().f_code.co_filename == "/fake/lib/mod.py"
    traceback_util.register_exclusion("/fake/lib/mod.py")
    assert ns["lib_call"]().f_code.co_filename == __file__


def test_typing_aliases():
    import typing
    args = typing.get_args(pyjax.typing.ArrayLike)
    assert pyjax.Array in args and np.ndarray in args and float in args
    assert np.dtype in typing.get_args(pyjax.typing.DTypeLike)


@pytest.mark.parametrize("name", ["float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz",
                                  "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
                                  "float4_e2m1fn", "int2", "uint2"])
def test_narrow_scalar_types(name):
    # flax's fp8 module names these at import; ml_dtypes is the oracle
    import ml_dtypes
    t = getattr(jnp, name)
    assert np.dtype(t) == np.dtype(getattr(ml_dtypes, name))
    assert jnp.zeros(3, t).dtype == np.dtype(getattr(ml_dtypes, name))
    assert t(1).dtype == np.dtype(getattr(ml_dtypes, name))


def test_switch_stubs_what_pyjax_lacks_and_keeps_what_it_has():
    code = ("import pyjax; pyjax.as_jax(); import jax, jax.sharding as s\n"
            "print(s.get_abstract_mesh().empty, s.SingleDeviceSharding is "
            "pyjax._src.sharding.SingleDeviceSharding, s.Mesh is pyjax._src.mesh.Mesh)\n"
            "import jax.experimental as e\n"
            "try:\n    e.primal_tangent_dtype(1, 2)\nexcept NotImplementedError:\n"
            "    print('raised')")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["True", "True", "True", "raised"]


def test_switch_gives_jax_src_lax_linalg_the_structured_functions():
    """Issue 23 (JAX's linalg_test testOrmqr): jax._src.lax.linalg.ormqr is pyjax's
    (linalg_structured's, reached through the switch's stubs), and it multiplies by Q."""
    code = ("import pyjax; pyjax.as_jax(); import numpy as np\n"
            "from jax._src.lax import linalg as lax_linalg\n"
            "from pyjax._src.lax import linalg_structured\n"
            "a = np.random.RandomState(0).randn(4, 3).astype(np.float32)\n"
            "qr, taus = lax_linalg.geqrf(a)\n"
            "q = np.linalg.qr(a, mode='complete')[0]\n"
            "c = np.eye(4, dtype=np.float32)\n"
            "out = np.asarray(lax_linalg.ormqr(qr, taus, c, left=True, transpose=True))\n"
            "print(lax_linalg.ormqr is linalg_structured.ormqr, np.allclose(np.abs(out @ q), np.eye(4), atol=1e-5))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["True", "True"]


def test_tree_registry_view():
    from pyjax._src.tree_util import _registry
    assert tuple in _registry and dict in _registry and type(None) in _registry
    assert int not in _registry and np.ndarray not in _registry
    with pytest.raises(KeyError):
        _registry[int]

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b
    assert Pair not in _registry
    pyjax.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
                                         lambda _, ab: Pair(*ab))
    assert Pair in _registry and Pair in list(_registry) and len(_registry) == len(list(_registry))


def test_typed_keys_are_arrays():
    # as in JAX: isinstance(jax.random.key(0), jax.Array) is True (flax.nnx.Rngs checks it)
    assert isinstance(pyjax.random.key(0), pyjax.Array)
    assert not isinstance(np.zeros(2), pyjax.Array)


def test_library_effects_and_hijax_names():
    from pyjax._jax_compat.experimental import hijax

    class MyEffect(ecore.Effect):
        pass
    eff = MyEffect()                       # JAX's idiom: no arguments
    assert isinstance(eff, core.Effect) and repr(eff) == "MyEffect" and not eff.ordered
    hijax.control_flow_allowed_effects.add_type(MyEffect)
    assert hijax.control_flow_allowed_effects.contains(eff)

    class NewThing(hijax.HiPrimitive):
        pass
    with pytest.raises(NotImplementedError, match="new_thing: pyjax has no high-level"):
        NewThing("new_thing").bind(1.0)


# -- every name of JAX's modules is there, or listed here with the reason it is not ----------------

_MLIR_BINDINGS = "needs MLIR's Python bindings (pyjax emits StableHLO text)"
NOT_PROVIDED = {
    "jax.extend.core": {
        "InconclusiveDimensionOperation": "no symbolic shapes"},
    "jax.extend.backend": dict.fromkeys(
        ["backend_xla_version", "clear_backends", "get_compile_options", "ifrt_proxy",
         "register_backend_cache", "register_backend_factory"],
        "pyjax's clients are created by its backend module only"),
    "jax.interpreters.ad": dict.fromkeys(["jvp", "linearize"],
                                         "JAX's generator transformations of WrappedFuns"),
    "jax.interpreters.batching": dict.fromkeys(["defreducer"], "not in pyjax yet"),
    "jax.interpreters.partial_eval": dict.fromkeys(
        ["custom_partial_eval_rules", "dce_jaxpr_call_rule", "dce_jaxpr_closed_call_rule",
         "dce_jaxpr_consts", "dce_rules", "partial_eval_jaxpr_custom_rules"],
        "pyjax's partial-eval and DCE rules have their own signatures (Primitive.partial_eval/dce)"),
    "jax.api_util": dict.fromkeys(["argnums_partial", "donation_vector",
                                   "rebase_donate_argnums"], "not in pyjax yet"),
    "jax.interpreters.mlir": dict.fromkeys(
        ["AxisContext", "ConstantHandler", "DEVICE_TO_DEVICE_TYPE", "LoweringParameters",
         "LoweringResult", "LoweringRule", "Mesh", "MeshAxisName", "RECV_FROM_HOST_TYPE",
         "SEND_TO_HOST_TYPE", "SPMDAxisContext", "ShapePolyLoweringState", "ShardingContext",
         "Token", "TokenSet", "Value", "aval_to_ir_types", "core_call_lowering",
         "dense_int_array", "dense_int_elements", "dtype_to_ir_type", "flatten_ir_types",
         "flatten_ir_values", "i32_attr", "i64_attr", "ir", "ir_attribute", "ir_constants",
         "ir_tree_registry", "ir_type_handlers", "jaxpr_subcomp", "lower_jaxpr_to_fun",
         "lower_jaxpr_to_module", "lowerable_effects", "make_ir_context", "merge_mlir_modules",
         "module_to_bytecode", "module_to_string", "register_constant_handler", "shape_tensor",
         "token_type", "unflatten_ir_values_like_types"], _MLIR_BINDINGS),
}

_NAMES = json.loads((ROOT / "tests" / "data" / "jax_compat_names.json").read_text())["modules"]


@pytest.mark.parametrize("jax_module", sorted(_NAMES))
def test_jax_module_names(jax_module):
    import importlib
    from pyjax import jax_alias
    module = importlib.import_module(jax_alias._target(jax_module))  # what `import jax.X` gives
    missing = {n for n in _NAMES[jax_module] if not hasattr(module, n)}
    assert missing == set(NOT_PROVIDED.get(jax_module, {})), jax_module


def test_small_extend_core_helpers():
    a = core.ShapedArray((2,), np.float32)
    v = ecore.gensym()(a)
    eqn = ecore.new_jaxpr_eqn([v], [ecore.gensym()(a)], triple_p, {}, frozenset())
    assert eqn.primitive is triple_p and eqn.invars == [v]
    assert not ecore.unsafe_am_i_under_a_jit_DO_NOT_USE()
    inside = []
    pyjax.jit(lambda x: inside.append(ecore.unsafe_am_i_under_a_jit_DO_NOT_USE()) or x)(1.0)
    pyjax.vmap(lambda x: inside.append(ecore.unsafe_get_axis_names_DO_NOT_USE()) or x,
               axis_name="b")(np.ones(2))
    assert inside == [True, ["b"]]


def test_fancy_primitive_batchers_take_pyjax_axis_data():
    seen = []
    p = ecore.Primitive("compat_fancy_id")
    p.def_impl(lambda x: x)
    p.def_abstract_eval(lambda a: a)
    batching.fancy_primitive_batchers[p] = lambda axis_data, vals, dims: (
        seen.append((axis_data.name, axis_data.size)) or p.bind(*vals), dims[0])
    out = pyjax.vmap(lambda x: p.bind(x), axis_name="k")(np.arange(3.0))
    np.testing.assert_allclose(out, np.arange(3.0))
    assert seen == [("k", 3)] and p in batching.fancy_primitive_batchers
    assert p not in batching.axis_primitive_batchers


def test_deflinear_and_defbilinear_take_jax_signatures():
    neg_p = ecore.Primitive("compat_neg")
    neg_p.def_impl(lambda x: -x)
    neg_p.def_abstract_eval(lambda a: a)
    ad.deflinear(neg_p, lambda ct: [-ct])          # JAX's deflinear: the cotangent only
    mlir.register_lowering(neg_p, mlir.lower_fun(lambda x: -x, multiple_results=False))
    np.testing.assert_allclose(pyjax.grad(lambda x: jnp.sum(neg_p.bind(x) * x))(X), -2 * X,
                               rtol=1e-6)

    mul_p = ecore.Primitive("compat_mul")
    mul_p.def_impl(lambda x, y: x * y)
    mul_p.def_abstract_eval(lambda a, b: a)
    ad.defbilinear(mul_p, lambda ct, x, y: ct * y, lambda ct, x, y: ct * x)
    mlir.register_lowering(mul_p, mlir.lower_fun(lambda x, y: x * y, multiple_results=False))
    Y = X[::-1].copy()
    gx, gy = pyjax.grad(lambda x, y: jnp.sum(mul_p.bind(x, y) ** 2), argnums=(0, 1))(X, Y)
    np.testing.assert_allclose(gx, 2 * X * Y * Y, rtol=1e-5)
    np.testing.assert_allclose(gy, 2 * X * Y * X, rtol=1e-5)


def test_trace_to_jaxpr_dynamic_and_flatten_fun_with_kwargs():
    leaves, in_tree = pyjax.tree_util.tree_flatten(((np.float32(2.0),), {"k": np.float32(3.0)}))
    flat, out_tree = api_util.flatten_fun(lu.wrap_init(lambda a, k: (a * k, a + k)), in_tree)
    avals = [api_util.shaped_abstractify(x) for x in leaves]
    jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(flat, avals)
    assert [a.shape for a in out_avals] == [(), ()] and out_tree().num_leaves == 2
    assert [float(v) for v in core.eval_jaxpr(jaxpr, consts, 2.0, 3.0)] == [6.0, 5.0]
    sds = pyjax.ShapeDtypeStruct((2, 3), np.float32)
    assert api_util.shaped_abstractify(sds) == core.ShapedArray((2, 3), np.float32)


def test_linear_util_generator_transformations():
    # JAX's old protocol (haiku's to_dot): the generator yields the inner call's arguments,
    # receives its result and yields the final one (with an auxiliary output for *_with_aux)
    @lu.transformation
    def scale_inputs(k, *args):
        out = yield tuple(a * k for a in args), {}
        yield out + 1

    @lu.transformation_with_aux
    def with_count(*args):
        out = yield args, {}
        yield out, len(args)

    f = lu.wrap_init(lambda a, b, c: a - b * c, params={"c": 10})
    assert scale_inputs(f, 2).call_wrapped(3, 1) == 6 - 2 * 10 + 1
    g, aux = with_count(scale_inputs(f, 3))
    assert g.call_wrapped(1, 1) == 3 - 3 * 10 + 1 and aux() == 2

    def double_out(f, *args):
        return 2 * f(*args)
    assert lu.transformation2(double_out, f).call_wrapped(5, 1) == 2 * (5 - 10)
    h, aux2 = lu.transformation_with_aux2(lambda f, store, *a: store.store("ran") or f(*a), f)
    assert lu.merge_linear_aux(aux2, aux) == (False, 2)
    assert h.call_wrapped(1, 0) == 1
    with pytest.raises(lu.StoreException):
        lu.merge_linear_aux(aux2, aux)  # both ran


def test_trace_main_and_tangent_avals_for_equinox():
    # equinox's filter_jvp keeps the outputs whose `_trace.main` is the jvp's own
    seen = []

    def f(x):
        seen.append((ecore.find_top_trace([x]).main, x._trace.main))
        return x * 2.0
    pyjax.jvp(f, (1.0,), (1.0,))
    (top, of_x), = seen
    assert top is of_x and isinstance(of_x, ad.JVPTrace)
    # JAX: ShapedArray((2,), int32).to_tangent_aval() is float0, float32 stays float32
    assert core.ShapedArray((2,), np.int32).to_tangent_aval().dtype == pyjax.dtypes.float0
    f32 = core.ShapedArray((2,), np.float32)
    assert f32.to_tangent_aval() == f32 and f32.at_least_vspace() == f32


def test_ad_util_stop_gradient_p_is_pyjaxs():
    from pyjax._jax_compat.internal import ad_util
    jaxpr = pyjax.make_jaxpr(pyjax.lax.stop_gradient)(1.0)
    assert jaxpr.jaxpr.eqns[0].primitive is ad_util.stop_gradient_p


def test_extend_core_primitives_are_pyjaxs():
    from pyjax._jax_compat.extend.core import primitives as prims
    closed = pyjax.make_jaxpr(lambda x: pyjax.jit(lambda y: pyjax.lax.sin(y) + 1.0)(x))(1.0)
    eqn, = closed.jaxpr.eqns
    assert eqn.primitive is prims.jit_p  # numpyro's provenance tracking keys on it
    assert {e.primitive for e in eqn.params["jaxpr"].jaxpr.eqns} == {prims.sin_p, prims.add_p}
    assert prims.call_p not in (prims.jit_p, prims.closed_call_p)


def test_call_primitives_run_the_call_in_line():
    """jax._src.core.call_p / closed_call_p: binding one calls the function (a lu.WrappedFun
    or a plain one) or the closed jaxpr under the current trace; a ref written there is written
    (JAX's state_test test_call_primitive_discharges, test_discharge_call_primitive)."""
    from pyjax._jax_compat.extend import linear_util as lu
    from pyjax._jax_compat.extend.core import primitives as prims

    def g(y_ref, x):
        y_ref[...] = pyjax.numpy.exp(x)
        return [pyjax.freeze(y_ref)]

    def f(prim, x):
        y_ref = pyjax.new_ref(pyjax.numpy.zeros_like(x))
        return prim.bind(x, subfuns=(lu.wrap_init(lambda x: g(y_ref, x)),))[0]
    for prim in (prims.call_p, prims.closed_call_p):
        np.testing.assert_allclose(f(prim, 4.0), np.exp(np.float32(4.0)), rtol=1e-6)
        np.testing.assert_allclose(pyjax.jit(lambda x: f(prim, x))(4.0), np.exp(np.float32(4.0)),
                                   rtol=1e-6)
    closed = pyjax.make_jaxpr(lambda x: [pyjax.numpy.sin(x)])(1.0)
    np.testing.assert_allclose(prims.closed_call_p.bind(1.0, call_jaxpr=closed)[0], np.sin(1.0),
                               rtol=1e-6)


def test_trace_state_clean_and_sparse_arrays():
    from pyjax.experimental import sparse
    assert core.trace_state_clean()
    seen = []
    pyjax.jit(lambda x: seen.append(core.trace_state_clean()) or x)(1.0)
    pyjax.vmap(lambda x: seen.append(core.trace_state_clean()) or x)(np.ones(2))
    assert seen == [False, False]
    assert not isinstance(jnp.ones(2), sparse.BCOO)  # numpyro's isinstance check


_XLA_BRIDGE_CHILD = """
import os, json
import pyjax; pyjax.as_jax()
import jax
xb = jax._src.xla_bridge  # an attribute after `import jax`, as in JAX (chex reads it so)
out = {"before": xb._backends, "init": xb.backends_are_initialized()}
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=3"  # chex's set_n_cpu_devices
out["n"] = len(jax.devices())
out["after"] = sorted(xb._backends)
out["backend"] = xb.get_backend().platform
out["local"] = len(xb.local_devices(backend="cpu"))
out["lib"] = jax.lib.__version__  # jax.lib too is an attribute after `import jax` (equinox)
print(json.dumps(out))
"""


def test_xla_bridge_backends_view_and_jax_lib():
    env = {k: v for k, v in __import__("os").environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.run([sys.executable, "-c", _XLA_BRIDGE_CHILD], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"before": {}, "init": False, "n": 3, "after": ["cpu"], "backend": "cpu",
                   "local": 3, "lib": "0.10.2"}


def test_emit_python_callback_in_a_library_lowering_rule():
    # equinox's noinline lowers its primitive to a host callback this way (JAX's signature:
    # (ctx, callback, token, operands, operand_avals, result_avals, *, has_side_effect, ...)
    # -> (results, token, keepalive))
    host_p = ecore.Primitive("compat_host_double")
    host_p.def_impl(lambda x: x * 2)
    host_p.def_abstract_eval(lambda aval: aval)
    seen = []

    def rule(ctx, x):
        def callback(v):
            seen.append(v.copy())
            return [np.asarray(v * 2)]
        outs, token, keepalive = mlir.emit_python_callback(
            ctx, callback, None, [x], ctx.avals_in, ctx.avals_out, has_side_effect=False,
            sharding=None)
        ctx.module_context.add_keepalive(keepalive)
        assert token is None
        return outs

    mlir.register_lowering(host_p, rule)
    out = pyjax.jit(lambda v: host_p.bind(v) + 1)(X)
    np.testing.assert_allclose(out, X * 2 + 1)
    np.testing.assert_array_equal(seen[0], X)


def test_primitive_get_bind_params_rebinds_equations():
    # JAX 0.10.2: Primitive.get_bind_params(params) gives the keyword arguments to bind with (a
    # dict, not JAX < 0.9.2's (subfuns, params)); equinox's finalise_jaxpr re-binds every
    # equation, jit and custom_vjp ones included, through it
    closed = pyjax.make_jaxpr(lambda x: pyjax.jit(lambda y: jnp.sin(y) * 2.0)(x) + 1.0)(0.5)

    def rebind(jaxpr, consts, *args):
        env = dict(zip(jaxpr.constvars, consts))
        env.update(zip(jaxpr.invars, args))
        read = lambda v: v.val if isinstance(v, ecore.Literal) else env[v]
        for eqn in jaxpr.eqns:
            params = eqn.primitive.get_bind_params(eqn.params)
            assert isinstance(params, dict)
            out = eqn.primitive.bind(*map(read, eqn.invars), **params)
            env.update(zip(eqn.outvars, out if eqn.primitive.multiple_results else [out]))
        return [read(v) for v in jaxpr.outvars]

    got = rebind(closed.jaxpr, closed.consts, 0.5)
    np.testing.assert_allclose(got[0], np.sin(0.5) * 2.0 + 1.0, rtol=1e-6)
    assert ecore.Primitive("p").get_bind_params({"a": 1}) == {"a": 1}


def test_ad_zero_is_a_childless_pytree_node_and_rules_get_tuples():
    # as JAX 0.10.2: ad.Zero flattens to no leaves (equinox's vprim returns Zeros from a
    # function it vmaps), and rules assigned into JAX's tables get tuples of primals/tangents
    # and of values/batch dims (equinox passes them on to vmap as in_axes/out_axes)
    z = ad.Zero(core.ShapedArray((2,), np.float32))
    assert pyjax.tree.leaves(z) == [] and pyjax.tree.structure(z).num_nodes == 1
    out = pyjax.vmap(lambda x, zz: (x * 2, zz), in_axes=(0, None))(jnp.ones(3), z)
    assert out[0].tolist() == [2.0] * 3 and type(out[1]) is ad.Zero
    seen = []
    p = ecore.Primitive("compat_tuple_args")
    p.def_impl(lambda x: x)
    p.def_abstract_eval(lambda x: x)

    def jvp(primals, tangents):
        seen.append(("jvp", type(primals), type(tangents)))
        return p.bind(*primals), tangents[0]

    def batch(axis_size, axis_name, trace_type, vals, dims, **params):
        seen.append(("batch", type(vals), type(dims)))
        return p.bind(*vals), dims[0]
    ad.primitive_jvps[p] = jvp
    batching.axis_primitive_batchers[p] = batch
    pyjax.jvp(p.bind, (1.0,), (1.0,))
    pyjax.vmap(p.bind)(jnp.ones(2))
    assert seen == [("jvp", tuple, tuple), ("batch", tuple, tuple)]


class _RecordingTracer(jcore.Tracer):
    """A library's tracer written to JAX 0.10.2's protocol (haiku's DotTracer): `Tracer(trace,
    aval)`, the value it stands for, and nothing else."""

    def __init__(self, trace, val):
        super().__init__(trace, pyjax.typeof(val))
        self.val = val


class _RecordingTrace(jcore.Trace):
    """Records each primitive it sees and binds it on its parent (haiku's DotTrace)."""

    def __init__(self, parent, tag):
        super().__init__()
        self.parent_trace, self.tag, self.seen = parent, tag, []

    def to_val(self, x):
        return x.val if isinstance(x, _RecordingTracer) and x._trace.tag is self.tag else x

    def process_primitive(self, primitive, tracers, params):
        vals = [self.to_val(t) for t in tracers]
        avals = [pyjax.typeof(t) for t in tracers]
        out = primitive.bind_with_trace(self.parent_trace, vals, avals, params)
        self.seen.append(primitive.name)
        if primitive.multiple_results:
            return [_RecordingTracer(self, v) for v in out]
        return _RecordingTracer(self, out)


def test_a_library_trace_and_tracer_run_as_in_jax():
    # JAX 0.10.2's protocol for a library's own interpreter (haiku's to_dot): a TraceTag, Tracer
    # subclasses initialised with (trace, aval), Primitive.bind_with_trace on the parent trace
    tag = ecore.TraceTag()
    assert tag is not ecore.TraceTag() and tag == tag
    with ecore.take_current_trace() as parent:
        trace = _RecordingTrace(parent, tag)
        with ecore.set_current_trace(trace):
            x = _RecordingTracer(trace, jnp.arange(3.0))
            assert x.aval.shape == (3,) and x.shape == (3,) and x.dtype == np.float32
            y = jnp.sin(x) * 2.0
    assert trace.seen == ["sin", "mul"]
    np.testing.assert_allclose(trace.to_val(y), 2 * np.sin(np.arange(3.0)), rtol=1e-6)


def test_eval_jaxpr_p_evaluates_its_jaxpr_under_every_transformation():
    """Issue 23 (JAX's api_test EvalJaxprPrimitiveTest): jax._src.lax.eval_jaxpr.eval_jaxpr_p."""
    from pyjax._jax_compat.internal.lax.eval_jaxpr import eval_jaxpr_p
    run = lambda f, *xs: eval_jaxpr_p.bind(*xs, jaxpr=pyjax.make_jaxpr(f)(*xs))
    x = jnp.array(2.0)
    assert float(run(lambda a, b: [a * b + 1.0], x, jnp.array(4.0))[0]) == 9.0
    g = lambda v: run(lambda a: [a ** 3], v)[0]
    assert float(pyjax.grad(g)(x)) == 12.0
    assert [float(t) for t in pyjax.jvp(g, (x,), (1.0,))] == [8.0, 12.0]
    np.testing.assert_allclose(pyjax.vmap(lambda v: run(lambda a: [a ** 2 + 1.0], v)[0])(
        jnp.array([1.0, 2.0, 3.0])), [2.0, 5.0, 10.0])
    np.testing.assert_allclose(pyjax.jit(lambda v: run(lambda a: [jnp.sin(a)], v)[0])(x), np.sin(2.0),
                               rtol=1e-6)


def test_jax_internal_shims_of_jax_test_files():
    """Internals JAX's own test files import at module level (core_test, errors_test,
    jaxpr_effects_test, python_callback_test, extend_test): they resolve and mean JAX's."""
    from pyjax._jax_compat.experimental import pjit as exp_pjit
    from pyjax._jax_compat.internal import abstract_arrays, effects, source_info_util
    from pyjax._jax_compat.interpreters.partial_eval import PartialVal
    assert ecore.array_types is abstract_arrays.array_types and np.ndarray in ecore.array_types
    assert np.float32 in ecore.array_types and np.dtype("bfloat16").type in ecore.array_types
    assert source_info_util.current().name_stack is not None

    class Named(effects.Effect):
        def __init__(self, name):
            self.name = name

    class Ordered(Named):
        pass

    class Anonymous(effects.Effect):
        pass

    class OnInput(effects.JaxprInputEffect):
        pass

    effects.ordered_effects.add_type(Ordered)
    assert (repr(Named("bar")), repr(Anonymous()), OnInput(1).input) == ("bar", "Anonymous", 1)
    assert Ordered("foo").ordered and not Named("bar").ordered
    assert PartialVal.unknown(core.ShapedArray((), np.float32)).aval.shape == ()
    f = exp_pjit.pjit(lambda x: x + 1)
    assert f(np.float32(1.0)) == 2.0


def test_jax_internal_util_helpers_as_jax():
    """jax._src.util's safe_zip/safe_map errors, toposort, multi_weakref_lru_cache and
    lu.WrappedFun.__name__, as JAX 0.10.2's (its util_test)."""
    import functools
    import gc
    from pyjax._jax_compat.internal import util

    def endless():
        i = 0
        while True:
            yield i
            i += 1
    for args, msg in [((range(3), range(5), range(3)), "safe_zip() argument 1 has length 5 but "
                       "argument 0 has length 3. All lengths: (3, 5, 3)"),
                      ((endless(), range(3)), "safe_zip() argument 1 has length 3 but argument 0 "
                       "has length 14+. All lengths: (14+, 3) (Note: length capped for argument(s) 0)")]:
        with pytest.raises(ValueError) as e:
            util.safe_zip(*args)
        assert str(e.value) == msg
    with pytest.raises(TypeError, match="safe_map requires at least 2 arguments"):
        util.safe_map(len)
    with pytest.raises(ValueError, match=r"safe_map\(\) argument 2 is shorter than argument 1"):
        util.safe_map(max, range(7), range(2))

    class Node:
        def __init__(self, *parents):
            self.parents = list(parents)
    a = Node()
    b, c = Node(a), Node(a)
    order = util.toposort([Node(b, c), Node(a, c)])
    assert len(order) == 5 and order.index(a) < order.index(b) and order.index(a) < order.index(c)

    class Key:
        pass
    util.weakref_cache_key_types.add(Key)
    cached = util.multi_weakref_lru_cache(lambda k, n: object(), trace_context_in_key=False)
    k = Key()
    first = cached((k, k), 1)
    assert cached((k, k), 1) is first and cached.cache_info()[:2] == (1, 1)
    del k
    gc.collect()
    assert cached.cache_info().currsize == 0

    def my_function():
        pass
    assert lu.wrap_init(functools.partial(functools.partial(my_function))).__name__ == "my_function"
    assert lu.wrap_init(type("C", (), {"__call__": lambda self: 0})()).__name__ == \
        "<unnamed wrapped function>"


def test_jax_internal_api_util_helpers_as_jax():
    """jax._src.api_util's donation and argument helpers and the prefix errors of flatten_axes /
    flatten_axis_resources, as JAX 0.10.2's (its api_util_test; values recorded from it)."""
    from pyjax._jax_compat.internal import api_util as iau
    assert iau.rebase_donate_argnums((3, 3, 3), (0, 1)) == (1,)
    assert iau.rebase_donate_argnums((3, 2), (1, 0)) == (0, 1)
    with pytest.raises(ValueError, match=r"`static_argnums` \[1, 2\] and `donate_argnums` \[0, 1\] "
                                         "cannot intersect"):
        iau.rebase_donate_argnums((0, 1), (1, 2))
    tree = pyjax.tree.structure(((1, 2), {"a": 1, "b": 2}))
    assert iau.donation_vector((0,), ("a",), tree) == (True, False, True, False)

    def fun(x, y, z=3, *, kw=True):
        return x
    assert iau.resolve_kwargs(fun, (1,), {"y": 2}) == (1, 2, 3)
    with pytest.raises(TypeError, match="keyword arguments could not be resolved to positions: kw"):
        iau.resolve_kwargs(fun, (1, 2), {"kw": False})
    t = pyjax.tree.structure({"a": 1, "b": 2})
    assert iau.flatten_axis_resources("s", pyjax.tree.structure({"a": [1, 2], "b": 3}),
                                      {"a": None, "b": None}, False) == (None, None, None)
    for flatten in (lambda spec: iau.flatten_axes("test_spec", t, spec),
                    lambda spec: iau.flatten_axis_resources("test_spec", t, spec, False)):
        with pytest.raises(ValueError) as e:
            flatten({"a": [0, 1], "b": (2, 3)})
        assert str(e.value).startswith("test_spec specification must be a tree prefix of the "
                                       "corresponding value; \n  Mismatch details (2 found):\n"
                                       "  pytree structure error: different types at key path\n"
                                       "    test_spec['a']\n")


def test_jax_extend_random_defines_prng_impls():
    """jax.extend.random: the built-in implementations and define_prng_impl, whose keys are
    key arrays of its key dtype (JAX's extend_test RandomTest)."""
    from pyjax._jax_compat import extend as jex
    from pyjax._src.random import prng, rbg
    assert jex.random.threefry_prng_impl is prng.threefry_prng_impl
    assert jex.random.unsafe_rbg_prng_impl is rbg.unsafe_rbg_prng_impl
    impl = jex.random.define_prng_impl(key_shape=(4, 2, 7),
                                       seed=lambda _: jnp.ones((4, 2, 7), jnp.uint32),
                                       split=None, random_bits=None, fold_in=None)
    assert repr(impl) == "PRNGSpec('<unnamed>')"  # (a PRNGSpec, as JAX's)
    assert pyjax.random.key_impl(pyjax.random.key(42, impl=impl)) == impl
    dtype = pyjax.random.key_dtype(impl)
    k = pyjax.random.key(42, dtype=dtype)
    assert (k.shape, k.dtype) == ((), dtype)
    w = pyjax.random.wrap_key_data(jnp.ones((3, 4, 2, 7), jnp.uint32), impl=impl)
    assert (w.shape, w.dtype) == ((3,), dtype)
    assert jex.random.seed_with_impl(prng.threefry_prng_impl, 0).shape == ()


def test_jax_internal_core_valid_jaxtype():
    from pyjax._jax_compat.toplevel import STUBS
    valid = STUBS["_src.core"]["valid_jaxtype"]
    assert valid(np.zeros(3, np.float32)) and valid(np.zeros(3, "bfloat16")) and valid(3)
    assert not valid(np.zeros(3, object)) and not valid(np.zeros(3, [("i", "i4"), ("f", "f4")]))


def test_jax_internal_jaxpr_util_histograms():
    """jax._src.jaxpr_util's equation statistics, nested jaxprs included (JAX's jaxpr_util_test)."""
    from pyjax._jax_compat.internal import jaxpr_util

    def f(x, y):
        s = pyjax.jit(jnp.sin)(x)
        return jnp.sin(s) + jnp.cos(y)
    jaxpr = pyjax.make_jaxpr(f)(1.0, 1.0)
    assert jaxpr_util.primitives(jaxpr.jaxpr) == {"jit": 1, "sin": 2, "cos": 1, "add": 1}
    assert jaxpr_util.primitives_by_shape(jaxpr)["add :: float32[]"] == 1
    assert sum(jaxpr_util.source_locations(jaxpr).values()) == 5
    assert all(k.split(" @ ")[1] for k in jaxpr_util.primitives_by_source(jaxpr))
    g = pyjax.make_jaxpr(lambda x: pyjax.lax.cond(x > 0, lambda x: x + 2, lambda x: x - 2, x))(42)
    assert jaxpr_util.count_eqns(g) == 5


def test_jax_internal_tpu_stack_inside_jit():
    """jax._src.tpu.linalg.stack.Stack (JAX's stack_test): a fixed-capacity stack of pytrees,
    usable as a jit argument and result."""
    from pyjax._jax_compat.internal.tpu.linalg.stack import Stack
    s = Stack.create(4, {"a": jnp.zeros((), jnp.int32), "b": jnp.zeros(2)})
    assert bool(s.empty())

    @pyjax.jit
    def push_two_pop_one(s):
        s = s.push({"a": 7, "b": jnp.ones(2)}).push({"a": 8, "b": jnp.full(2, 2.0)})
        return s.pop()
    top, s = push_two_pop_one(s)
    assert int(top["a"]) == 8 and top["b"].tolist() == [2.0, 2.0] and not bool(s.empty())
    bottom, s = s.pop()
    assert int(bottom["a"]) == 7 and bool(s.empty())


def test_jax_internal_dispatch_simple_impl():
    """jax._src.dispatch.simple_impl(prim): the primitive evaluates eagerly by compiling itself
    (JAX's ffi_test defines its primitive so at import)."""
    from pyjax._jax_compat.toplevel import STUBS
    p = ecore.Primitive("compat_simple_impl_double")
    p.def_abstract_eval(lambda a: a)
    mlir.register_lowering(p, mlir.lower_fun(lambda x: 2 * x, multiple_results=False))
    STUBS["_src.dispatch"]["simple_impl"](p)
    np.testing.assert_allclose(p.bind(np.arange(3.0, dtype=np.float32)), [0.0, 2.0, 4.0])


def test_jax_experimental_stateful_rng():
    """jax.experimental.random.stateful_rng: draws fold a counter ref into the key and bump it,
    eagerly and under jit; values from JAX 0.10.2's docstring (threefry)."""
    from pyjax._jax_compat.experimental import random as exp_random
    rng = exp_random.stateful_rng(42)
    np.testing.assert_allclose([rng.uniform(), rng.uniform()], [0.5302608, 0.72766423], rtol=1e-6)
    jit_uniform = pyjax.jit(rng.uniform)
    np.testing.assert_allclose([jit_uniform(), jit_uniform()], [0.6672406, 0.3890121], rtol=1e-6)
    assert pyjax.random.key_data(rng.key()).tolist() == [2954079971, 3276725750]
    assert int(rng._counter[...]) == 5
    with pytest.raises(ValueError, match="Expected base_key to be a typed PRNG key"):
        exp_random.StatefulPRNG(jnp.array([0, 1], dtype="uint32"), pyjax.new_ref(0))
    with pytest.raises(TypeError, match="requires an explicit seed"):
        pyjax.jit(lambda: exp_random.stateful_rng().uniform())()


def test_jax_internal_error_check():
    """jax._src.error_check: set_error_if records the first error (eagerly or in jit, at every
    call), raise_if_error raises it with its traceback and clears it (JAX's error_check_test)."""
    import traceback
    from pyjax._jax_compat.internal import error_check as ec

    def f_checks_positive(x):
        ec.set_error_if(x <= 0, "x must be greater than 0")
        return x + 1
    f = pyjax.jit(f_checks_positive)
    f(jnp.ones(4, jnp.int32))
    ec.raise_if_error()  # no error
    x = f(jnp.full(4, -1, jnp.int32))
    f(x)  # a second failing check does not replace the first error
    with pytest.raises(ec.JaxValueError, match="x must be greater than 0") as e:
        ec.raise_if_error()
    assert "f_checks_positive" in "".join(traceback.format_tb(e.value.__traceback__))
    ec.raise_if_error()  # cleared
    with pytest.raises(ValueError, match="should not be called within a traced context"):
        pyjax.jit(lambda: ec.raise_if_error())()


def test_register_lowering_for_an_unknown_platform_says_jax_words():
    """As JAX 0.10.2 (its extend_test test_unknown_platform_error)."""
    with pytest.raises(NotImplementedError, match="Registering an MLIR lowering rule for primitive "
                       ".+ for an unknown platform this_is_a_fake_platform. Known platforms are: "
                       "cpu, .+"):
        mlir.register_lowering(prim=None, rule=None, platform="this_is_a_fake_platform")


def test_jax_internal_util_foreach():
    # jax._src.util.foreach (JAX's generated_fun_test calls it): safe_map for effects, None
    from pyjax._jax_compat.internal import util
    seen = []
    assert util.foreach(lambda a, b: seen.append(a + b), [1, 2], [10, 20]) is None and seen == [11, 22]
    with pytest.raises(ValueError, match="safe_map"):
        util.foreach(print, [1], [1, 2])


def test_tpu_linalg_qdwh_and_svd_modules():
    # jax._src.tpu.linalg.qdwh / .svd (JAX's qdwh_test and svd_test import them): pyjax's qdwh,
    # and lax.linalg.svd behind JAX's TPU svd signature
    from pyjax._jax_compat.internal.tpu.linalg import qdwh, svd
    a = np.array([[2.0, 1.0], [0.5, 3.0], [1.0, -1.0]], np.float32)
    u, h, _, _ = qdwh.qdwh(a)
    np.testing.assert_allclose(np.asarray(u) @ np.asarray(h), a, atol=1e-5)
    s = svd.svd(a, full_matrices=False, compute_uv=False)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-5)


def test_tpu_linalg_eigh_module():
    # jax._src.tpu.linalg.eigh.eigh (JAX's spectral_dac test): (evs, V), 16-bit floats refused
    from pyjax._jax_compat.internal.tpu.linalg import eigh
    h = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
    evs, v = eigh.eigh(h, termination_size=1)
    np.testing.assert_allclose(h @ np.asarray(v), np.asarray(v) * np.asarray(evs)[None, :], atol=1e-5)
    with pytest.raises(NotImplementedError):
        eigh.eigh(jnp.asarray(h, jnp.float16))
