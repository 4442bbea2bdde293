"""Record the bits of JAX 0.10.2's gradients for tests/layer_bits_cases.py.

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    /path/to/jaxref/bin/python tests/data/record_layer_bits.py
writes tests/data/jax_layer_bits.json: {"probe": {fn: hex bytes of fn(PROBE_X)},
"grads": {"name/mode": [hex bytes of each gradient leaf]}}.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from layer_bits_cases import PRELUDE, PROBE, grads, probe_fn  # noqa: E402

ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(PRELUDE, ns)
out = {"probe": {fn: np.asarray(probe_fn(jax, fn)(ns["PROBE_X"])).tobytes().hex() for fn in PROBE},
       "grads": {}}
for name, case in ns["CASES"].items():
    for mode in ("eager", "jit"):
        out["grads"][f"{name}/{mode}"] = [np.asarray(g).tobytes().hex() for g in grads(jax, case, mode)]
(HERE / "jax_layer_bits.json").write_text(json.dumps(out, indent=1) + "\n")
