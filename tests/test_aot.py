"""The AOT stages `jit(f).trace(...)` → Traced, `.lower()` → Lowered, `.compile()` → Compiled:
their structure (in_tree/out_tree/args_info/out_info), XLA's cost and memory analyses, and
shardings. Oracles: NumPy values; the trees and sizes JAX 0.10.2 gives for the same function
(byte counts follow from the shapes); cost analyses compared between stages."""
import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import tree_util
from pyjax._jax_compat import stages


def f(x, y=2.0):
    return {"a": x * y, "b": x.sum()}


@pytest.fixture(scope="module")
def staged():
    tr = jax.jit(f, donate_argnums=0).trace(jnp.ones((3,)), y=jnp.float32(1))
    lo = tr.lower()
    return tr, lo, lo.compile()


def test_stage_types(staged):
    tr, lo, co = staged
    assert isinstance(tr, stages.Traced) and isinstance(lo, stages.Lowered)
    assert isinstance(co, stages.Compiled)


def test_trees_and_avals(staged):
    tr, lo, co = staged
    for s in staged:
        assert str(s.in_tree) == "PyTreeDef(((*,), {'y': *}))"
        assert str(s.out_tree) == "PyTreeDef({'a': *, 'b': *})"
        (x_info,), kw = s.args_info
        assert isinstance(x_info, stages.ArgInfo)
        assert x_info.aval.shape == (3,) and x_info.donated
        assert kw["y"].aval.shape == () and not kw["y"].donated
        # JAX's ArgInfo: a pytree leaf whose shape/dtype read its aval (pjit_test's
        # test_jit_trace_lower_and_compile)
        assert (x_info.shape, x_info.dtype) == ((3,), np.dtype("float32"))
        assert len(tree_util.tree_leaves(s.args_info)) == 2
        assert s.donate_argnums == (0,)
        assert s.out_info["a"].shape == (3,) and s.out_info["b"].shape == ()
        args, kwargs = s.in_avals
        assert args[0].str_short() == "f32[3]" and kwargs["y"].str_short() == "f32[]"
    assert tr.fun_name == "f"
    assert tr.out_avals["a"].str_short() == "f32[3]"
    assert "mul" in str(tr.jaxpr)


def test_compiled_call_and_text(staged):
    _, lo, co = staged
    out = co(jnp.arange(3.0), y=jnp.float32(3))
    np.testing.assert_allclose(out["a"], [0, 3, 6])
    np.testing.assert_allclose(out["b"], 3.0)
    assert "HloModule" in co.as_text()
    assert "stablehlo.multiply" in lo.as_text()
    # JAX 0.10.2's words (its api_test): the structure, then each mismatching argument by name
    with pytest.raises(TypeError, match="Function compiled with input pytree does not match"):
        co(jnp.ones(3))
    with pytest.raises(TypeError, match=r"The mismatches are:\nArgument 'x' compiled with "
                                        r"float32\[3\] and called with float32\[4\]"):
        co(jnp.ones(4), y=jnp.float32(1))
    with pytest.raises(TypeError, match="Cannot apply JAX transformations to a function lowered "
                                        "and compiled for a particular signature"):
        jax.vmap(lambda v: co(v, y=jnp.float32(1)))(jnp.ones((2, 3)))


def test_cost_and_memory_analysis(staged):
    _, lo, co = staged
    before, after = lo.cost_analysis(), co.cost_analysis()
    # x*y is 3 multiplies, sum is 2 adds (JAX 0.10.2 reports 5.0 for both stages too)
    assert before["flops"] == after["flops"] == 5.0
    assert before["bytes accessed"] > 0
    mem = co.memory_analysis()
    assert mem.argument_size_in_bytes == 16   # f32[3] + f32[]
    assert mem.output_size_in_bytes == 32     # as JAX reports (XLA's output tuple included)
    assert co.runtime_executable() is not None


def test_shardings(staged):
    _, _, co = staged
    (x_sh,), kw = co.input_shardings
    dev = jax.devices()[0]
    assert x_sh == jax.sharding.SingleDeviceSharding(dev) == kw["y"]
    out = co.output_shardings
    assert set(out) == {"a", "b"} and out["a"] == jax.sharding.SingleDeviceSharding(dev)


def test_matmul_flops():
    lo = jax.jit(lambda a, b: a @ b).lower(jnp.ones((8, 16)), jnp.ones((16, 4)))
    assert lo.cost_analysis()["flops"] == 2 * 8 * 16 * 4
    assert lo.compile().memory_analysis().argument_size_in_bytes == 4 * (8 * 16 + 16 * 4)


SHARDED = '''
import json, numpy as np, pyjax as jax, pyjax.numpy as jnp
from pyjax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((4, 2), ("x", "y"))
rows, rep = NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P())
f = jax.jit(lambda a, b: (a * 3.0 + b, a.sum()), in_shardings=(rows, rep), out_shardings=(rows, rep))
co = f.lower(jnp.ones((8, 4)), jnp.ones((8, 4))).compile()
x = jax.device_put(jnp.ones((8, 4)), rows)
co2 = jax.jit(lambda a: a * 2).lower(x).compile()
out = co(jnp.ones((8, 4)), jnp.ones((8, 4)))
print(json.dumps({"in": [repr(s) for s in co.input_shardings[0]], "in_kw": repr(co.input_shardings[1]),
                  "out": [repr(s) for s in co.output_shardings], "result": repr(out[0].sharding),
                  "value": float(out[0][0, 0]), "in2": repr(co2.input_shardings[0][0]),
                  "out2": repr(co2.output_shardings), "out_info2": repr(co2.out_info.sharding),
                  "out_info": [repr(i.sharding) for i in co.out_info]}))
'''


def test_shardings_over_a_mesh():
    """What JAX 0.10.2 prints for the same program (run by hand with 8 host devices)."""
    import json
    import os
    import subprocess
    import sys
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", SHARDED], capture_output=True, text=True, env=env,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    mesh = "Mesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit))"
    rows = f"NamedSharding(mesh={mesh}, spec=P('x', None), memory_kind=device)"
    rep = f"NamedSharding(mesh={mesh}, spec=P(), memory_kind=device)"
    assert got["in"] == [rows, rep] and got["in_kw"] == "{}"
    assert got["out"] == [rows, rep] and got["result"] == rows and got["value"] == 4.0
    assert got["in2"] == rows and got["out2"] == rows
    assert got["out_info2"] == rows and got["out_info"] == [rows, rep]  # (pjit_test's out_info)


def test_stages_module_has_jax_names():
    """jax.stages (pyjax's compat module for it) has every public name of JAX 0.10.2's."""
    import json
    import pathlib
    names = json.loads((pathlib.Path(__file__).parent / "data" / "jax_public_names.json").read_text())
    assert [n for n in names["jax.stages"] if not hasattr(stages, n)] == []


def test_shaped_array_arguments_trace_but_do_not_run():
    # JAX 0.10.2: an abstract value stands for an array of its type where nothing runs (trace,
    # lower, eval_shape, make_jaxpr: flax's ConvLocal sizes its kernel so); a call refuses it
    from pyjax._src.core import ShapedArray
    a = ShapedArray((2, 3), np.float32)
    f = lambda x: x * 2
    assert jax.jit(f).lower(a).out_info == jax.ShapeDtypeStruct((2, 3), np.float32)
    assert jax.eval_shape(f, a) == jax.ShapeDtypeStruct((2, 3), np.float32)
    assert str(jax.make_jaxpr(f)(a)) == \
        "{ lambda ; a:f32[2,3]. let b:f32[2,3] = mul a 2.0:f32[] in (b,) }"
    assert str(jax.jit(f).trace(a).jaxpr) == str(jax.make_jaxpr(f)(a))
    with pytest.raises(TypeError, match="not a valid JAX type"):
        jax.jit(f)(a)


def test_lowered_compiler_ir_objects():
    # JAX 0.10.2: "hlo" is an XlaComputation (as_hlo_text()), "stablehlo" (the default) an MLIR
    # Module whose str() is the module text; any other dialect a ValueError
    lowered = jax.jit(lambda x: x * 2).lower(jnp.ones(3))
    hlo = lowered.compiler_ir("hlo")
    assert hlo.as_hlo_text().startswith("HloModule ") and "multiply" in hlo.as_hlo_text()
    for ir in (lowered.compiler_ir(), lowered.compiler_ir("stablehlo")):
        assert type(ir).__name__ == "Module" and type(ir.operation).__name__ == "Operation"
        assert str(ir).startswith("module @") and "stablehlo.multiply" in str(ir)
    with pytest.raises(ValueError, match="unknown dialect: foo"):
        lowered.compiler_ir("foo")


def test_topologies_attached():
    # jax.experimental.topologies: the attached topology is the process's devices; a mesh over
    # them as mesh_utils lays it out (AOT compilation for named, compile-only topologies is
    # not in pyjax: NotImplementedError)
    from pyjax.experimental import topologies
    topo = topologies.get_attached_topology()
    assert topo.devices == jax.devices()
    mesh = topologies.make_mesh(topo, (len(topo.devices),), ("x",))
    assert mesh.axis_names == ("x",) and list(mesh.devices.flat) == jax.devices()
    with pytest.raises(NotImplementedError):
        topologies.get_topology_desc("v5e:2x2", "tpu")


def test_jit_compiler_options_make_their_own_executables():
    """jit's `compiler_options` reach XLA (build options such as the effort levels as JAX sets
    them, the rest as option overrides; an unknown one is XLA's JaxRuntimeError), also through
    lower/compile, and two jits of one function with other options or out_shardings do not
    share executables (the C++ cache keys on every setting). As JAX 0.10.2's api_test."""
    from pyjax._src import test_util as jtu
    from pyjax._src.config import EffortLevel

    def g(x):
        return jnp.sqrt(x ** 2) + 1.0

    with jtu.count_jit_compilation_cache_miss() as count:
        jax.jit(g, compiler_options={"xla_embed_ir_in_executable": True})(1.0)
        jax.jit(g, compiler_options={"xla_embed_ir_in_executable": False})(1.0)
    assert count() == 2
    opts = {"exec_time_optimization_effort": 0.0, "optimization_level": EffortLevel.O1.value,
            "memory_fitting_level": EffortLevel("O0").value}
    assert float(jax.jit(g, compiler_options=opts)(-1.0)) == 2.0
    for bad in ("invalid_key", "exec_time_compilation_effort"):
        with pytest.raises(jax.errors.JaxRuntimeError, match=f"No such compile option: '{bad}'"):
            jax.jit(g, compiler_options={bad: 0.0})(1.0)
        with pytest.raises(jax.errors.JaxRuntimeError, match="No such compile option"):
            jax.jit(g, compiler_options={bad: 0.0}).lower(1.0).compile()
    if len(jax.devices()) > 1:
        s0, s1 = (jax.sharding.SingleDeviceSharding(d) for d in jax.devices()[:2])
        outs = [jax.jit(g, out_shardings=s)(jnp.float32(3.0)) for s in (s0, s1)]
        assert [o.sharding for o in outs] == [s0, s1]
