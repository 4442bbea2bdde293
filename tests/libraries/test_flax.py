"""flax 0.12.8 (linen) on pyjax: a CNN with Conv, BatchNorm (mutable batch_stats), Dropout
(rngs) and avg_pool, initialised from PRNGKey(0) and trained 4 jitted steps with a TrainState
and optax.adam, then evaluated, and an nn.Sequential MLP; against JAX 0.10.2's recorded numbers
(tests/data/record_flax.py)."""
import numpy as np
import pytest

from libgroup import recorded, require, run_program

require("flax", "optax")


@pytest.fixture(scope="module")
def results():
    return run_program("prog_flax"), recorded("flax")["result"]


def test_init(results):
    got, want = results
    assert got["param_shapes"] == want["param_shapes"]
    np.testing.assert_allclose(got["init_kernel"], want["init_kernel"], rtol=1e-6)
    np.testing.assert_allclose(got["init_dense_sum"], want["init_dense_sum"], rtol=1e-5)


def test_train_state_steps(results):
    got, want = results
    assert got["step"] == want["step"] == 4
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5)
    np.testing.assert_allclose(got["bn_mean"], want["bn_mean"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["eval_logits"], want["eval_logits"], rtol=1e-5, atol=1e-6)


def test_sequential_mlp(results):
    got, want = results
    np.testing.assert_allclose(got["mlp"], want["mlp"], rtol=1e-5, atol=1e-6)


# -- flax.nnx ------------------------------------------------------------------------------------


def test_nnx_imports():
    # nnx subclasses jax.experimental.hijax's classes and reads jax._src.tree_util._registry at
    # import; the compat modules make that work
    import subprocess
    import sys
    code = "import pyjax; pyjax.as_jax()\nfrom flax import nnx\nprint(nnx.Linear.__name__)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["Linear"]


def test_nnx_program():
    got, want = run_program("prog_nnx"), recorded("nnx")["result"]
    np.testing.assert_allclose(got["init_l1"], want["init_l1"], rtol=1e-6)
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5)
    np.testing.assert_allclose(got["eval"], want["eval"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["bn_mean"], want["bn_mean"], rtol=1e-5, atol=1e-6)
