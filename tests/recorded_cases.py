"""Expressions evaluated once on JAX 0.10.2 (by a `data/record_*.py` script) and again on pyjax
(by a test), with their results encoded the same way on both sides: arrays as dtype, shape, weak
type and values; tuples element by element; exceptions by class name; the first warning's class.

Never imports jax: the recording scripts pass their `jax`/`jnp`, the tests pass pyjax's.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np


def encode(value) -> dict:
    """A JSON-able description of a result."""
    if isinstance(value, (tuple, list)):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, str):
        return {"str": value}
    if value is None or type(value) in (bool, int, float):
        return {"python": _float(value) if isinstance(value, float) else value}
    arr = np.asarray(value)
    out = {"dtype": str(arr.dtype), "shape": list(arr.shape),
           "weak_type": bool(getattr(value, "weak_type", False))}
    if arr.dtype.kind == "c":
        out["real"], out["imag"] = _values(arr.real), _values(arr.imag)
    else:
        out["value"] = _values(arr)
    return out


def _values(arr):
    if arr.dtype.kind == "b":
        return arr.astype(bool).reshape(-1).tolist()
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64).reshape(-1).tolist()
    return [_float(v) for v in arr.astype(np.float64).reshape(-1)]


def _float(v):
    """JSON has no NaN or infinities: they are strings."""
    return float(v) if math.isfinite(v) else repr(float(v))


def evaluate(expr: str, ns: dict) -> dict:
    """Evaluate `expr` in `ns`: its encoded result (or exception class), and the first warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = encode(eval(expr, ns))
        except Exception as e:  # noqa: BLE001 (the class is the result)
            out = {"error": type(e).__name__, "message": str(e)[:200]}
    if caught:
        out["warning"] = caught[0].category.__name__
    return out


def evaluate_cases(prelude: str, cases, ns: dict) -> dict:
    ns = dict(ns)
    exec(prelude, ns)
    return {expr: evaluate(expr, ns) for expr in cases}


def _decode_values(values, shape):
    arr = np.array([float(v) if isinstance(v, str) else v for v in values], np.float64)
    return arr.reshape(shape)


# Half-precision results are compared within 4 ulps of the dtype (relative, and absolute at the
# array's largest magnitude) whatever the caller asks: XLA's CPU backend computes half-precision
# transcendental functions differently on different CPU models (JAX 0.10.2 gives
# nn.initializers.he_normal(float16) 3 ulps apart on two machines). float32 and wider keep the
# caller's tolerance; integers and bools are exact.
HALF_PRECISION_ULPS = {"float16": 4 * 2.0 ** -10, "bfloat16": 4 * 2.0 ** -7}


def assert_matches(actual: dict, expected: dict, rtol=2e-6, atol=1e-7, err_msg=""):
    """`actual` (pyjax's encoded result) agrees with `expected` (JAX's): the same exception
    class, or the same structure, dtypes, shapes and weak types, and values within tolerance
    (NaNs in the same places; integers and bools exact)."""
    if "error" in expected or "error" in actual:
        assert actual.get("error") == expected.get("error"), (
            f"{err_msg}: expected {expected.get('error') or 'a result'}, got "
            f"{actual.get('error') or 'a result'} {actual.get('message', '')}")
        return
    assert actual.get("warning") == expected.get("warning"), f"{err_msg}: warning {actual.get('warning')} != {expected.get('warning')}"
    if "tuple" in expected:
        assert "tuple" in actual and len(actual["tuple"]) == len(expected["tuple"]), err_msg
        for i, (a, e) in enumerate(zip(actual["tuple"], expected["tuple"])):
            assert_matches(a, e, rtol, atol, f"{err_msg}[{i}]")
        return
    if "dict" in expected:
        assert sorted(actual.get("dict", {})) == sorted(expected["dict"]), err_msg
        for k, e in expected["dict"].items():
            assert_matches(actual["dict"][k], e, rtol, atol, f"{err_msg}[{k!r}]")
        return
    if "python" in expected or "str" in expected:
        assert actual == {k: v for k, v in expected.items() if k != "warning"} | (
            {"warning": actual["warning"]} if "warning" in actual else {}), f"{err_msg}: {actual} != {expected}"
        return
    for key in ("dtype", "shape", "weak_type"):
        assert actual[key] == expected[key], f"{err_msg}: {key} {actual[key]} != {expected[key]}"
    for part in ("value", "real", "imag"):
        if part not in expected:
            continue
        if expected["dtype"] in ("bool",) or expected["dtype"].startswith(("int", "uint")):
            assert actual[part] == expected[part], f"{err_msg}: {actual[part]} != {expected[part]}"
            continue
        a = _decode_values(actual[part], expected["shape"])
        e = _decode_values(expected[part], expected["shape"])
        if expected["dtype"] in HALF_PRECISION_ULPS:  # XLA's CPU code: last bits vary by CPU model
            ulps = HALF_PRECISION_ULPS[expected["dtype"]]
            rtol = max(rtol, ulps)
            finite = np.abs(e[np.isfinite(e)])
            atol = max(atol, ulps * (finite.max() if finite.size else 0.0))
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=err_msg)


_SUBPROCESS_SCRIPT = '''
import json, sys
sys.path.insert(0, {tests!r})
from pyjax import jax_alias
jax_alias.as_jax()  # the cases are JAX programs: `jax` (and jax.sharding, jax.core) is pyjax
import jax, jax.numpy as jnp
from recorded_cases import evaluate_cases
from {module} import CASES, PRELUDE
print(json.dumps(evaluate_cases(PRELUDE, CASES, {{"jax": jax, "jnp": jnp}})))
'''


def evaluate_cases_on_devices(module: str, tests_dir, devices: int = 8, timeout=600) -> dict:
    """The module `module`'s PRELUDE and CASES (a file beside this one) evaluated on pyjax as
    JAX programs, in a fresh process with `devices` virtual CPU devices (the count is fixed
    when the client is made): the encoded results."""
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
               JAX_PLATFORMS="cpu")
    res = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS_SCRIPT.format(tests=str(tests_dir), module=module)],
        capture_output=True, text=True, env=env, timeout=timeout)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])
