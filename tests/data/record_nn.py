"""Record JAX 0.10.2's jax.nn results: every activation on a grid of edge values (and their
gradients), the softmax family, standardize, one_hot, glu, dot_product_attention and the
block-scaled matmuls (values, dtypes, weak types, exception classes, warnings).

Run with the reference JAX environment (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_nn.py
It writes tests/data/nn.json; tests/test_nn.py executes the same PRELUDE with `jax`/`jnp` bound
to pyjax and evaluates the same expressions.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from recorded_cases import evaluate_cases  # noqa: E402

PRELUDE = '''
X = np.array([-np.inf, -100., -20., -6., -3., -1., -0.5, -1e-3, -1e-30, 0., 1e-30, 1e-3, 0.5,
              1., 3., 6., 20., 100., np.inf, np.nan], np.float32)
XP = np.array([0., 1e-30, 1e-6, 1e-3, 0.1, 0.69, 0.7, 1., 5., 20., 100., np.inf, np.nan], np.float32)
XB = X.astype(jnp.bfloat16)
XH = X.astype(np.float16)
I = np.arange(-3, 4, dtype=np.int32)
rng = np.random.default_rng(0)
M = (rng.normal(size=(3, 4)) * 3).astype(np.float32)
BW = rng.normal(size=(3, 4)).astype(np.float32)
MASK = rng.random((3, 4)) < 0.6
MASK[1] = False
LABELS = np.array([[0, 2, 5], [-1, 1, 3]], np.int32)
Q = rng.normal(size=(2, 5, 4, 8)).astype(np.float32)
K = rng.normal(size=(2, 6, 2, 8)).astype(np.float32)
V = rng.normal(size=(2, 6, 2, 8)).astype(np.float32)
BIAS = rng.normal(size=(2, 4, 5, 6)).astype(np.float32)
AMASK = rng.random((1, 1, 5, 6)) < 0.7
QLEN = np.array([3, 5], np.int32)
KVLEN = np.array([6, 2], np.int32)
A3 = np.ones((1, 2, 32), np.float32)
S3 = np.ones((1, 2, 1), np.float32)
dpa = jax.nn.dot_product_attention
'''

ELEMENTWISE = ["identity", "relu", "relu6", "leaky_relu", "hard_tanh", "hard_sigmoid", "hard_silu",
               "hard_swish", "elu", "celu", "selu", "sigmoid", "softplus", "log_sigmoid", "silu",
               "swish", "mish", "squareplus", "soft_sign", "sparse_plus", "sparse_sigmoid", "gelu",
               "tanh"]

CASES = [
    *[f"jax.nn.{n}(X)" for n in ELEMENTWISE],
    *[f"jax.vmap(jax.grad(jax.nn.{n}))(X)" for n in ELEMENTWISE],
    "jax.nn.gelu(X, approximate=False)", "jax.vmap(jax.grad(lambda x: jax.nn.gelu(x, False)))(X)",
    "jax.nn.log1mexp(XP)", "jax.vmap(jax.grad(jax.nn.log1mexp))(XP)", "jax.nn.log1mexp(-XP)",
    "jax.nn.elu(X, 0.5)", "jax.nn.celu(X, alpha=2.0)", "jax.nn.leaky_relu(X, 0.2)",
    "jax.nn.squareplus(X, 1.0)", "jax.nn.elu(X, jnp.float32(0.3))",
    # dtypes: integers, Python scalars (weak), half precision
    *[f"jax.nn.{n}(I)" for n in ("relu", "relu6", "sigmoid", "softplus", "gelu", "silu",
                                 "leaky_relu", "hard_tanh", "elu", "identity", "soft_sign")],
    "jax.nn.relu(2.0)", "jax.nn.relu(-2)", "jax.nn.sigmoid(0.5)", "jax.nn.gelu(1.0)",
    "jax.nn.softplus(3)", "jax.nn.log1mexp(1.0)",
    *[f"jax.nn.{n}(XB)" for n in ("relu", "sigmoid", "softplus", "gelu", "silu", "log_sigmoid",
                                  "elu", "mish")],
    "jax.nn.gelu(XB, approximate=False)", "jax.nn.gelu(XH)", "jax.nn.gelu(XH, approximate=False)",
    "jax.nn.softplus(XH)",
    # the softmax family
    "jax.nn.softmax(M)", "jax.nn.softmax(M, axis=0)", "jax.nn.softmax(M, axis=None)",
    "jax.nn.softmax(M, where=MASK)", "jax.nn.log_softmax(M, axis=(0, 1))",
    "jax.nn.log_softmax(M, where=MASK)", "jax.nn.softmax(jnp.array([1.0, jnp.inf]))",
    "jax.nn.softmax(jnp.array([-jnp.inf, -jnp.inf]))", "jax.nn.softmax(I)",
    "jax.grad(lambda m: jax.nn.softmax(m, where=MASK)[0, 1])(M)",
    "jax.grad(lambda m: jax.nn.log_softmax(m)[2, 0])(M)",
    "jax.nn.logsumexp(M)", "jax.nn.logsumexp(M, axis=0)", "jax.nn.logsumexp(M, axis=1, keepdims=True)",
    "jax.nn.logsumexp(M, b=BW)", "jax.nn.logsumexp(M, axis=1, b=BW, return_sign=True)",
    "jax.nn.logsumexp(M, axis=1, b=BW)", "jax.nn.logsumexp(M, axis=1, where=MASK)",
    "jax.nn.logsumexp(jnp.array([-jnp.inf, -jnp.inf]))", "jax.nn.logsumexp(jnp.array([jnp.inf, 1.0]))",
    "jax.nn.logsumexp(jnp.array([1000.0, 1000.0]))", "jax.nn.logsumexp(I)",
    "jax.nn.logsumexp(M.astype(np.complex64), axis=1)",
    "jax.grad(lambda m: jax.nn.logsumexp(m, b=BW))(M)",
    "jax.grad(lambda m: jax.nn.logsumexp(m, axis=1, where=MASK).sum())(M)",
    "jax.nn.logmeanexp(M)", "jax.nn.logmeanexp(M, axis=1)", "jax.nn.logmeanexp(M, axis=0, keepdims=True)",
    "jax.nn.logmeanexp(M, axis=1, where=MASK)", "jax.nn.logmeanexp(I)",
    # standardize
    "jax.nn.standardize(M)", "jax.nn.standardize(M, axis=0)", "jax.nn.standardize(M, axis=None)",
    "jax.nn.standardize(M, algorithm='stable')", "jax.nn.standardize(M + 1e4)",
    "jax.nn.standardize(M + 1e4, algorithm='stable')", "jax.nn.standardize(M, where=MASK)",
    "jax.nn.standardize(M, mean=1.0, variance=4.0)", "jax.nn.standardize(M, epsilon=1.0)",
    "jax.nn.standardize(M, algorithm='nope')", "jax.nn.standardize(I)",
    "jax.grad(lambda m: (jax.nn.standardize(m) * BW).sum())(M)",
    # one_hot
    "jax.nn.one_hot(LABELS, 4)", "jax.nn.one_hot(LABELS, 4, axis=0)", "jax.nn.one_hot(LABELS, 4, axis=1)",
    "jax.nn.one_hot(LABELS, 3, dtype=jnp.int32)", "jax.nn.one_hot(LABELS, 3, dtype=jnp.bool_)",
    "jax.nn.one_hot(LABELS.astype(np.float32), 4)", "jax.nn.one_hot(2, 3)",
    "jax.nn.one_hot(LABELS, 4, axis=3)", "jax.nn.one_hot(LABELS, 0)",
    "jax.nn.one_hot(LABELS.astype(np.uint8), 3)",
    "jax.vmap(lambda i: jax.nn.one_hot(i, 3, axis='b'), axis_name='b')(jnp.array([2, 1, 0]))",
    "jax.vmap(lambda i: jax.nn.one_hot(i, 4, axis='b'), axis_name='b')(jnp.array([2, 1, 0]))",
    "jax.jit(jax.nn.one_hot, static_argnums=1)(LABELS, 3)",
    # glu
    "jax.nn.glu(M)", "jax.nn.glu(M.T, axis=0)", "jax.nn.glu(M, axis=0)",
    "jax.grad(lambda m: jax.nn.glu(m).sum())(M)",
    # attention
    "dpa(Q, K, V)", "dpa(Q, K, V, BIAS, AMASK, is_causal=True)", "dpa(Q, K, V, scale=0.5)",
    "dpa(Q, K, V, local_window_size=(1, 2), query_seq_lengths=QLEN, key_value_seq_lengths=KVLEN, return_residual=True)",
    "dpa(Q, K, V, local_window_size=1)", "dpa(Q, K, V, BIAS[:, :1], implementation='xla')",
    "dpa(Q[0], K[0], V[0], BIAS[0, :1])", "dpa(Q, K, V, is_causal=True, return_residual=True)",
    "dpa(Q[:, :, :2], K, V, mask=np.zeros((1, 1, 5, 6), bool))", "dpa(Q, K[:, :, :1], V[:, :, :1])",
    "dpa(Q.astype(jnp.bfloat16), K.astype(jnp.bfloat16), V.astype(jnp.bfloat16))",
    "dpa(Q, K, V, query_seq_lengths=QLEN)",
    "jax.grad(lambda q, k, v: dpa(q, k, v, BIAS, is_causal=True).sum(), argnums=(0, 1, 2))(Q, K, V)",
    "jax.vmap(dpa)(Q[None], K[None], V[None])",
    "dpa(Q, K, V, implementation='cudnn')", "dpa(Q, K, V, implementation='nope')",
    "dpa(Q[:, :, :3], K, V)", "dpa(Q, K, V, mask=AMASK.astype(np.int32))", "dpa(Q, K, V[:, :4])",
    "dpa(Q, K.astype(jnp.bfloat16), V)", "dpa(Q, K, V, query_seq_lengths=QLEN.astype(np.int64))",
    "dpa(Q, K, V, BIAS[0])",
    # block-scaled matmuls
    "jax.nn.scaled_matmul(A3, A3, S3, S3)", "jax.nn.scaled_matmul(A3[0], A3, S3, S3)",
    "jax.nn.scaled_matmul(A3, A3[:, :, :16], S3, S3)", "jax.nn.scaled_matmul(A3, A3, S3[:, :1], S3)",
    "repr(jax.nn.get_scaled_dot_general_config('mxfp8'))",
    "repr(jax.nn.get_scaled_dot_general_config('nvfp4'))",
    "repr(jax.nn.get_scaled_dot_general_config('nvfp4', jnp.array([0.5])))",
    "jax.nn.get_scaled_dot_general_config('int8')",
    "jax.nn.scaled_dot_general(M, BW.T, (((1,), (0,)), ((), ())))",
    "jax.nn.scaled_dot_general(M, BW.T, (((1,), (0,)), ((), ())), preferred_element_type=jnp.bfloat16)",
    "jax.nn.scaled_dot_general(A3, A3, (((2,), (2,)), ((0,), (0,))), configs=[jax.nn.get_scaled_dot_general_config('mxfp8')] * 3)",
]

if __name__ == "__main__":
    results = evaluate_cases(PRELUDE, CASES, {"jax": jax, "jnp": jnp, "np": np})
    out = {"jax_version": jax.__version__, "prelude": PRELUDE, "cases": results}
    (HERE / "nn.json").write_text(json.dumps(out, indent=0) + "\n")
    print(len(results), "cases;", sum("error" in r for r in results.values()), "raise")
