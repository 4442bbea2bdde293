"""Record what JAX 0.10.2 gives for the sparse cases (jax.scipy.sparse.linalg iterates and
jax.experimental.sparse layouts, nse and errors).

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_sparse.py
writes tests/data/sparse.json: {"prelude": ..., "cases": {expression: encoded result}}, which
tests/test_sparse.py and tests/test_scipy_sparse.py evaluate again on pyjax.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import sparse
from jax.scipy.sparse import linalg as sla

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from recorded_cases import evaluate_cases  # noqa: E402

PRELUDE = """
rs = np.random.RandomState(0)
A = (rs.randn(6, 6) + 6 * np.eye(6)).astype(np.float32)
S = (A @ A.T + np.eye(6)).astype(np.float32)
b = rs.randn(6).astype(np.float32)
D = np.array([[0., 1., 0., 2.], [0., 0., 0., 0.], [3., 0., 4., 0.]], np.float32)
D3 = np.array([[[0., 1.], [2., 0.]], [[0., 0.], [5., 6.]]], np.float32)
def parts(m):
    return (m.data, m.indices, m.shape, m.nse, m.n_batch, m.n_dense)
"""

SOLVER_CASES = [
    # partial solves: the iterates themselves (deterministic algorithms)
    "sla.gmres(A, b, restart=2, maxiter=1, solve_method='batched')",
    "sla.gmres(A, b, restart=2, maxiter=1, solve_method='incremental')",
    "sla.gmres(A, b, restart=3, maxiter=2, solve_method='incremental')",
    "sla.gmres(A, b, restart=3, maxiter=2, solve_method='batched')",
    "sla.gmres(A, b, restart=2, maxiter=1, M=np.diag(1 / np.diag(A)).astype(np.float32))",
    "sla.bicgstab(A, b, maxiter=1)",
    "sla.bicgstab(A, b, maxiter=2, M=np.diag(1 / np.diag(A)).astype(np.float32))",
    "sla.cg(S, b, maxiter=3)",
    "sla.gmres(A, b, solve_method='other')",
    "sla.bicgstab(np.ones((2, 3), np.float32), np.ones(2, np.float32))",
    "sla.gmres(A, b, x0=np.zeros(3, np.float32))",
    "sla.gmres(A, {'a': b})",
]

SPARSE_CASES = [
    "parts(sparse.BCOO.fromdense(D))",
    "parts(sparse.BCOO.fromdense(D, nse=5))",
    "parts(sparse.BCOO.fromdense(D, n_batch=1))",
    "parts(sparse.BCOO.fromdense(D, n_dense=1))",
    "parts(sparse.BCOO.fromdense(D3, n_batch=1))",
    "parts(sparse.BCOO.fromdense(D3, n_batch=1, n_dense=1))",
    "parts(sparse.BCOO.fromdense(D3, n_batch=2))",
    "parts(sparse.BCOO.fromdense(D).T)",
    "parts(sparse.BCOO.fromdense(D, nse=6).sum_duplicates())",
    "parts(sparse.BCOO.fromdense(D, nse=6).sum_duplicates(nse=6))",
    "parts(sparse.BCOO.fromdense(D3, n_batch=1).sum_duplicates())",
    "parts(sparse.BCOO((np.array([1., 2., 3.], np.float32), np.array([[0, 1], [0, 1], [2, 0]])), shape=(3, 4)).sum_duplicates())",
    "parts(sparse.BCOO((np.array([1., 2., 3.], np.float32), np.array([[2, 1], [0, 3], [0, 1]])), shape=(3, 4)).sort_indices())",
    "parts(sparse.bcoo_update_layout(sparse.BCOO.fromdense(D3, n_batch=1), n_batch=0))",
    "parts(sparse.bcoo_update_layout(sparse.BCOO.fromdense(D3), n_batch=1))",
    "parts(sparse.bcoo_update_layout(sparse.BCOO.fromdense(D3), n_dense=1))",
    "parts(sparse.BCOO.fromdense(D3, n_batch=1).reshape(2, 4))",
    "parts(sparse.BCOO.fromdense(D) * sparse.BCOO.fromdense(D))",
    "parts(sparse.BCOO.fromdense(D) @ sparse.BCOO.fromdense(D.T))",
    "parts(sparse.bcoo_reduce_sum(sparse.BCOO.fromdense(D), axes=(0,)))",
    "parts(sparse.bcoo_slice(sparse.BCOO.fromdense(D), start_indices=(1, 1), limit_indices=(3, 3)))",
    "parts(sparse.bcoo_concatenate([sparse.BCOO.fromdense(D), sparse.BCOO.fromdense(D)], dimension=0))",
    "parts(sparse.eye(3))",
    "parts(sparse.eye(3, 4, k=1))",
    # eye with batch and dense dimensions: JAX's layouts (one entry per batch row, or fromdense)
    "parts(sparse.eye(5, 4, k=2, n_batch=1))",
    "parts(sparse.eye(3, 4, k=-1, n_batch=1))",
    "parts(sparse.eye(5, None, k=0, n_batch=1))",
    "parts(sparse.eye(3, 4, k=1, n_dense=1))",
    "parts(sparse.eye(3, None, k=-1, n_batch=2))",
    "parts(sparse.eye(3, 4, k=4, n_batch=1))",
    # slices with no room for entries, and summing the duplicates of no entries
    "parts(sparse.bcoo_slice(sparse.BCOO.fromdense(D), start_indices=(1, 2), limit_indices=(1, 4)))",
    "parts(sparse.bcoo_dynamic_slice(sparse.BCOO.fromdense(D3, n_batch=1), (0, 1, 0), (2, 0, 2)))",
    "parts(sparse.bcoo_sum_duplicates(sparse.BCOO.fromdense(np.zeros((3, 4), np.float32), nse=0), nse=2))",
    "parts(sparse.empty((2, 3)))",
    "parts(sparse.BCSR.fromdense(D))",
    "parts(sparse.BCSR.fromdense(D3, n_batch=1))",
    "parts(sparse.bcoo_fromdense(D, nse=1))",
    "sparse.BCOO.fromdense(D) @ np.ones(4, np.float32)",
    "sparse.BCOO.fromdense(D) @ np.ones(3, np.float32)",
    "sparse.BCOO.fromdense(D, nse=1).todense()",
    "sparse.BCOO.fromdense(D3, n_batch=1).todense()",
    "sparse.BCOO.fromdense(D).astype(np.int32).todense()",
    # (n_sparse = 0 with zeros in the array fails inside JAX 0.10.2 with a NumPy error: not
    # recorded; pyjax stores one entry per batch element there)
    "sparse.BCOO.fromdense(D3, n_batch=4)",
    "sparse.BCOO.fromdense(D3, n_batch=-1)",
    "sparse.BCOO.fromdense(np.ones((2, 3), np.float32), n_batch=2).nse",
    "sparse.bcoo_slice(sparse.BCOO.fromdense(D), start_indices=(1, 1), limit_indices=(4, 3))",
    "sparse.bcoo_sum_duplicates(sparse.BCOO.fromdense(D)).nse",
    "jax.jit(lambda d: sparse.BCOO.fromdense(d).nse)(D)",
    "jax.jit(lambda m: m.sum_duplicates().nse)(sparse.BCOO.fromdense(D))",
    "jax.vmap(lambda m: m.todense().sum())(sparse.BCOO.fromdense(D, n_batch=1))",
    "jax.vmap(lambda m: m)(sparse.BCOO.fromdense(D))",
    "sparse.bcoo_dot_general(sparse.BCOO.fromdense(D3, n_batch=1), D3, dimension_numbers=(([2], [1]), ([0], [0])))",
    # (dense x sparse with dense dims: NotImplementedError in JAX 0.10.2; pyjax computes it)
    "sparse.bcoo_multiply_dense(sparse.BCOO.fromdense(D), np.arange(4, dtype=np.float32))",
    "parts(sparse.bcoo_extract(sparse.BCOO.fromdense(D), 2 * D))",
    "sparse.bcoo_extract(sparse.BCOO.fromdense(D), np.ones(3, np.float32))",
    "sparse.grad(lambda m: (m @ np.ones(4, np.float32)).sum())(sparse.BCOO.fromdense(D)).data",
    "parts(sparse.BCOO.fromdense(D, n_batch=1, n_dense=1))",
    "parts(sparse.bcoo_update_layout(sparse.BCOO.fromdense(D), n_dense=1, on_inefficient=None))",
    "sparse.BCOO.fromdense(D).reshape(5, 3)",
    "sparse.bcoo_transpose(sparse.BCOO.fromdense(D3, n_batch=1), permutation=(1, 0, 2))",
    "sparse.BCOO.fromdense(D).T.todense()",
    "sparse.BCOO.fromdense(D).sum(0).todense()",
    "sparse.BCOO.fromdense(D).sum()",
    "sparse.todense(sparse.BCOO.fromdense(D)[1:])",
    "sparse.BCOO.fromdense(D)[2].todense()",
    "sparse.BCOO.fromdense(D)[:, 3].todense()",
    "(-sparse.BCOO.fromdense(D)).todense()",
    "(sparse.BCOO.fromdense(D) * 2.0).todense()",
    "(sparse.BCOO.fromdense(D) + sparse.BCOO.fromdense(D)).todense()",
    "sparse.sparsify(lambda x, y: sparse.todense(jnp.sin(x) * y))(sparse.BCOO.fromdense(D), 2.0)",
    "sparse.sparsify(lambda x: jnp.sum(x @ np.ones((4, 2), np.float32), axis=0))(sparse.BCOO.fromdense(D))",
    "sparse.sparsify(lambda x: sparse.todense(x.T @ x))(sparse.BCOO.fromdense(D))",
    "parts(sparse.sparsify(lambda x: x * 2.0 - x)(sparse.BCOO.fromdense(D)))",
    "parts(sparse.sparsify(lambda x: jnp.abs(-x) ** 2)(sparse.BCOO.fromdense(D)))",
    "sparse.sparsify(lambda x: x + x)(sparse.BCOO.fromdense(D)).todense()",
    "sparse.sparsify(lambda x: jnp.cos(x))(sparse.BCOO.fromdense(D))",
    "sparse.sparsify(lambda x: (x + 1.0))(sparse.BCOO.fromdense(D))",
    "parts(sparse.random_bcoo(jax.random.key(0), (3, 4), nse=0.5, dtype=np.float32))",
]


def _public(mod, own_only):
    """The module's public names (with own_only, only what jax itself defines: no imported
    modules, typing helpers or third-party names)."""
    import types
    names = []
    for n in sorted(dir(mod)):
        if n.startswith("_"):
            continue
        obj = getattr(mod, n)
        if own_only and (isinstance(obj, types.ModuleType) or
                         not getattr(obj, "__module__", "jax").startswith("jax")):
            continue
        names.append(n)
    return names


import jax.experimental.sparse.linalg  # noqa: E402,F401
NAMES = {"jax.experimental.sparse": _public(sparse, False),
         "jax.experimental.sparse.linalg": _public(sparse.linalg, True),
         "jax.scipy.sparse.linalg": _public(sla, True)}

ns = {"jax": jax, "jnp": jnp, "np": np, "sla": sla, "sparse": sparse}
out = {"jax_version": jax.__version__, "prelude": PRELUDE, "names": NAMES,
       "solver_cases": evaluate_cases(PRELUDE, SOLVER_CASES, ns),
       "sparse_cases": evaluate_cases(PRELUDE, SPARSE_CASES, ns)}
(HERE / "sparse.json").write_text(json.dumps(out, indent=1) + "\n")
for group in ("solver_cases", "sparse_cases"):
    for k, v in out[group].items():
        print(k, "->", json.dumps(v)[:300])
