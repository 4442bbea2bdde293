"""The compile request: every executable comes from `dispatch.compile(CompileRequest(...))`, one
cache keyed by the whole request (the jaxpr by identity, weakly), emptied by clear_caches.

Values are checked against NumPy; multi-device behaviour runs in a subprocess with two CPU
devices (XLA_FLAGS=--xla_force_host_platform_device_count=2).
"""
import gc
import json
import os
import subprocess
import sys
import weakref

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src import pjit
from pyjax._src import core, dispatch
from pyjax._src.dispatch import CompileRequest
from pyjax._src.lowering.lower import lower_jaxpr_to_module

X = np.arange(3.0, dtype=np.float32)


def _jaxpr():
    return jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(X)


def test_the_same_request_gives_the_same_executable():
    closed = _jaxpr()
    first = dispatch.compile(CompileRequest(closed, "f"))
    again = dispatch.compile(CompileRequest(closed, "f", donated=(False,),
                                            devices=(jax.devices()[0],)))  # the defaults, spelled out
    assert again is first
    np.testing.assert_allclose(np.asarray(first([X])[0]), np.sin(X) * 2, rtol=1e-6)


@pytest.mark.parametrize("change", [dict(donated=(True,)), dict(name="g"),
                                    dict(compile_options={"xla_embed_ir_in_executable": True})])
def test_a_different_request_is_a_different_entry(change):
    closed = _jaxpr()
    base = dispatch.compile(CompileRequest(closed, "f"))
    other = dispatch.compile(CompileRequest(closed, **{"name": "f", **change}))
    assert other is not base
    assert len(dispatch._compiled[closed]) == 2
    np.testing.assert_allclose(np.asarray(other([jnp.asarray(X)])[0]), np.sin(X) * 2, rtol=1e-6)


def test_a_different_jaxpr_is_a_different_entry():
    a, b = _jaxpr(), _jaxpr()
    assert dispatch.compile(CompileRequest(a, "f")) is not dispatch.compile(CompileRequest(b, "f"))


def test_compile_options_reach_xla():
    closed = _jaxpr()
    with pytest.raises(RuntimeError, match="No such compile option"):
        dispatch.compile(CompileRequest(closed, "f", compile_options={"xla_no_such_option": 1}))
    lowered = jax.jit(lambda x: x + 1).lower(X)
    with pytest.raises(RuntimeError, match="No such compile option"):
        lowered.compile({"xla_no_such_option": 1})


def test_clear_caches_empties_the_compile_cache():
    closed = _jaxpr()
    first = dispatch.compile(CompileRequest(closed, "f"))
    assert closed in dispatch._compiled
    jax.clear_caches()
    assert len(dispatch._compiled) == 0
    assert dispatch.compile(CompileRequest(closed, "f")) is not first


def test_an_entry_leaves_with_its_jaxpr():
    closed = _jaxpr()
    compiled = dispatch.compile(CompileRequest(closed, "f"))
    ref = weakref.ref(closed)
    del closed
    gc.collect()
    assert ref() is None  # the cache and the executable hold the jaxpr only weakly
    assert compiled.jaxpr is None
    np.testing.assert_allclose(np.asarray(compiled([X])[0]), np.sin(X) * 2, rtol=1e-6)


def test_an_eager_loop_executable_leaves_with_its_body():
    def run_once():  # a fresh body each time, as in a loop calling lax.scan(lambda ...)
        return jax.lax.scan(lambda c, v: (c + v, c * v), 0.0, jnp.asarray(X))
    run_once()
    gc.collect()
    before = len(dispatch._jaxpr_primitive_cache)
    for _ in range(3):
        carry, _ = run_once()
    gc.collect()
    assert len(dispatch._jaxpr_primitive_cache) == before
    assert float(carry) == X.sum()


def test_requests_are_checked():
    closed = _jaxpr()
    with pytest.raises(ValueError, match="platform 'cuda' does not match"):
        CompileRequest(closed, "f", platform="cuda")
    d = jax.devices()[0]
    with pytest.raises(NotImplementedError, match="2 devices given but no shardings"):
        CompileRequest(closed, "f", devices=(d, d))


def test_jit_and_its_aot_compile_share_the_cache():
    f = jax.jit(lambda x: jnp.cos(x) - x)
    f(X)
    (entry,) = pjit.jit_info(f)._cache.values()
    assert f.lower(X).compile()._compiled is entry.compiled


def test_every_executable_goes_through_a_request(monkeypatch):
    requests = []
    real = dispatch.compile

    def spy(request, lowered=None):
        requests.append(request)
        return real(request, lowered)
    monkeypatch.setattr(dispatch, "compile", spy)
    jax.clear_caches()
    x = jnp.asarray(X)
    jax.jit(lambda v: v * 3.0)(x)                                    # a jit call
    jnp.tan(x)                                                      # an eager primitive
    jax.lax.scan(lambda c, v: (c + v, c), 0.0, x)                   # eager scan
    jax.lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0)         # eager while
    jax.grad(jax.jit(lambda v: jnp.sum(jnp.sin(v))))(x)             # pjit's impl, eagerly
    names = [r.name for r in requests]
    assert {"jit_<lambda>", "jit_tan", "scan", "while"} <= set(names), names
    assert "<lambda>" in names, names  # the known and transposed parts of grad(jit(f))
    assert all(isinstance(r, CompileRequest) for r in requests)


def test_lowering_takes_the_platform_and_partitions_from_the_caller():
    p = core.Primitive("w3_platform_probe")
    p.def_abstract_eval(lambda x: x)
    p.def_lowering(lambda ctx, x: ctx.op("stablehlo.negate", x))
    p.def_lowering(lambda ctx, x: ctx.op("stablehlo.sine", x), platform="cuda")
    x = core.Var(core.ShapedArray((3,), np.float32))
    y = core.Var(x.aval)
    jaxpr = core.Jaxpr([], [x], [y], [core.JaxprEqn([x], [y], p, {})])
    cpu, _ = lower_jaxpr_to_module("m", jaxpr, platform="cpu", num_replicas=1, num_partitions=1)
    cuda, _ = lower_jaxpr_to_module("m", jaxpr, platform="cuda", num_replicas=1, num_partitions=4)
    assert "stablehlo.negate" in cpu and "stablehlo.sine" not in cpu
    assert "stablehlo.sine" in cuda and "stablehlo.negate" not in cuda
    assert "mhlo.num_partitions = 1 : i32" in cpu and "mhlo.num_partitions = 4 : i32" in cuda


TWO_DEVICES = """
import json
import numpy as np
import pyjax as jax
from pyjax._src import dispatch
from pyjax._src.dispatch import CompileRequest

d0, d1 = jax.devices()
c = np.arange(3.0, dtype=np.float32) * 10       # a constant of the jaxpr: must go to device 1
closed = jax.make_jaxpr(lambda x: x * 2.0 + c)(np.ones(3, np.float32))
on0 = dispatch.compile(CompileRequest(closed, "f"))
on1 = dispatch.compile(CompileRequest(closed, "f", devices=(d1,)))
out = on1([jax.device_put(np.arange(3.0, dtype=np.float32), d1)])[0]
print(json.dumps({"distinct": on0 is not on1, "entries": len(dispatch._compiled[closed]),
                  "out_devices": [d.id for d in out.devices()], "out": np.asarray(out).tolist(),
                  "again": dispatch.compile(CompileRequest(closed, "f", devices=(d1,))) is on1}))
"""


def test_a_request_for_device_1_runs_on_device_1():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    r = subprocess.run([sys.executable, "-c", TWO_DEVICES], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["distinct"] and got["again"] and got["entries"] == 2
    assert got["out_devices"] == [1]
    assert got["out"] == (np.arange(3.0) * 2 + np.arange(3.0) * 10).tolist()
