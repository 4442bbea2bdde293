"""Record what JAX 0.10.2 gives for tests/layout_cases.py (device-local layouts on CPU).

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    XLA_FLAGS=--xla_force_host_platform_device_count=4 \
        /work/scratch/jaxref/bin/python tests/data/record_layout.py
writes tests/data/layout.json: {"cases": {expr: encoded result or error class}}.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp

assert jax.device_count() == 4, "run with 4 CPU devices (XLA_FLAGS, see the docstring)"
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from recorded_cases import evaluate_cases  # noqa: E402
from layout_cases import CASES, PRELUDE  # noqa: E402

out = {"jax_version": jax.__version__,
       "cases": evaluate_cases(PRELUDE, CASES, {"jax": jax, "jnp": jnp})}
(HERE / "layout.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
