"""Record what JAX 0.10.2's `jax._src.test_util` (jtu) gives, for tests/test_jax_test_util.py.

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    /path/to/jaxref/bin/python tests/data/record_test_util.py
writes tests/data/test_util.json: sampled parameterizations, rand_* draws, test names, dtype
lists and tolerances.
"""
import json
import pathlib

import ml_dtypes
import numpy as np
from jax._src import test_util as jtu

OUT = pathlib.Path(__file__).resolve().parent / "test_util.json"


def main():
    out = {}
    out["sample_product"] = jtu.sample_product_testcases(
        [dict(shape=s) for s in [(), (3,), (2, 3), (4, 1, 2)]],
        dtype=["float32", "int32", "bool"], axis=[0, 1, None])
    out["rand_default"] = jtu.rand_default(np.random.RandomState(0))((2, 3), np.float32).tolist()
    out["rand_some_inf_and_nan"] = [
        str(v) for v in jtu.rand_some_inf_and_nan(np.random.RandomState(1))((8,), np.float32)]
    out["rand_some_nan_complex"] = [
        str(v) for v in jtu.rand_some_nan(np.random.RandomState(2))((6,), np.complex64)]
    out["rand_int"] = jtu.rand_int(np.random.RandomState(3), 0, 10)((5,), np.int32).tolist()
    out["rand_positive_scalar"] = repr(
        jtu.rand_positive(np.random.RandomState(4))(jtu.PYTHON_SCALAR_SHAPE, np.float32))
    out["rand_some_equal"] = jtu.rand_some_equal(np.random.RandomState(5))((4,), np.int32).tolist()
    out["rand_uint"] = jtu.rand_default(np.random.RandomState(6))((4,), np.uint8).tolist()
    out["names"] = [jtu.format_shape_dtype_string(s, d) for s, d in
                    [((2, 3), np.float32), (jtu.NUMPY_SCALAR_SHAPE, np.int32),
                     (jtu.PYTHON_SCALAR_SHAPE, np.float64), (3, np.bool_), ([], np.complex64)]]
    out["sanitized"] = jtu.sanitize_test_name("shape=float32[2,3]_axis=(0, 1)")
    out["all_floating"] = [np.dtype(d).name for d in jtu.dtypes.all_floating]
    out["numeric"] = [np.dtype(d).name for d in jtu.dtypes.numeric]
    out["all"] = [np.dtype(d).name for d in jtu.dtypes.all]
    out["tolerance"] = [jtu.tolerance(np.float16), jtu.tolerance(ml_dtypes.bfloat16),
                        jtu.tolerance(np.float64), jtu.tolerance(np.float32, {np.float32: 1e-3}),
                        jtu.tolerance(np.int8, 0.5), jtu.tolerance(np.complex64)]
    joined = jtu.join_tolerance(1e-3, {np.float16: 1e-2})
    out["join_tolerance"] = [joined[np.dtype(np.float16)], joined[np.dtype(np.float32)]]
    out["cases_from_gens"] = [c[0] for c in jtu.cases_from_gens(lambda n: n)]
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
