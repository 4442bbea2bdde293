"""Record JAX 0.10.2's jax.flatten_util.ravel_pytree: the flat vector (dtype, values) of trees
of mixed dtypes, weak scalars and empty trees, and what unravel gives back (leaves, dtypes,
structure, errors).

Run with the reference JAX environment (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_flatten_util.py
It writes tests/data/flatten_util.json; tests/test_flatten_util.py evaluates the same expressions
with `jax`/`jnp`/`ravel_pytree` bound to pyjax's.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from recorded_cases import evaluate_cases  # noqa: E402

PRELUDE = '''
leaves = jax.tree_util.tree_leaves
structure = jax.tree_util.tree_structure
MIXED = {"a": jnp.arange(2, dtype=jnp.int32), "b": (jnp.full((2, 2), 1.5, jnp.bfloat16), 3.0),
         "c": None, "d": np.float16(2), "e": [True, jnp.array([7], jnp.uint8)]}
FLOATS = [jnp.ones((2, 3)), {"x": jnp.arange(3.0), "y": jnp.float32(4)}]
CPLX = [jnp.array([1 + 2j, 3 - 1j], jnp.complex64), jnp.array([0.5, 2.0])]
f_mixed, u_mixed = ravel_pytree(MIXED)
f_floats, u_floats = ravel_pytree(FLOATS)
f_cplx, u_cplx = ravel_pytree(CPLX)
'''

CASES = [
    "f_mixed", "leaves(u_mixed(f_mixed))", "structure(u_mixed(f_mixed)) == structure(MIXED)",
    "leaves(u_mixed(f_mixed * 2.6))", "u_mixed(f_mixed.astype(jnp.int32))",
    "f_floats", "leaves(u_floats(f_floats))", "leaves(u_floats(jnp.arange(7, dtype=jnp.int32)))",
    "leaves(u_floats(jnp.arange(7.0, dtype=jnp.bfloat16)))",
    "f_cplx", "leaves(u_cplx(f_cplx))", "u_cplx(jnp.ones(4))",
    "ravel_pytree([])[0]", "ravel_pytree({})[1](jnp.zeros(0))", "ravel_pytree(None)[0]",
    "ravel_pytree([1, 2.5])[0]", "leaves(ravel_pytree([1, 2.5])[1](jnp.array([3.0, 4.0])))",
    "ravel_pytree(3.0)[0]", "ravel_pytree([jnp.zeros((0, 2)), jnp.ones(1)])[0]",
    "ravel_pytree(jnp.ones((2, 2), jnp.int8))[0]",
    "ravel_pytree(MIXED)[1] == ravel_pytree(MIXED)[1]",
    "hash(ravel_pytree(FLOATS)[1]) == hash(ravel_pytree(FLOATS)[1])",
    "ravel_pytree(FLOATS)[1] == ravel_pytree(MIXED)[1]",
    "leaves(jax.jit(u_floats)(f_floats))",
    "jax.grad(lambda f: jnp.sum(u_floats(f)[1]['x'] ** 2))(f_floats)",
    "jax.jit(lambda t: ravel_pytree(t)[0])(FLOATS)",
    "jax.vmap(lambda f: u_floats(f)[0])(jnp.stack([f_floats, f_floats + 1]))",
]

if __name__ == "__main__":
    results = evaluate_cases(PRELUDE, CASES, {"jax": jax, "jnp": jnp, "np": np, "ravel_pytree": ravel_pytree})
    out = {"jax_version": jax.__version__, "prelude": PRELUDE, "cases": results}
    (HERE / "flatten_util.json").write_text(json.dumps(out, indent=0) + "\n")
    print(len(results), "cases;", sum("error" in r for r in results.values()), "raise")
