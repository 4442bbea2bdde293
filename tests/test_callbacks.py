"""Host callbacks (issue 15, part 1): jax.debug.print / debug.callback, jax.pure_callback and
jax.experimental.io_callback, eagerly and compiled (jaxlib's CPU Python-callback custom call),
under vmap, grad and scan; their results checked before they reach XLA."""
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import ad_checkpoint
from pyjax.experimental import io_callback


def lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_debug_print_eager_and_jit(capsys):
    def f(x):
        pyjax.debug.print("x = {x}, sum {s}", x=x, s=jnp.sum(x))
        pyjax.debug.print("no placeholders:", x[0], skip_format_check=True)
        return x * 2
    f(jnp.arange(3.0))
    eager = lines(capsys)
    np.testing.assert_array_equal(pyjax.jit(f)(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    assert lines(capsys) == eager == ["x = [0. 1. 2.], sum 3.0", "no placeholders: 0.0"]


def test_debug_print_under_vmap_grad_and_scan(capsys):
    pyjax.vmap(lambda v: pyjax.debug.print("v={v}", v=v))(jnp.arange(3))
    assert lines(capsys) == ["v=0", "v=1", "v=2"]  # one call per example, in order (as JAX)

    def loss(x):
        pyjax.debug.print("primal {x}", x=x)
        return x ** 2
    assert pyjax.jit(pyjax.grad(loss))(3.0) == 6.0
    assert lines(capsys) == ["primal 3.0"]

    def body(c, x):
        pyjax.debug.print("step {i}", i=x)
        return c + x, None
    pyjax.jit(lambda xs: lax.scan(body, 0, xs))(jnp.arange(3))
    assert lines(capsys) == ["step 0", "step 1", "step 2"]


def test_debug_print_is_kept_by_dce_and_ordered_prints_keep_order(capsys):
    @pyjax.jit
    def f(x):
        for i in range(5):
            pyjax.debug.print("{i}: {x}", i=i, x=x + i, ordered=True)
        return 0.0  # no result depends on the prints
    f(1.0)
    assert lines(capsys) == [f"{i}: {1.0 + i}" for i in range(5)]


def test_debug_print_in_a_batched_while_cond(capsys):
    """A batched predicate: an unordered print in the cond runs once more per iteration (to
    mask the finished lanes); an ordered one runs once per iteration and every lane then runs
    the body until the last is done, so the result is JAX 0.10.2's [5, 6], not [5, 5]
    (recorded from JAX 0.10.2; its debugging_primitives_test test_can_print_in_batched_while_cond)."""
    def f(ordered):
        def loop(x):
            def cond(x):
                pyjax.debug.print("x: {x}", x=x, ordered=ordered)
                return x < 5
            return pyjax.lax.while_loop(cond, lambda x: x + 1, x)
        return pyjax.vmap(loop)
    for run in (lambda g: g, pyjax.jit):
        out = run(f(True))(jnp.arange(2))
        pyjax.effects_barrier()
        np.testing.assert_array_equal(out, [5, 6])
        assert lines(capsys) == [f"x: {v}" for i in range(6) for v in (i, i + 1)]
        out = run(f(False))(jnp.arange(2))
        pyjax.effects_barrier()
        np.testing.assert_array_equal(out, [5, 5])
        assert lines(capsys) == [f"x: {v}" for i in range(5) for v in (i, i + 1, i, i + 1)
                                 ][:-4] + ["x: 4", "x: 5", "x: 4", "x: 5", "x: 5", "x: 5"]


def test_debug_print_format_errors():
    with pytest.raises(ValueError, match="Unused keyword arguments"):
        pyjax.debug.print("nothing here", x=1.0)
    with pytest.raises(ValueError, match="Unused positional arguments"):
        pyjax.debug.print("{}", 1.0, 2.0)
    with pytest.raises(TypeError, match="two-call form"):
        pyjax.debug.print(None, 1.0)


def test_debug_callback_static_args_and_two_call_print(capsys):
    seen = []
    pyjax.jit(lambda x: pyjax.debug.callback(lambda tag, v: seen.append((tag, np.asarray(v))), "tag", x))(2.0)
    assert seen[0][0] == "tag" and seen[0][1] == 2.0
    pyjax.debug.print(ordered=True)("two-call {}", 7)
    assert lines(capsys) == ["two-call 7"]


def test_pure_callback_values_vmap_methods_and_dce():
    calls = []

    def host_sin(x):
        calls.append(np.shape(x))
        return np.sin(x)
    x = np.linspace(0, 1, 4, dtype=np.float32)
    spec = lambda v: pyjax.ShapeDtypeStruct(v.shape, v.dtype)
    f = lambda v: pyjax.pure_callback(host_sin, spec(v), v, vmap_method="sequential")
    np.testing.assert_allclose(pyjax.jit(f)(x), np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(f(x), np.sin(x), rtol=1e-6)
    calls.clear()
    np.testing.assert_allclose(pyjax.vmap(f)(x), np.sin(x), rtol=1e-6)
    assert calls == [()] * 4  # sequential: one call per example
    for method, shape in [("expand_dims", (4,)), ("broadcast_all", (4,))]:
        calls.clear()
        g = lambda v: pyjax.pure_callback(host_sin, spec(v), v, vmap_method=method)
        np.testing.assert_allclose(pyjax.vmap(g)(x), np.sin(x), rtol=1e-6)
        assert calls == [shape]
    with pytest.raises(NotImplementedError, match="vmap_method"):
        pyjax.vmap(lambda v: pyjax.pure_callback(host_sin, spec(v), v))(x)
    calls.clear()
    pyjax.jit(lambda v: (pyjax.pure_callback(host_sin, spec(v), v), v)[1])(x)
    assert calls == []  # pure: an unused result is not computed


def test_pure_callback_errors():
    x = np.ones(3, np.float32)
    bad_shape = lambda v: pyjax.pure_callback(lambda a: np.ones(2, np.float32), pyjax.ShapeDtypeStruct((3,), np.float32), v)
    with pytest.raises(RuntimeError, match="Incorrect output shape|incorrect output shape"):
        bad_shape(x)
    with pytest.raises(Exception, match="incorrect output shape"):
        pyjax.jit(bad_shape)(x)
    bad_dtype = lambda v: pyjax.pure_callback(lambda a: np.ones(3, np.int32), pyjax.ShapeDtypeStruct((3,), np.float32), v)
    with pytest.raises(Exception, match="incorrect output dtype"):
        pyjax.jit(bad_dtype)(x)
    with pytest.raises(ValueError, match="do not support JVP"):
        pyjax.grad(lambda v: pyjax.pure_callback(np.sin, pyjax.ShapeDtypeStruct((), np.float32), v))(1.0)
    with pytest.raises(ValueError, match="vmap_method must be"):
        pyjax.pure_callback(np.sin, pyjax.ShapeDtypeStruct((), np.float32), 1.0, vmap_method="bogus")
    with pytest.raises(ValueError, match="64-bit"):
        pyjax.pure_callback(np.sin, pyjax.ShapeDtypeStruct((), np.float64), 1.0)


def test_io_callback_ordered_and_vmap():
    log = []

    def record(v):
        log.append(float(v))
        return np.float32(v * 10)

    @pyjax.jit
    def f(x):
        a = io_callback(record, pyjax.ShapeDtypeStruct((), np.float32), x, ordered=True)
        b = io_callback(record, pyjax.ShapeDtypeStruct((), np.float32), x + 1, ordered=True)
        return a + b
    assert f(1.0) == 30.0 and log == [1.0, 2.0]
    log.clear()
    out = pyjax.vmap(lambda v: io_callback(record, pyjax.ShapeDtypeStruct((), np.float32), v))(jnp.arange(3.0))
    np.testing.assert_array_equal(out, [0.0, 10.0, 20.0])
    assert log == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
        pyjax.vmap(lambda v: io_callback(record, pyjax.ShapeDtypeStruct((), np.float32), v, ordered=True))(jnp.arange(3.0))
    with pytest.raises(ValueError, match="do not support JVP"):
        pyjax.grad(lambda v: io_callback(record, pyjax.ShapeDtypeStruct((), np.float32), v))(1.0)


def test_effects_barrier_waits_for_callbacks_of_dispatched_runs():
    # equinox's progress meters: the jitted function returns its input, nothing is read, and
    # effects_barrier must still wait for the run's callbacks (as JAX's runtime tokens)
    import time
    seen = []

    def slow(x):
        time.sleep(0.01)
        seen.append(float(x))
        return np.float32(x)

    def f(x):
        def body(c, i):  # a loop over a constant (XLA's CPU runtime runs this asynchronously)
            io_callback(slow, pyjax.ShapeDtypeStruct((), np.float32), c)
            pyjax.debug.callback(lambda v: seen.append(("dbg", float(v))), c)
            return c + 0 * i, None
        lax.scan(body, x, jnp.arange(20))
        return x

    jf = pyjax.jit(f)
    for i in range(3):  # the second call onwards goes through the dispatch fast path
        seen.clear()
        jf(jnp.float32(i))
        pyjax.effects_barrier()
        assert seen == [float(i), ("dbg", float(i))] * 20


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("kind", ["pure_callback", "io_callback"])
def test_callback_exception_is_the_runtime_error(kind, jit, caplog):
    # JAX 0.10.2, eager and under jit: JaxRuntimeError("INTERNAL: CpuCallback error calling
    # callback: Traceback ...\nValueError: boom"), and "jax.<kind> failed" logged
    def bad(x):
        raise ValueError("boom")

    call = pyjax.pure_callback if kind == "pure_callback" else io_callback
    f = lambda x: call(bad, pyjax.ShapeDtypeStruct((), np.float32), x)
    with pytest.raises(pyjax.errors.JaxRuntimeError) as info:
        pyjax.block_until_ready((pyjax.jit(f) if jit else f)(1.0))
    msg = str(info.value)
    assert msg.startswith("INTERNAL: CpuCallback error calling callback: Traceback")
    assert msg.endswith("in bad\nValueError: boom")
    assert f"jax.{kind} failed" in caplog.text
    # debug.callback's exception reaches an eager caller as itself (as JAX)
    with pytest.raises(ValueError, match="boom"):
        pyjax.debug.callback(bad, 1.0)


def test_callback_failure_is_logged_under_jax_name_under_the_switch(monkeypatch, caplog):
    """Issue 24 (equinox's test_traceback_runtime_eqx): under the switch the failure record comes
    from JAX's logger, `jax._src.callback`, which equinox's filter_jit filters by name."""
    monkeypatch.setitem(sys.modules, "jax", pyjax)

    def bad(x):
        raise ValueError("boom")

    class DropFailures(logging.Filter):
        def filter(self, record):
            return record.getMessage() != "jax.pure_callback failed"

    f = pyjax.jit(lambda x: pyjax.pure_callback(bad, pyjax.ShapeDtypeStruct((), np.float32), x))
    with pytest.raises(pyjax.errors.JaxRuntimeError):
        pyjax.block_until_ready(f(1.0))
    assert [r.name for r in caplog.records if r.getMessage() == "jax.pure_callback failed"] == \
        ["jax._src.callback"]
    caplog.clear()
    drop = DropFailures()
    logging.getLogger("jax._src.callback").addFilter(drop)
    try:
        with pytest.raises(pyjax.errors.JaxRuntimeError):
            pyjax.block_until_ready(f(2.0))
    finally:
        logging.getLogger("jax._src.callback").removeFilter(drop)
    assert caplog.text == ""


def test_debug_callbacks_receive_arrays_and_print_them_as_jax(capsys):
    """Issue 23: as JAX 0.10.2, debug callbacks receive Arrays (NumPy values and Python numbers
    converted), eager and under jit, so arrays inside pytrees print as `Array(...)` (recorded)."""
    seen = []
    pyjax.debug.callback(lambda *a, **k: seen.append([type(v).__name__ for v in (*a, *k.values())]),
                         jnp.ones(2), 3.0, k=np.ones(1))
    pyjax.jit(lambda x: pyjax.debug.callback(lambda a: seen.append([type(a).__name__]), x))(jnp.ones(2))
    assert seen == [["ArrayImpl", "ArrayImpl", "ArrayImpl"], ["ArrayImpl"]]
    pyjax.debug.print("{} {x:.2f} {y}", jnp.arange(2.), x=jnp.float32(1.5), y=(jnp.int32(3), np.ones(1)))
    pyjax.jit(lambda v: pyjax.debug.print("{v} {w}", v=v, w={"a": v}))(jnp.arange(2.))
    assert capsys.readouterr().out.splitlines() == [
        "[0. 1.] 1.50 (Array(3, dtype=int32), Array([1.], dtype=float32))",
        "[0. 1.] {'a': Array([0., 1.], dtype=float32)}"]


def test_debug_callback_two_call_form_and_errors_as_jax(capsys):
    """JAX's debugging_primitives_test TwoCallPatternTest: options first, then the callback and
    its arguments; JAX 0.10.2's TypeErrors and words (recorded)."""
    pyjax.debug.callback(ordered=True)(print, "two", 1)
    assert lines(capsys) == ["two 1"]
    with pytest.raises(TypeError) as info:
        pyjax.debug.callback(None, 1, a=2)
    assert str(info.value) == ("debug_callback received unexpected arguments in the two-call "
                               "form: args=(1,) kwargs={'a': 2}")
    with pytest.raises(TypeError) as info:
        pyjax.debug.print(None, 1)
    assert str(info.value) == ("debug_print received unexpected arguments in the two-call form: "
                               "args=(1,) kwargs={}")
    with pytest.raises(TypeError) as info:
        pyjax.debug.callback(3)
    assert str(info.value) == ("first argument to jax.debug.callback must be callable, but got "
                               "an object of type <class 'int'>")


def test_debug_log_is_handled_whatever_the_level_and_prints_keys(capsys):
    """debug.log's record reaches the logger's handlers at its default level (JAX handles the
    record itself), from the user's line; debug.print of a key array prints the key array
    (JAX's test_debug_print_extended_dtype crashed here)."""
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)
    keep = Keep()
    logging.getLogger("pyjax.debug").addHandler(keep)
    try:
        assert pyjax.jit(lambda x: (pyjax.debug.log("x={}", x * x), x)[1])(2) == 2
    finally:
        logging.getLogger("pyjax.debug").removeHandler(keep)
    assert [r.getMessage() for r in records] == ["x=4"]
    assert records[0].levelno == logging.INFO and records[0].pathname == __file__
    pyjax.debug.print("{}", pyjax.random.key(0))
    assert lines(capsys) == ["Array((), dtype=key<fry>) overlaying:", "[0 0]"]


PARTITIONED = '''
import numpy as np, pyjax
from pyjax.sharding import NamedSharding, PartitionSpec as P
mesh = pyjax.make_mesh((1, 2), ("x", "z"))
arr = pyjax.device_put(np.arange(8).reshape(2, 4), NamedSharding(mesh, P("x", "z")))
f = pyjax.jit(lambda x: pyjax.debug.print("part: {}", x, partitioned=True))
text = f.lower(arr).as_text()
assert "xla_ffi_partitioned_python_cpu_callback" in text, text
with pyjax.set_mesh(mesh):
    f(arr)
pyjax.effects_barrier()
'''


def test_partitioned_debug_print_prints_each_shard():
    """partitioned=True: XLA's partitioned callback, called on each device's shard (JAX's
    PartitionedDebugCallbackTest); a compiled module without results runs over several
    devices."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", PARTITIONED], capture_output=True, text=True,
                         env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert sorted(res.stdout.splitlines()) == sorted(
        ["part: [[0 1]", " [4 5]]", "part: [[2 3]", " [6 7]]"])


def _but(*names):
    """A policy saving everything but the values named `names`."""
    def policy(prim, *_, **params):
        if prim is ad_checkpoint.name_p:
            return params["name"] not in names
        return True
    return policy


@pytest.mark.parametrize("policy,prints", [
    (pyjax.checkpoint_policies.everything_saveable, 1),
    (pyjax.checkpoint_policies.nothing_saveable, 2),
    (pyjax.checkpoint_policies.save_any_names_but_these("z"), 2),
    (pyjax.checkpoint_policies.dots_saveable, 2),
    (_but("y"), 1),
    (_but("y", "z"), 2),
])
def test_debug_print_under_remat_is_recomputed_as_jax(policy, prints, capsys):
    """JAX's rule (debugging_primitives_test test_remat_of_debug_print): a print the policy does
    not save runs again in the recomputation; one it saves, only when its inputs are recomputed
    anyway. The counts are JAX 0.10.2's."""
    def f(x):
        y = ad_checkpoint.checkpoint_name(x + 1., "y")
        z = ad_checkpoint.checkpoint_name(y * 2., "z")
        pyjax.debug.print("y: {}, z: {}", y, z)
        return ad_checkpoint.checkpoint_name(jnp.exp(z), "w")
    g = pyjax.grad(pyjax.checkpoint(f, policy=policy))(2.)
    pyjax.effects_barrier()
    assert lines(capsys) == ["y: 3.0, z: 6.0"] * prints
    np.testing.assert_allclose(g, 806.8576049804688, rtol=1e-6)


def test_io_callback_inside_checkpoint_cannot_be_differentiated():
    """Recomputing an io_callback would repeat its side effect: differentiating a checkpoint
    that calls one is JAX 0.10.2's NotImplementedError; a debug print is recomputed (twice)."""
    from pyjax.experimental import io_callback

    @pyjax.grad
    @pyjax.checkpoint
    def f(x, y):
        io_callback(lambda v: v, y, y)
        return x
    with pytest.raises(NotImplementedError,
                       match="Effects not supported in partial-eval of `checkpoint`"):
        f(2.0, 3.0)
    assert pyjax.grad(pyjax.checkpoint(lambda x: x * 2))(1.0) == 2.0
