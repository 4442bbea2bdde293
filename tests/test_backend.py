"""Tests of pyjax/_src/backend: jaxlib driven directly (put/readback, compile, run, caches)."""
import os
import subprocess
import sys
import textwrap
import zlib

import ml_dtypes
import numpy as np
import pytest

import pyjax
from pyjax._src.backend import cache as disk_cache
from pyjax._src.backend import cuda
from pyjax._src.backend import xla


class Aval:
    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape, self.dtype, self.weak_type = tuple(shape), np.dtype(dtype), weak_type


TINY = """
module @tiny {
  func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {
    %c = stablehlo.constant dense<2.0> : tensor<8xf32>
    %o = stablehlo.constant dense<1.0> : tensor<8xf32>
    %0 = stablehlo.multiply %x, %c : tensor<8xf32>
    %1 = stablehlo.add %0, %o : tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}"""

TWO_OUT = """
module @two_out {
  func.func public @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
    %0 = stablehlo.multiply %x, %y : tensor<2x3xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    return %0, %1 : tensor<2x3xf32>, tensor<3xf32>
  }
}"""

DONATE = """
module @donate {
  func.func public @main(%x: tensor<8xf32> {jax.buffer_donor = true}) -> tensor<8xf32> {
    %0 = stablehlo.negate %x : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}"""

F8 = Aval((8,), np.float32)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh persistent cache directory, used from the next compile on."""
    d = tmp_path / "cache"
    monkeypatch.setenv("PYJAX_CACHE_DIR", str(d))
    xla._reset_for_tests()
    yield d
    xla._reset_for_tests()


@pytest.fixture
def dev():
    return xla.devices()[0]


def put(x, dev, **kw):
    x = np.asarray(x)
    return xla.put(x, dev, Aval(x.shape, x.dtype), **kw)


# --- devices -------------------------------------------------------------------------------

def test_devices():
    devs = xla.devices()
    assert devs and all(isinstance(d, xla.Device) for d in devs)
    assert [d.id for d in devs] == sorted(d.id for d in devs)
    assert xla.default_backend() == "cpu"
    assert xla.device_count() == len(devs) == xla.local_device_count()
    assert xla.local_devices() == devs
    assert xla.process_index() == 0 and xla.process_count() == 1
    assert xla.get_client() is xla.get_client("cpu") is xla.get_client("host")
    with pytest.raises(RuntimeError, match="Unknown backend"):
        xla.get_client("tpu7")


@pytest.mark.skipif(cuda.plugin_installed(), reason="the CUDA plugin is installed")
@pytest.mark.parametrize("platform", ["gpu", "cuda"])
def test_absent_gpu_is_an_unknown_backend(platform):
    # JAX says "Unknown backend" for a GPU it does not have; chex's tests match those words
    with pytest.raises(RuntimeError, match="Unknown backend") as info:
        pyjax.devices(platform)
    assert "jax-cuda13-plugin" in str(info.value)


def test_never_imports_jax():
    code = ("import sys; from pyjax._src.backend import xla; import numpy as np\n"
            "d = xla.devices()[0]\n"
            "assert not any(m == 'jax' or m.startswith('jax.') for m in sys.modules), sys.modules.keys()\n"
            "assert 'jaxlib.mlir' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYJAX_CACHE_DIR": ""})


# --- host <-> device --------------------------------------------------------------------------

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64,
          np.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_roundtrip(dtype, dev):
    rng = np.random.default_rng(0)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        x = rng.random((3, 5)) > 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=(3, 5), dtype=dtype, endpoint=True)
    elif dtype.kind == "c":
        x = (rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))).astype(dtype)
    else:
        x = (rng.standard_normal((3, 5)) * 100).astype(dtype)
    y = xla.to_numpy(put(x, dev))
    assert y.dtype == dtype and y.shape == x.shape
    np.testing.assert_array_equal(y.view(np.uint8), x.view(np.uint8))  # bit-exact


@pytest.mark.parametrize("dtype", [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.int4,
                                   ml_dtypes.uint4], ids=lambda d: np.dtype(d).name)
def test_roundtrip_small_types(dtype, dev):
    x = np.arange(6).reshape(2, 3).astype(dtype)
    y = xla.to_numpy(put(x, dev))
    assert y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(y.astype(np.float32), x.astype(np.float32))


def test_roundtrip_scalar_and_empty_and_strided(dev):
    assert xla.to_numpy(put(np.float32(3.5), dev)) == np.float32(3.5)
    assert xla.to_numpy(put(np.zeros((0, 4), np.int32), dev)).shape == (0, 4)
    x = np.arange(24.0).reshape(4, 6)[:, ::2].T  # neither C- nor F-contiguous
    np.testing.assert_array_equal(xla.to_numpy(put(x, dev)), x)


def test_put_copies_unless_aliasing_is_allowed(dev):
    x = np.arange(8, dtype=np.float32)
    buf = put(x, dev)
    x[0] = 42
    assert xla.to_numpy(buf)[0] == 0
    buf2 = put(x, dev, may_alias=True)  # allowed to alias, never required to
    assert xla.to_numpy(buf2)[0] == 42


def test_put_converts_and_validates(dev):
    buf = xla.put(np.arange(3), dev, Aval((3,), np.float32))
    assert xla.to_numpy(buf).dtype == np.float32
    with pytest.raises(TypeError, match="object"):
        xla.put(np.array([object()]), dev, Aval((1,), np.float32))
    with pytest.raises(TypeError):
        xla.put(np.array(["a"]), dev, Aval((1,), np.float32))
    with pytest.raises(ValueError, match="shape"):
        xla.put(np.zeros(3, np.float32), dev, Aval((4,), np.float32))


def test_readback_is_read_only(dev):
    y = xla.to_numpy(put(np.arange(4.0), dev))
    with pytest.raises(ValueError):
        y[0] = 1.0


def test_deleted_buffer(dev):
    for x in (np.arange(4, dtype=np.float32), np.arange(4).astype(ml_dtypes.bfloat16)):
        buf = put(x, dev)
        buf.delete()
        with pytest.raises(RuntimeError, match="Array has been deleted"):
            xla.to_numpy(buf)


def test_to_numpy_rejects_non_buffers():
    with pytest.raises(TypeError):
        xla.to_numpy(object())


# --- compile and run ------------------------------------------------------------------------

def test_tiny_module(dev, cache_dir):
    exe = xla.compile(TINY, [dev], out_avals=[F8])
    x = np.arange(8, dtype=np.float32)
    (out,) = exe([put(x, dev)])
    assert out.aval is exe.out_avals[0]
    np.testing.assert_array_equal(xla.to_numpy(out), x * 2 + 1)
    (out2,) = exe([out])  # outputs feed back in as inputs
    np.testing.assert_array_equal(xla.to_numpy(out2), (x * 2 + 1) * 2 + 1)
    assert xla.block_until_ready([out, out2]) == [out, out2]
    assert exe.cost_analysis()["flops"] > 0
    assert "HloModule tiny" in exe.as_hlo_text()
    assert exe.xla_executable is not None


def test_two_outputs(dev, cache_dir):
    avals = [Aval((2, 3), np.float32), Aval((3,), np.float32, weak_type=True)]
    exe = xla.compile(TWO_OUT, [dev], out_avals=avals)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.full((2, 3), 0.5, np.float32)
    a, b = exe([put(x, dev), put(y, dev)])
    np.testing.assert_array_equal(xla.to_numpy(a), x * y)
    np.testing.assert_array_equal(xla.to_numpy(b), x.sum(0))
    assert b.aval.weak_type


def test_out_avals_count_is_checked(dev, cache_dir):
    with pytest.raises(ValueError, match="2 outputs"):
        xla.compile(TWO_OUT, [dev], out_avals=[F8])


def test_donation_deletes_input(dev, cache_dir):
    exe = xla.compile(DONATE, [dev], out_avals=[F8])
    x = put(np.arange(8, dtype=np.float32), dev)
    (out,) = exe([x])
    assert x.is_deleted()
    np.testing.assert_array_equal(xla.to_numpy(out), -np.arange(8, dtype=np.float32))
    with pytest.raises(RuntimeError, match="deleted"):
        xla.to_numpy(x)
    with pytest.raises(xla.JaxRuntimeError, match="deleted or donated"):
        exe([x])


@pytest.mark.parametrize("text", [
    "this is not mlir",
    "",
    "module @m { func.func public @main(%x: tensor<8xf32>) -> tensor<4xf32> { return %x : tensor<8xf32> } }",
])
def test_bad_module_raises(text, dev, cache_dir):
    with pytest.raises((xla.JaxRuntimeError, ValueError)):
        xla.compile(text, [dev], out_avals=[F8])
    assert not list(cache_dir.glob("*.pjx"))


def test_bad_arguments_raise(dev, cache_dir):
    exe = xla.compile(TINY, [dev], out_avals=[F8])
    with pytest.raises(xla.JaxRuntimeError):
        exe([])
    with pytest.raises(xla.JaxRuntimeError):
        exe([put(np.zeros(4, np.float32), dev)])
    with pytest.raises(TypeError):
        exe([np.zeros(8, np.float32)])
    with pytest.raises(ValueError):
        xla.compile(TINY, [], out_avals=[F8])
    with pytest.raises(TypeError):
        xla.compile(b"bytes", [dev], out_avals=[F8])


def test_host_callbacks(dev, cache_dir):
    text = """module @cb { func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {
      %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%x) {backend_config = "",
          mhlo.backend_config = {index = 0 : ui64}} : (tensor<8xf32>) -> tensor<8xf32>
      return %0 : tensor<8xf32> } }"""
    seen = []

    def times10(v):
        seen.append(np.array(v))
        return (np.asarray(v) * 10,)

    exe = xla.compile(text, [dev], out_avals=[F8], host_callbacks=[times10])
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(xla.to_numpy(exe([put(x, dev)])[0]), x * 10)
    np.testing.assert_array_equal(seen[0], x)
    xla.wait_for_cache_writes()
    assert not list(cache_dir.glob("*.pjx"))
    with pytest.raises(ValueError, match="invalid StableHLO"):
        xla.compile("garbage", [dev], out_avals=[F8], host_callbacks=[times10])


def test_memory_cache(dev, cache_dir):
    assert xla.compile(TINY, [dev], out_avals=[F8]).cache_source == "compiled"
    assert xla.compile(TINY, [dev], out_avals=[F8]).cache_source == "memory"
    assert xla.cache_stats()["compiles"] == 1 and xla.cache_stats()["memory_hits"] == 1
    xla.clear_caches()
    exe = xla.compile(TINY, [dev], out_avals=[F8])
    assert exe.cache_source == "disk" and exe.compile_time > 0
    assert xla.cache_stats()["disk_hits"] == 1


def test_x64_config_is_mirrored():
    from pyjax._src.config import config
    old = config.jax_enable_x64
    try:
        config.update("jax_enable_x64", True)
        assert xla._X64_STATE.value is True
        config.update("jax_enable_x64", False)
        assert xla._X64_STATE.value is False
    finally:
        config.update("jax_enable_x64", old)


# --- persistent cache -------------------------------------------------------------------------

SECOND_PROCESS = textwrap.dedent("""
    import numpy as np, sys
    from pyjax._src.backend import xla
    class Aval:
        def __init__(self, shape, dtype): self.shape, self.dtype, self.weak_type = shape, np.dtype(dtype), False
    d = xla.devices()[0]
    exe = xla.compile(sys.argv[1], [d], out_avals=[Aval((8,), np.float32)])
    out = xla.to_numpy(exe([xla.put(np.arange(8, dtype=np.float32), d, Aval((8,), np.float32))])[0])
    assert (out == np.arange(8, dtype=np.float32) * 2 + 1).all(), out
    s = xla.cache_stats()
    print("STATS", s["compiles"], s["disk_hits"], s["disk_errors"])
""")


def run_second_process(cache_path, text=TINY, log=False):
    env = {**os.environ, "PYJAX_CACHE_DIR": str(cache_path)}
    env.pop("PYJAX_LOG_COMPILES", None)
    if log:
        env["PYJAX_LOG_COMPILES"] = "1"
    r = subprocess.run([sys.executable, "-c", SECOND_PROCESS, text], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("STATS"))
    compiles, hits, errors = map(int, line.split()[1:])
    return {"compiles": compiles, "disk_hits": hits, "disk_errors": errors, "stderr": r.stderr}


def test_disk_cache_second_process_hits(dev, cache_dir):
    xla.compile(TINY, [dev], out_avals=[F8])
    xla.wait_for_cache_writes()  # entries are written in the background
    entries = list(cache_dir.glob("*.pjx"))
    assert len(entries) == 1 and xla.cache_dir() == str(cache_dir)
    r = run_second_process(cache_dir, log=True)
    assert r["compiles"] == 0 and r["disk_hits"] == 1
    assert "persistent cache hit" in r["stderr"]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "bad_payload", "empty"])
def test_disk_cache_damaged_entry_is_dropped(dev, cache_dir, damage):
    xla.compile(TINY, [dev], out_avals=[F8])
    xla.wait_for_cache_writes()
    (entry,) = cache_dir.glob("*.pjx")
    data = entry.read_bytes()
    if damage == "garbage":
        entry.write_bytes(os.urandom(len(data)))
    elif damage == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        entry.write_bytes(b"")
    else:  # a well-formed entry whose executable is junk: XLA itself must reject it
        header = disk_cache.MAGIC + bytes.fromhex(entry.name[: -len(disk_cache.SUFFIX)])
        entry.write_bytes(header + zlib.compress(b"not an executable" * 50))
    r = run_second_process(cache_dir)
    assert r["compiles"] == 1 and r["disk_hits"] == 0
    assert r["disk_errors"] == (1 if damage == "bad_payload" else 0)
    assert entry.read_bytes() != b"" and run_second_process(cache_dir)["disk_hits"] == 1  # rewritten


def test_disk_cache_disabled(dev, tmp_path, monkeypatch):
    monkeypatch.setenv("PYJAX_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    xla._reset_for_tests()
    try:
        assert xla.cache_dir() is None
        xla.compile(TINY, [dev], out_avals=[F8])
        s = xla.cache_stats()
        assert s["compiles"] == 1 and s["disk_misses"] == 0 and s["disk_writes"] == 0
        assert not list(tmp_path.rglob("*.pjx"))
    finally:
        xla._reset_for_tests()


def test_default_cache_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("PYJAX_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert disk_cache.default_dir() == os.path.join(str(tmp_path), "pyjax")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert disk_cache.default_dir() == os.path.join(os.path.expanduser("~"), ".cache", "pyjax")


def test_disk_cache_lru_eviction(tmp_path):
    c = disk_cache.DiskCache(tmp_path, max_bytes=10_000)
    keys = [disk_cache.make_key("entry", str(i)) for i in range(5)]
    for i, k in enumerate(keys):
        assert c.put(k, os.urandom(3000))  # incompressible: ~3 KB on disk each
        os.utime(c._file(k), (1000 + i, 1000 + i))  # deterministic ages
    # only the three most recent fit under the cap (each put evicts as needed)
    assert [c.get(k) is not None for k in keys] == [False, False, True, True, True]
    # (each get() above refreshed its entry); now make key 2 the most recently used
    for k, t in ((keys[3], 2000), (keys[4], 3000), (keys[2], 4000)):
        os.utime(c._file(k), (t, t))
    c.put(disk_cache.make_key("entry", "new"), os.urandom(3000))
    assert c.get(keys[2]) is not None and c.get(keys[3]) is None
    assert c.size() <= 10_000
    assert not c.put(disk_cache.make_key("huge"), os.urandom(20_000))  # larger than the cap


def test_disk_cache_unwritable_dir_is_not_fatal(dev, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("PYJAX_CACHE_DIR", str(blocker / "cache"))
    xla._reset_for_tests()
    try:
        exe = xla.compile(TINY, [dev], out_avals=[F8])
        assert exe is not None and xla.cache_stats()["disk_writes"] == 0
    finally:
        xla._reset_for_tests()


# --- multiple devices (in a subprocess: the device count is fixed per process) ----------------

MULTI = textwrap.dedent("""
    import numpy as np
    from pyjax._src.backend import xla
    class Aval:
        def __init__(self, shape, dtype): self.shape, self.dtype, self.weak_type = shape, np.dtype(dtype), False
    devs = xla.devices()
    assert len(devs) == 4, devs
    text = '''module @spmd attributes {mhlo.num_partitions = 4 : i32} {
      func.func public @main(%x: tensor<8x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"})
          -> (tensor<8x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
        %0 = stablehlo.add %x, %x : tensor<8x2xf32>
        return %0 : tensor<8x2xf32> } }'''
    aval = Aval((8, 2), np.float32)
    exe = xla.compile(text, devs, out_avals=[aval], num_partitions=4)
    X = np.arange(16, dtype=np.float32).reshape(8, 2)
    sh = xla.gspmd_sharding(devs, xla.HloSharding.iota_tile([4, 1]))
    gx = xla.put_sharded([X[2 * i:2 * i + 2] for i in range(4)], devs, aval, sh)
    np.testing.assert_array_equal(xla.to_numpy(gx), X)
    (out,) = exe([gx])
    np.testing.assert_array_equal(xla.to_numpy(out), 2 * X)

    # uneven tiling: XLA wants every shard padded to the same shape; readback trims
    import ml_dtypes
    two = devs[:2]
    Y = np.arange(15).reshape(5, 3).astype(ml_dtypes.bfloat16)
    sh2 = xla.gspmd_sharding(two, xla.HloSharding.iota_tile([2, 1]))
    gy = xla.put_sharded([Y[:3], np.concatenate([Y[3:], Y[:1]])], two, Aval((5, 3), Y.dtype), sh2)
    got = xla.to_numpy(gy)
    assert got.dtype == Y.dtype and (got == Y).all(), got

    # classic replicas (pmap-style): per-replica data through a tiled global aval
    rep = '''module @rep attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
      func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
        %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
          ^bb0(%a: tensor<f32>, %b: tensor<f32>):
            %s = stablehlo.add %a, %b : tensor<f32>
            stablehlo.return %s : tensor<f32>
        }) : (tensor<3xf32>) -> tensor<3xf32>
        return %0 : tensor<3xf32> } }'''
    G = Aval((12,), np.float32)
    tiled = xla.gspmd_sharding(devs, xla.HloSharding.iota_tile([4]))
    exe = xla.compile(rep, devs, out_avals=[G], num_replicas=4, out_shardings=[tiled])
    Z = np.arange(12, dtype=np.float32)
    gz = xla.put_sharded([Z[3 * i:3 * i + 3] for i in range(4)], devs, G, tiled)
    np.testing.assert_array_equal(xla.to_numpy(exe([gz])[0]), np.tile(Z.reshape(4, 3).sum(0), 4))
    print("OK")
""")


def test_multi_device_spmd():
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
           "PYJAX_CACHE_DIR": ""}
    r = subprocess.run([sys.executable, "-c", MULTI], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr


def test_shard_slices_uneven_and_replicated():
    hlo = xla.HloSharding.from_string("{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}")
    s = xla._shard_slices(hlo, (5, 3))
    assert s[0] == s[2] == (slice(0, 3), slice(0, 3))
    assert s[1] == s[3] == (slice(3, 5), slice(0, 3))


def test_large_aligned_put_may_alias(dev):
    raw = np.empty((1 << 16) + 16, np.float32)
    off = (-raw.ctypes.data % 64) // 4
    x = raw[off:off + (1 << 16)]
    x[:] = 1.0
    buf = put(x, dev, may_alias=True)
    assert buf.unsafe_buffer_pointer() == x.ctypes.data  # zero-copy
    assert put(x, dev).unsafe_buffer_pointer() != x.ctypes.data  # the default copies


def test_only_the_backend_imports_jaxlib():
    import pathlib
    import re
    root = pathlib.Path(xla.__file__).resolve().parents[2]  # the pyjax package
    pattern = re.compile(r"^\s*(import|from)\s+(jaxlib|jax)\b", re.MULTILINE)
    # (jax_alias.py imports `jax` once it is pyjax: the switch, tests/test_jax_alias.py)
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p != pathlib.Path(xla.__file__).resolve() and p.name != "jax_alias.py"
                 and pattern.search(p.read_text(errors="replace"))]
    assert not offenders, f"only pyjax/_src/backend/xla.py may import jaxlib (or jax): {offenders}"


_EXIT_FUNCS_CHILD = """
import atexit
import numpy as np
import pyjax, pyjax.numpy as jnp
a = jnp.ones(3)
f = pyjax.jit(lambda x: x * 2)
f(a)
atexit._run_exitfuncs()  # chex's tests run the exit functions and go on (so does JAX)
assert np.array_equal(f(a), [2, 2, 2]) and np.array_equal(a + 1, [2, 2, 2])
assert np.array_equal(pyjax.jit(lambda x: x - 1)(a), [0, 0, 0])
assert pyjax.tree_util.tree_leaves(((1, 2), {"a": 3})) == [1, 2, 3]  # optree still flattens
print("ok")
"""


def test_exit_functions_run_early_leave_the_backend_usable():
    # the process goes on after a program runs the exit functions itself; at the real exit
    # pyjax's shutdown runs again (re-registered) and the process ends cleanly
    r = subprocess.run([sys.executable, "-c", _EXIT_FUNCS_CHILD], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.split() == ["ok"], r.stderr[-3000:]
