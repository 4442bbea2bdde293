"""The configuration surface of JAX 0.10.2: every `jax.config` flag with JAX's default and value
checks, the top-level flag context managers, and the behaviour of the flags pyjax acts on
(dtype and rank promotion, explicit 64-bit dtypes, default matmul precision, debug_nans/infs,
enable_checks).

JAX's answers are recorded by tests/data/record_config.py (run with a real JAX) into
tests/data/jax_config.json; the same probes and sources are replayed here with pyjax.
"""
import importlib.util
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import config as config_lib

_HERE = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(_HERE, "jax_config.json")) as _f:
    DATA = json.load(_f)
_spec = importlib.util.spec_from_file_location("record_config",
                                               os.path.join(_HERE, "record_config.py"))
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)  # the probes and sources; imports jax only when run as a script

FLAGS = DATA["flags"]
DECLARED = {name: default for name, default, _ in config_lib._FLAGS}

# Behaviours where pyjax deliberately differs from JAX 0.10.2: id -> why.
DIFFERENCES = {
    "infs_eager": "pyjax checks the output of every eager operation; JAX 0.10.2 misses an inf "
                  "made by dividing a 1-d array by a Python 0.0 (it does catch the 0-d case)",
}


def test_every_jax_flag_exists_with_jax_default():
    assert set(FLAGS) == set(jax.config.values)
    wrong = {n: (FLAGS[n]["default"], record.encode(DECLARED[n])) for n in FLAGS
             if record.encode(DECLARED[n]) != FLAGS[n]["default"]}
    assert not wrong


def test_defaults_are_the_current_values_unless_set_in_the_environment():
    for name, default in DECLARED.items():
        if name.upper() not in os.environ and name != "jax_log_compiles":
            assert jax.config.values[name] == default, name


@pytest.mark.parametrize("name", sorted(n for n in FLAGS if "probes" in FLAGS[n]))
def test_update_checks_values_as_jax(name):
    want = FLAGS[name]["probes"]
    default = jax.config.values[name]
    got = {p: record.probe(jax.config, name, value, default) for p, value in record.PROBES.items()}
    assert got == want
    assert jax.config.values[name] == default  # probe restores it


def test_unknown_names():
    assert DATA["errors"] == {"update_unknown": "AttributeError", "getattr_unknown": "AttributeError"}
    with pytest.raises(AttributeError, match="Unrecognized config option: jax_bogus_flag"):
        jax.config.update("jax_bogus_flag", 1)
    with pytest.raises(AttributeError):
        jax.config.jax_bogus_flag


def test_reading_flags():
    assert jax.config.jax_enable_x64 is False or os.environ.get("JAX_ENABLE_X64")
    assert jax.config.read("jax_numpy_rank_promotion") == jax.config.jax_numpy_rank_promotion
    assert jax.config._read("jax_debug_nans") is False
    assert jax.config.values["jax_default_prng_impl"] == "threefry2x32"
    assert jax.config.jax_numpy_dtype_promotion == "standard"   # a str enum, as in JAX
    jax.config.parse_flags_with_absl()  # JAX's test files call it


def test_every_flag_is_acted_on_or_a_documented_no_op():
    assert config_lib.ACTED_ON | config_lib.NO_OPS == set(FLAGS)
    assert not config_lib.ACTED_ON & config_lib.NO_OPS
    assert set(config_lib.TRACE_FLAGS) <= config_lib.ACTED_ON


@pytest.mark.parametrize("name,flag", sorted(DATA["context_managers"].items()))
def test_top_level_context_managers(name, flag):
    state = getattr(jax, name)
    assert state.name == flag
    assert state.value == jax.config.values[flag]


def test_context_manager_and_decorator_restore_the_value():
    @jax.numpy_rank_promotion("raise")
    def strict_add(a, b):
        return a + b

    with pytest.raises(ValueError):
        strict_add(jnp.ones(2), jnp.ones((3, 2)))
    assert jax.config.jax_numpy_rank_promotion == "allow"
    with pytest.raises(KeyError):
        with jax.debug_nans(True):
            assert jax.config.jax_debug_nans
            raise KeyError
    assert jax.config.jax_debug_nans is False
    with jax.enable_x64():  # a boolean flag's context manager turns it on
        assert jnp.zeros(1).dtype == np.float64
    assert jnp.zeros(1).dtype == np.float32
    with jax.checking_leaks():
        assert jax.config.jax_check_tracer_leaks
    with jax.transfer_guard("disallow"):
        assert jax.config.jax_transfer_guard_host_to_device == "disallow"
    assert jax.config.jax_transfer_guard_host_to_device is None


@pytest.mark.parametrize("bid,settings,src", record.BEHAVIOURS, ids=[b[0] for b in record.BEHAVIOURS])
def test_behaviour_matches_jax(bid, settings, src):
    want = DATA["behaviours"][bid]
    got = record.run_behaviour(jax, jnp, lax, np, settings, src)
    if bid in DIFFERENCES:
        assert got != want, f"{bid} now matches JAX: remove it from DIFFERENCES"
        return
    assert got == want


def test_rank_promotion_messages_keep_jax_phrases():
    # as in JAX, the warning comes when `add` is traced for these shapes (then it is cached):
    # shapes no other test uses
    with jax.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match=r"Following NumPy automatic rank promotion for add "
                                             r"on shapes \(7,\) \(1, 7\)"):
            jnp.ones(7) + jnp.ones((1, 7))
    with jax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="Operands could not be broadcast together"):
            jnp.ones(2) * jnp.ones((3, 2))


def test_rank_promotion_flag_is_part_of_the_jit_cache_key():
    f = jax.jit(lambda a, b: a + b)
    assert f(jnp.ones(2), jnp.ones((1, 2))).shape == (1, 2)
    with jax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError):
            f(jnp.ones(2), jnp.ones((1, 2)))


def test_strict_promotion_error_names_the_dtypes():
    with jax.numpy_dtype_promotion("strict"):
        with pytest.raises(jax.dtypes.TypePromotionError, match="float32.*int32|int32.*float32"):
            jnp.ones(2, jnp.float32) + jnp.ones(2, jnp.int32)
        assert (jnp.ones(2, jnp.float32) * 2).dtype == np.float32   # weak scalars still promote


def test_explicit_x64_allow_keeps_64_bit_arrays_64_bit():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 'allow' never warns
        with _flag("jax_explicit_x64_dtypes", "allow"):
            x = jnp.arange(3, dtype=jnp.float64)
            y = jax.jit(lambda v: jnp.sin(v) * 2 + 1)(x)
            assert x.dtype == y.dtype == np.float64
            np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(3.0)) * 2 + 1, rtol=1e-15)


def test_default_matmul_precision_is_a_trace_setting():
    f = jax.jit(lambda a, b: a @ b)
    m = jnp.ones((2, 2))
    f(m, m)
    with jax.default_matmul_precision("highest"):
        text = str(jax.make_jaxpr(f)(m, m))
    assert "Precision.HIGHEST" in text
    assert "Precision.HIGHEST" not in str(jax.make_jaxpr(f)(m, m))


def test_debug_nans_names_the_primitive_inside_jit():
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
            jax.jit(lambda x: jnp.log(x) + 1)(jnp.full(3, -1.0))
    assert np.isnan(np.asarray(jax.jit(lambda x: jnp.log(x) + 1)(jnp.full(3, -1.0)))).all()


def test_enable_checks_checks_jaxprs_before_compiling(monkeypatch):
    seen = []
    from pyjax._src import core
    real = core.check_jaxpr
    monkeypatch.setattr(core, "check_jaxpr", lambda j: (seen.append(j), real(j))[1])
    with jax.enable_checks(True):
        jax.jit(lambda x: x * 3 - 1)(jnp.ones(4))
    assert seen
    seen.clear()
    jax.jit(lambda x: x * 5 - 1)(jnp.ones(4))
    assert not seen


class _flag:
    """Set a flag for a block (any flag, not only those with a top-level context manager)."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __enter__(self):
        self.prev = jax.config.values[self.name]
        jax.config.update(self.name, self.value)

    def __exit__(self, *exc):
        jax.config.update(self.name, self.prev)


def test_num_cpu_devices_takes_precedence_over_xla_flags():
    # JAX 0.10.2 makes the CPU client with jax_num_cpu_devices when it is set (equinox's test
    # conftest sets 2 under a CI that exports --xla_force_host_platform_device_count=8), and falls
    # back to the XLA flag only when it is not.
    child = ("import pyjax; pyjax.config.update('jax_num_cpu_devices', 2); "
             "print(len(pyjax.devices('cpu')), pyjax.device_count())")
    flag_only = "import pyjax; print(len(pyjax.devices('cpu')), pyjax.device_count())"
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
           "PYJAX_CACHE_DIR": ""}
    env.pop("JAX_NUM_CPU_DEVICES", None)
    for code, want in ((child, "2 2"), (flag_only, "8 8")):
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split("\n")[0].strip() == want


def test_config_x64_enabled_reads_the_flag():
    """Issue 23: JAX's `jax.config.x64_enabled` (JAX's test files read it)."""
    assert jax.config.x64_enabled is False
    with jax.enable_x64(True):
        assert jax.config.x64_enabled is True
    assert jax.config.x64_enabled is False


def test_flag_contexts_are_thread_local():
    """Issue 23 (JAX's x64_context_test.test_thread_safety): `with jax.enable_x64():` sets the
    flag for the current thread only, as JAX's; jit's caches (Python and C++) keep the threads'
    traces apart, and config.update inside a block changes the global value only."""
    import threading
    f = jax.jit(lambda x: x + np.int64(1))
    barrier = threading.Barrier(2)
    got = {}

    def run(x64):
        with jax.enable_x64(x64):
            barrier.wait()  # both threads are inside their blocks now
            for _ in range(3):  # the later calls take C++'s fast path
                got[x64] = (jnp.array(np.int64(0)).dtype, f(np.int32(1)).dtype,
                            jax.config.x64_enabled, jax.config.jax_enable_x64)
            barrier.wait()

    threads = [threading.Thread(target=run, args=(v,)) for v in (False, True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got[False] == (np.int32, np.int32, False, False)
    assert got[True] == (np.int64, np.int64, True, True)
    assert jnp.array(np.int64(0)).dtype == np.int32 and f(np.int32(1)).dtype == np.int32
    with jax.numpy_rank_promotion("raise"):
        jax.config.update("jax_numpy_rank_promotion", "warn")
        assert jax.config.jax_numpy_rank_promotion == "raise"  # the block's value
    try:
        assert jax.config.jax_numpy_rank_promotion == "warn"  # the global one
    finally:
        jax.config.update("jax_numpy_rank_promotion", "allow")


def test_transfer_guards_are_enforced():
    # as JAX 0.10.2 (checked against it): "disallow" refuses implicit host-to-device transfers
    # (a jit given a NumPy value) and lets explicit ones (device_put) and a jitted function's
    # constants through; "disallow_explicit" refuses device_put too (jaxlib's guard_lib)
    c = np.arange(2.)
    f = jax.jit(lambda v: v + c)
    x = jnp.ones(2)
    with jax.transfer_guard("disallow"):
        np.testing.assert_array_equal(f(x), [1., 2.])
        np.testing.assert_array_equal(jax.device_put(np.ones(2)), [1., 1.])
        with pytest.raises(RuntimeError, match="Disallowed host-to-device transfer"):
            jax.jit(lambda v: v)(np.ones(3))
    with jax.transfer_guard("disallow_explicit"):
        with pytest.raises(RuntimeError, match="Disallowed host-to-device transfer"):
            jax.device_put(np.ones(2))
    np.testing.assert_array_equal(jax.jit(lambda v: v)(np.ones(3)), [1., 1., 1.])
