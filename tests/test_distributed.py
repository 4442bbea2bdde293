"""pyjax.distributed and multihost_utils with real processes: two Python processes on localhost
(2 CPU devices each, a coordinator on a free port) run one program over a mesh spanning all 4
devices; their answers are checked against NumPy. A process that dies makes the other fail
with the distributed runtime's error within the heartbeat timeout instead of hanging.

Every launch is bounded (timeouts on the processes; leftovers are killed) and captures output.
"""
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
import time

import numpy as np
import pytest

import pyjax
from pyjax._src import clusters
from pyjax.experimental import multihost_utils

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PRELUDE = """
import json, os, sys
pid, port = int(sys.argv[1]), sys.argv[2]
import numpy as np
import pyjax, pyjax.numpy as jnp
from pyjax.sharding import NamedSharding, PartitionSpec as P
from pyjax.experimental import multihost_utils as mh
pyjax.distributed.initialize(f"localhost:{port}", num_processes=2, process_id=pid,
                             initialization_timeout=30, heartbeat_timeout_seconds=HEARTBEAT,
                             shutdown_timeout_seconds=20)
out = {}
def report():
    print("RESULT " + json.dumps(out), flush=True)
"""

# The program both processes run: the global data is known to both (so each can check), but
# each feeds only its own devices.
_PROGRAM = """
G = np.arange(32, dtype=np.float32).reshape(8, 4)
out["pi"], out["pc"] = pyjax.process_index(), pyjax.process_count()
out["ndev"], out["nlocal"] = pyjax.device_count(), pyjax.local_device_count()
out["local_pi"] = [d.process_index for d in pyjax.local_devices()]
out["all_pi"] = [d.process_index for d in pyjax.devices()]
mesh = pyjax.make_mesh((4,), ("x",))
rows = NamedSharding(mesh, P("x"))
x = pyjax.make_array_from_process_local_data(rows, G[4 * pid:4 * pid + 4])
out["shape"], out["fully_addressable"] = list(x.shape), x.is_fully_addressable
out["blocks"] = [[s.index[0].start, np.asarray(s.data).tolist()] for s in x.addressable_shards]
total = pyjax.jit(jnp.sum, out_shardings=NamedSharding(mesh, P()))(x)
out["sum"] = float(total)
# eager ops and device_put on a process-spanning layout run partitioned too
out["eager_sum"] = float(mh.process_allgather(jnp.sum(x * 2.0), tiled=True).reshape(-1)[0])
d = pyjax.device_put(G, NamedSharding(mesh, P(None, "x")))
out["put_blocks"] = [[s.index[1].start, np.asarray(s.data).tolist()] for s in d.addressable_shards]
# a sharded jit over a 2x2 mesh (one row of the mesh per process), checked shard by shard
mesh2 = pyjax.make_mesh((2, 2), ("proc", "dev"))
W = np.linspace(-1, 1, 4 * 6, dtype=np.float32).reshape(4, 6)
a = pyjax.make_array_from_callback((8, 4), NamedSharding(mesh2, P("proc", None)), lambda i: G[i])
w = pyjax.make_array_from_callback((4, 6), NamedSharding(mesh2, P(None, "dev")), lambda i: W[i])
f = pyjax.jit(lambda a, w: jnp.tanh(a @ w / 10.0),
              out_shardings=NamedSharding(mesh2, P("proc", "dev")))
y = f(a, w)
out["y_blocks"] = [[[s.index[0].start, s.index[1].start], np.asarray(s.data).tolist()]
                   for s in y.addressable_shards]
out["y_gathered"] = mh.process_allgather(y, tiled=True).tolist()
try:
    np.asarray(y)
except RuntimeError as e:
    out["read_error"] = str(e)
out["repr"], out["str"] = repr(y), str(y)
# multihost_utils
out["allgather_scalar"] = mh.process_allgather(np.float32(pid + 1)).tolist()
out["allgather_tiled"] = mh.process_allgather(np.full((2,), pid, np.int32), tiled=True).tolist()
out["bcast"] = mh.broadcast_one_to_all({"v": np.float32(10 * pid + 7)})["v"].tolist()
mh.sync_global_devices("step 1")
mh.assert_equal(np.arange(3))
try:
    mh.assert_equal(np.float32(pid))
except AssertionError:
    out["assert_equal_differs"] = True
g = mh.host_local_array_to_global_array(np.arange(4, dtype=np.float32) + 10 * pid, mesh, P("x"))
out["ltg_shape"] = list(g.shape)
out["ltg_sum"] = float(pyjax.jit(jnp.sum)(g))
back = mh.global_array_to_host_local_array(g, mesh, P("x"))
out["gtl"] = np.asarray(back).tolist()
singles = [pyjax.device_put(G[2 * i:2 * i + 2], d) for i, d in enumerate(mesh.devices.flat)
           if d.process_index == pid]
z = pyjax.make_array_from_single_device_arrays((8, 4), rows, singles)
out["z_sum"] = float(pyjax.jit(jnp.sum)(z))
try:
    pyjax.distributed.initialize(f"localhost:{port}", 2, pid)
except RuntimeError as e:
    out["second_init"] = str(e)
out["initialized"] = pyjax.distributed.is_initialized()
report()
pyjax.distributed.shutdown()
out["after_shutdown"] = pyjax.distributed.is_initialized()
report()
"""

# Process DEAD leaves right after joining; the other then needs it for a cross-process jit.
_DIES = """
mesh = pyjax.make_mesh((4,), ("x",))
x = pyjax.make_array_from_callback((8,), NamedSharding(mesh, P("x")), lambda i: np.arange(8.0)[i])
if pid == DEAD:
    os._exit(7)
import time; time.sleep(1)
print("computing", flush=True)
print(float(pyjax.jit(jnp.sum, out_shardings=NamedSharding(mesh, P()))(x)), flush=True)
print("UNREACHED", flush=True)
"""


def _free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _launch(tmp_path, body, heartbeat=10, timeout=90):
    """Run `body` in 2 processes; returns [(returncode, stdout, stderr, seconds)] by process."""
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(_PRELUDE).replace("HEARTBEAT", str(heartbeat)) + body)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               JAX_PLATFORMS="cpu", PYJAX_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    port = str(_free_port())
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, str(script), str(i), port], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    results = []
    try:
        for p in procs:
            left = max(1.0, timeout - (time.monotonic() - t0))
            stdout, stderr = p.communicate(timeout=left)
            results.append((p.returncode, stdout, stderr, time.monotonic() - t0))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return results


def _result(stdout):
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, stdout
    return [json.loads(ln[len("RESULT "):]) for ln in lines]


def test_two_processes_run_one_program_over_a_mesh_spanning_both(tmp_path):
    runs = _launch(tmp_path, _PROGRAM)
    for rc, stdout, stderr, _ in runs:
        assert rc == 0, f"rc={rc}\n{stdout}\n{stderr[-3000:]}"
    G = np.arange(32, dtype=np.float32).reshape(8, 4)
    W = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    Y = np.tanh(G @ W / 10.0)
    for pid, (_, stdout, _, _) in enumerate(runs):
        out, after = _result(stdout)
        assert (out["pi"], out["pc"], out["ndev"], out["nlocal"]) == (pid, 2, 4, 2)
        assert out["local_pi"] == [pid, pid] and out["all_pi"] == [0, 0, 1, 1]
        assert out["shape"] == [8, 4] and out["fully_addressable"] is False
        # this process's devices hold rows 4*pid .. 4*pid+3 of the global array
        assert [b[0] for b in out["blocks"]] == [4 * pid, 4 * pid + 2]
        for start, block in out["blocks"]:
            np.testing.assert_array_equal(block, G[start:start + 2])
        assert out["sum"] == G.sum()
        assert out["eager_sum"] == 2 * G.sum()
        assert [b[0] for b in out["put_blocks"]] == [2 * pid, 2 * pid + 1]
        for col, block in out["put_blocks"]:
            np.testing.assert_array_equal(block, G[:, col:col + 1])
        assert len(out["y_blocks"]) == 2
        for (r, c), block in out["y_blocks"]:
            assert r == 4 * pid
            np.testing.assert_allclose(block, Y[r:r + 4, c:c + 3], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(out["y_gathered"], Y, rtol=1e-5, atol=1e-6)
        assert "non-addressable" in out["read_error"]
        assert out["repr"] == out["str"] == "Array(shape=(8, 6), dtype=float32)"  # as JAX
        assert out["allgather_scalar"] == [1.0, 2.0]
        assert out["allgather_tiled"] == [0, 0, 1, 1]
        assert out["bcast"] == 7.0  # process 0's value everywhere
        assert out["assert_equal_differs"] is True
        assert out["ltg_shape"] == [8]
        assert out["ltg_sum"] == float(np.arange(4).sum() * 2 + 10 * 4)
        np.testing.assert_array_equal(out["gtl"], np.arange(4) + 10 * pid)
        assert out["z_sum"] == G.sum()
        assert "must be called before" in out["second_init"]
        assert out["initialized"] is True and after["after_shutdown"] is False


@pytest.mark.parametrize("dead", [1, 0], ids=["worker dies", "coordinator dies"])
def test_a_process_that_dies_makes_the_other_fail_within_the_heartbeat_timeout(tmp_path, dead):
    runs = _launch(tmp_path, _DIES.replace("DEAD", str(dead)), heartbeat=5, timeout=60)
    rc_dead = runs[dead][0]
    rc, out, err, seconds = runs[1 - dead]
    assert rc_dead == 7
    assert rc != 0, out  # not a hang (communicate would time out) and not a success
    assert "UNREACHED" not in out
    # the distributed runtime's own error: a peer stopped sending heartbeats, or the
    # coordination service (process 0) is gone
    want = "stopped sending heartbeats" if dead == 1 else "Failed to send RPC to coordination service"
    assert want in err, err[-3000:]
    assert seconds < 45


# -- in this (single-process) pytest process ---------------------------------------------------


def test_initialize_after_the_backend_exists_is_refused():
    pyjax.devices()
    with pytest.raises(RuntimeError, match="must be called before"):
        pyjax.distributed.initialize("localhost:1", num_processes=2, process_id=0)
    assert not pyjax.distributed.is_initialized()
    pyjax.distributed.shutdown()  # a no-op when not running


def test_initialize_checks_its_arguments_before_touching_the_network(tmp_path):
    script = tmp_path / "args.py"
    script.write_text(textwrap.dedent("""
        import pyjax
        cases = [dict(num_processes=2, process_id=0),
                 dict(coordinator_address="localhost:1", process_id=0),
                 dict(coordinator_address="localhost:1", num_processes=2),
                 dict(coordinator_address="localhost:1", num_processes=2, process_id="0"),
                 dict(coordinator_address="localhost:1", num_processes=2.0, process_id=0),
                 dict(coordinator_address="localhost:1", num_processes=2, process_id=2)]
        for kw in cases:
            try:
                pyjax.distributed.initialize(**kw)
            except (ValueError, TypeError) as e:
                print(type(e).__name__, "|", e)
        print("initialized", pyjax.distributed.is_initialized())
    """))
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_COORDINATOR_ADDRESS="")
    env.pop("JAX_COORDINATOR_ADDRESS")
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=60)
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    assert [ln.split(" | ")[0] for ln in lines[:-1]] == [
        "ValueError", "ValueError", "ValueError", "TypeError", "TypeError", "ValueError"]
    assert "coordinator_address should be defined" in lines[0]
    assert "process_id=2, num_processes=2" in lines[5]
    assert lines[-1] == "initialized False"


def test_multihost_utils_with_one_process_are_local_operations():
    assert multihost_utils.process_allgather(np.float32(3)).tolist() == [3.0]
    np.testing.assert_array_equal(multihost_utils.process_allgather(np.arange(3), tiled=True),
                                  np.arange(3))
    out = multihost_utils.broadcast_one_to_all({"a": np.arange(2)})
    np.testing.assert_array_equal(out["a"], np.arange(2))
    multihost_utils.sync_global_devices("one")
    multihost_utils.assert_equal([np.ones(2), 3])
    assert multihost_utils.reached_preemption_sync_point(5) is False
    mesh = pyjax.make_mesh((1,), ("x",))
    P = pyjax.sharding.PartitionSpec
    g = multihost_utils.host_local_array_to_global_array({"w": np.arange(4.0)}, mesh, P("x"))
    assert g["w"].sharding == pyjax.sharding.NamedSharding(mesh, P("x"))
    back = multihost_utils.global_array_to_host_local_array(g, mesh, {"w": P("x")})
    np.testing.assert_array_equal(back["w"], np.arange(4.0))
    with pytest.raises(ValueError, match="pspecs"):
        multihost_utils.host_local_array_to_global_array(np.arange(4.0), mesh, None)


# -- cluster detection: initialize() with no arguments under a launcher (issue 26) -------------

_CLUSTER_VARS = ("SLURM_JOB_ID", "SLURM_STEP_NODELIST", "SLURM_NTASKS", "SLURM_PROCID",
                 "SLURM_LOCALID", "OMPI_MCA_orte_hnp_uri", "OMPI_COMM_WORLD_SIZE",
                 "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "JAX_COORDINATOR_PORT",
                 "JAX_COORDINATOR_ADDRESS", "JAX_LOCAL_DEVICE_IDS")


@pytest.fixture
def no_cluster(monkeypatch):
    for v in _CLUSTER_VARS:
        monkeypatch.delenv(v, raising=False)
    return monkeypatch


def test_coordinator_addresses_match_jax(no_cluster):
    want = json.loads((Path(__file__).parent / "data" / "jax_clusters.json").read_text())
    no_cluster.setenv("SLURM_JOB_ID", "123456")
    for nodes, address in want["slurm"].items():
        no_cluster.setenv("SLURM_STEP_NODELIST", nodes)
        assert clusters.SlurmCluster.get_coordinator_address(None, None) == address, nodes
    assert clusters.SlurmCluster.get_coordinator_address(None, "1234") == want["slurm_override"]
    for uri, address in want["ompi"].items():
        no_cluster.setenv("OMPI_MCA_orte_hnp_uri", uri)
        assert clusters.OmpiCluster.get_coordinator_address(None, None) == address, uri
    # JAX's detection order among the environments pyjax has (Kubernetes and TPUs: not in pyjax)
    names = [c.name for c in clusters.ClusterEnv._cluster_types]
    assert names == [n for n in want["order"] if n in names] == ["ompi", "slurm", "mpi4py"]


def test_detection_fills_only_the_unset_arguments(no_cluster):
    detect = clusters.ClusterEnv.auto_detect_unset_distributed_params
    assert detect(None, None, None, None, None, 30) == (None, None, None, None)  # nothing found
    for k, v in dict(SLURM_JOB_ID="7", SLURM_STEP_NODELIST="n[3-4]", SLURM_NTASKS="4",
                     SLURM_PROCID="2", SLURM_LOCALID="0").items():
        no_cluster.setenv(k, v)
    assert detect(None, None, None, None, None, 30) == ("n3:61447", 4, 2, [0])
    assert detect("h:1", 8, None, [3], None, 30) == ("h:1", 8, 2, [3])
    no_cluster.setenv("JAX_COORDINATOR_PORT", "4321")
    assert detect(None, 4, 2, [0], None, 30)[0] == "n3:4321"
    # Open MPI comes first when both are present; mpi4py answers only when named
    no_cluster.setenv("OMPI_MCA_orte_hnp_uri", "8192.0;tcp://10.0.0.5:77")
    for k, v in dict(OMPI_COMM_WORLD_SIZE="2", OMPI_COMM_WORLD_RANK="1",
                     OMPI_COMM_WORLD_LOCAL_RANK="1").items():
        no_cluster.setenv(k, v)
    assert detect(None, None, None, None, None, 30) == ("10.0.0.5:4321", 2, 1, [1])
    assert detect(None, None, None, None, "slurm", 30) == ("n3:4321", 4, 2, [0])
    assert detect(None, None, None, None, "no such launcher", 30) == (None, None, None, None)


def _launch_detected(tmp_path, envs, timeout=90):
    """Run one program in 2 processes, process i with the variables envs[i] (and no others of a
    launcher); each calls initialize() with no arguments and reports what it joined."""
    script = tmp_path / "detected.py"
    script.write_text(textwrap.dedent("""
        import json
        import numpy as np
        import pyjax, pyjax.numpy as jnp
        from pyjax.sharding import NamedSharding, PartitionSpec as P
        pyjax.distributed.initialize(initialization_timeout=30, shutdown_timeout_seconds=20)
        mesh = pyjax.make_mesh((pyjax.device_count(),), ("x",))
        x = pyjax.make_array_from_callback((8,), NamedSharding(mesh, P("x")),
                                           lambda i: np.arange(8.0)[i])
        total = pyjax.jit(jnp.sum, out_shardings=NamedSharding(mesh, P()))(x)
        print("RESULT " + json.dumps([pyjax.process_index(), pyjax.process_count(),
                                      pyjax.device_count(), float(total)]), flush=True)
        pyjax.distributed.shutdown()
    """))
    base = {k: v for k, v in os.environ.items() if k not in _CLUSTER_VARS}
    base.update(XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu",
                PYJAX_CACHE_DIR=str(tmp_path / "cache"),
                PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, str(script)], env={**base, **env},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for env in envs]
    results = []
    try:
        for p in procs:
            stdout, stderr = p.communicate(timeout=timeout)
            assert p.returncode == 0, f"{stdout}\n{stderr[-3000:]}"
            results.append(_result(stdout)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return results


def _free_job_port():
    """A free port in the launchers' range (61440-65535), so that a job id can name it."""
    for port in np.random.RandomState(os.getpid()).permutation(4096) + 61440:
        with socket.socket() as s:
            try:
                s.bind(("localhost", int(port)))
            except OSError:
                continue
            return int(port)
    pytest.skip("no free port in 61440-65535")


def test_initialize_with_no_arguments_under_slurm(tmp_path):
    port = _free_job_port()
    job = str(3 * 4096 + port - 61440)  # the job id's port is job % 4096 + 61440
    envs = [dict(SLURM_JOB_ID=job, SLURM_STEP_NODELIST="localhost", SLURM_NTASKS="2",
                 SLURM_PROCID=str(i), SLURM_LOCALID=str(i)) for i in range(2)]
    # (SLURM_LOCALID asks for one device per process: on a GPU; the CPU devices stay visible)
    for pid, (pi, pc, ndev, total) in enumerate(_launch_detected(tmp_path, envs)):
        assert (pi, pc, ndev, total) == (pid, 2, 4, 28.0)


def test_initialize_with_no_arguments_under_open_mpi(tmp_path):
    port = _free_job_port()
    uri = f"{(port - 61440) * 4096}.0;tcp://127.0.0.1,10.1.1.1:5000"
    envs = [dict(OMPI_MCA_orte_hnp_uri=uri, OMPI_COMM_WORLD_SIZE="2",
                 OMPI_COMM_WORLD_RANK=str(i), OMPI_COMM_WORLD_LOCAL_RANK=str(i))
            for i in range(2)]
    for pid, (pi, pc, ndev, total) in enumerate(_launch_detected(tmp_path, envs)):
        assert (pi, pc, ndev, total) == (pid, 2, 4, 28.0)
