"""The case generators of `jax._src.test_util` (written to JAX 0.10.2's behaviour): the device
and dtype lists tests are parameterized over, test names, random inputs (`rand_*`) and the
sampled parameterizations (`sample_product`, `cases_from_gens`, ...).

Sampling and naming follow JAX's exactly (the same seeds, the same draws, the same names), so a
JAX test file run on pyjax generates the same test cases, with the same ids, as on JAX:
`sample_product` takes `JAX_NUM_GENERATED_CASES` (default 10) combinations of its product by
`RandomState(42).choice(n, m, replace=False)` and decodes each index as a mixed-radix number,
first argument fastest; `rand_*(rng)` return `fn(shape, dtype)` drawing from the NumPy
`RandomState` rng (a test's `self.rng()`, seeded with the adler32 of its name).
"""
from __future__ import annotations

import functools
import math
import os
import re
from functools import partial

import numpy as np
from absl.testing import parameterized

from pyjax._src import config, dtypes
from pyjax._src.api import devices as _devices


class _Flag:
    """A test flag read once from the environment (JAX defines these as absl flags)."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __repr__(self):
        return f"<test flag {self.name}={self.value!r}>"


NUM_GENERATED_CASES = _Flag("jax_num_generated_cases",
                            int(os.getenv("JAX_NUM_GENERATED_CASES", "10")))
_MAX_CASES_SAMPLING_RETRIES = _Flag("max_cases_sampling_retries",
                                    int(os.getenv("JAX_MAX_CASES_SAMPLING_RETRIES", "100")))
_TEST_DUT = _Flag("jax_test_dut", os.getenv("JAX_TEST_DUT", ""))
SKIP_SLOW_TESTS = _Flag("jax_skip_slow_tests",
                        os.getenv("JAX_SKIP_SLOW_TESTS", "").lower() in ("1", "true", "yes"))


# -- the device under test and its dtypes ---------------------------------------------------------

def device_under_test() -> str:
    """The platform tests run on: "cpu", "gpu" or "tpu" ($JAX_TEST_DUT overrides)."""
    return _TEST_DUT.value or _devices()[0].platform


def supported_dtypes() -> set:
    """The dtypes the device under test computes in (the 64-bit ones only with x64 on)."""
    types = {np.bool_, dtypes.int4, np.int8, np.int16, np.int32, np.int64, dtypes.uint4, np.uint8,
             np.uint16, np.uint32, np.uint64, dtypes.bfloat16, np.float16, np.float32,
             np.float64, np.complex64, np.complex128}
    if device_under_test() == "gpu":
        types = (types - {dtypes.int4, dtypes.uint4}) | {dtypes.float8_e4m3fn, dtypes.float8_e5m2}
    if not config.x64_enabled():
        types -= {np.uint64, np.int64, np.float64, np.complex128}
    return types


class _LazyDtypes:
    """The dtype lists tests are parameterized over (`jtu.dtypes.floating`, ...), computed on
    first use: the device under test is not known at import."""

    def supported(self, dts):
        ok = supported_dtypes()
        return [d for d in dts if d in ok]

    @functools.cached_property
    def custom_floats(self):
        return self.supported([dtypes.bfloat16, dtypes.float8_e4m3b11fnuz, dtypes.float8_e4m3fn,
                               dtypes.float8_e4m3fnuz, dtypes.float8_e5m2, dtypes.float8_e5m2fnuz,
                               dtypes.float8_e3m4, dtypes.float8_e4m3, dtypes.float8_e8m0fnu,
                               dtypes.float4_e2m1fn])

    @functools.cached_property
    def floating(self):
        return self.supported([np.float32, np.float64])

    @functools.cached_property
    def all_floating(self):
        return self.supported([dtypes.bfloat16, np.float16, np.float32, np.float64])

    @functools.cached_property
    def integer(self):
        return self.supported([np.int32, np.int64])

    @functools.cached_property
    def all_integer(self):
        return self.supported([np.int8, np.int16, np.int32, np.int64])

    @functools.cached_property
    def unsigned(self):
        return self.supported([np.uint32, np.uint64])

    @functools.cached_property
    def all_unsigned(self):
        return self.supported([np.uint8, np.uint16, np.uint32, np.uint64])

    @functools.cached_property
    def complex(self):
        return self.supported([np.complex64, np.complex128])

    @functools.cached_property
    def boolean(self):
        return self.supported([np.bool_])

    @functools.cached_property
    def inexact(self):
        return self.floating + self.complex

    @functools.cached_property
    def all_inexact(self):
        return self.all_floating + self.complex

    @functools.cached_property
    def numeric(self):
        return self.floating + self.integer + self.unsigned + self.complex

    @functools.cached_property
    def all(self):
        return (self.all_floating + self.all_integer + self.all_unsigned + self.complex
                + self.boolean)


dtypes_lists = _LazyDtypes()


def num_float_bits(dtype) -> int:
    return dtypes.finfo(dtypes.canonicalize_dtype(dtype)).bits


# -- shapes and names -----------------------------------------------------------------------------

class ScalarShape:
    """A shape marker for scalars: NumPy scalars and Python scalars differ from 0-d arrays."""

    def __len__(self):
        return 0

    def __getitem__(self, i):
        raise IndexError(f"index {i} out of range.")


class _NumpyScalar(ScalarShape):
    pass


class _PythonScalar(ScalarShape):
    pass


NUMPY_SCALAR_SHAPE = _NumpyScalar()
PYTHON_SCALAR_SHAPE = _PythonScalar()


def is_valid_shape(shape, dtype) -> bool:
    """A Python scalar exists only for the dtypes `.item()` gives back (bool, int64, ...)."""
    if shape == PYTHON_SCALAR_SHAPE:
        return dtype == np.dtype(type(np.array(0, dtype=dtype).item()))
    return True


def _dims_of_shape(shape):
    if type(shape) in (list, tuple):
        return shape
    if isinstance(shape, ScalarShape):
        return ()
    if np.ndim(shape) == 0:
        return (shape,)
    raise TypeError(type(shape))


def _cast_to_shape(value, shape, dtype):
    """`value` as the kind of value `shape` stands for (NumPy scalar, Python scalar, array)."""
    if shape is NUMPY_SCALAR_SHAPE:
        return np.dtype(dtype).type(value)
    if shape is PYTHON_SCALAR_SHAPE:
        return np.asarray(value).item()
    if type(shape) in (list, tuple):
        assert np.shape(value) == tuple(shape)
        return value
    if np.ndim(shape) == 0:
        assert np.shape(value) == (shape,)
        return value
    raise TypeError(type(shape))


def dtype_str(dtype) -> str:
    return np.dtype(dtype).name


def format_shape_dtype_string(shape, dtype) -> str:
    """`float32[2,3]`, `int32` (a NumPy scalar), `pyfloat64` (a Python scalar), `f[3,]`."""
    if isinstance(shape, np.ndarray):
        return f"{dtype_str(dtype)}[{shape}]"
    if isinstance(shape, list):
        shape = tuple(shape)
    if shape is NUMPY_SCALAR_SHAPE:
        return dtype_str(dtype)
    if shape is PYTHON_SCALAR_SHAPE:
        return "py" + dtype_str(dtype)
    if type(shape) is tuple:
        return f"{dtype_str(dtype)}[{','.join(str(d) for d in shape)}]"
    if type(shape) is int:
        return f"{dtype_str(dtype)}[{shape},]"
    raise TypeError(type(shape))


_SANITIZE = re.compile(r"[ \"'\[\](){}<>=,._]+")


def sanitize_test_name(s: str) -> str:
    """A name `pytest -k` and `unittest -k` accept: each run of punctuation becomes one `_`."""
    return _SANITIZE.sub("_", s)


# -- random inputs --------------------------------------------------------------------------------

def _rand_dtype(rand, shape, dtype, scale=1.0, post=lambda x: x):
    """`post(scale * rand(*dims))` in `dtype` (complex: independent real and imaginary draws;
    unsigned: absolute values), as the kind of value `shape` stands for."""
    dims = _dims_of_shape(shape)
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        draw = lambda: np.asarray(scale * abs(rand(*dims))).astype(dtype)
    else:
        draw = lambda: np.asarray(scale * rand(*dims)).astype(dtype)
    vals = draw() + 1.0j * draw() if dtypes.issubdtype(dtype, np.complexfloating) else draw()
    return _cast_to_shape(np.asarray(post(vals), dtype), shape, dtype)


def rand_fullrange(rng, standardize_nans=False):
    """Random bit patterns: every value the dtype can hold."""
    def gen(shape, dtype, post=lambda x: x):
        dtype = np.dtype(dtype)
        size = dtype.itemsize * math.prod(_dims_of_shape(shape))
        vals = rng.randint(0, np.iinfo(np.uint8).max, size=size, dtype=np.uint8)
        vals = post(vals).view(dtype)
        if shape is PYTHON_SCALAR_SHAPE:  # a Python int of the full uint range overflows
            if dtype == np.uint64:
                vals = vals.astype(np.int64)
            elif dtype == np.uint32 and not config.x64_enabled():
                vals = vals.astype(np.int32)
        vals = vals.reshape(shape)
        if standardize_nans and np.issubdtype(dtype, np.floating):
            vals[np.isnan(vals)] = np.nan
        return _cast_to_shape(vals, shape, dtype)
    return gen


def rand_default(rng, scale=3):
    return partial(_rand_dtype, rng.randn, scale=scale)


def rand_nonzero(rng):
    post = lambda x: np.where(x == 0, np.array(1, dtype=x.dtype), x)
    return partial(_rand_dtype, rng.randn, scale=3, post=post)


def rand_positive(rng):
    return partial(_rand_dtype, rng.rand, scale=2, post=lambda x: x + 1)


def rand_small(rng):
    return partial(_rand_dtype, rng.randn, scale=1e-3)


def rand_not_small(rng, offset=10.0):
    post = lambda x: x + np.where(x > 0, offset, -offset)
    return partial(_rand_dtype, rng.randn, scale=3.0, post=post)


def rand_small_positive(rng):
    return partial(_rand_dtype, rng.rand, scale=2e-5)


def rand_uniform(rng, low=0.0, high=1.0):
    assert low < high
    return partial(_rand_dtype, rng.rand, post=lambda x: x * (high - low) + low)


def rand_some_equal(rng):
    def post(x):
        flat = x.ravel()
        if len(flat) == 0:
            return x
        return np.where(rng.rand(*np.shape(x)) < 0.5, flat[0], x)
    return partial(_rand_dtype, rng.randn, scale=100.0, post=post)


def _complex_from_parts(rand, shape, dtype):
    part = np.real(np.array(0, dtype=dtype)).dtype
    return _cast_to_shape(rand(shape, part) + np.array(1j, dtype) * rand(shape, part), shape,
                          dtype)


def _with_specials(rng, specials, complex_first):
    """A sampler of rand_default values where each of `specials` (value, fraction drawn) replaces
    the values whose uniform draw falls under its fraction, for floating dtypes."""
    base = rand_default(rng)

    def rand(shape, dtype):
        if complex_first and dtypes.issubdtype(dtype, np.complexfloating):
            return _complex_from_parts(rand, shape, dtype)
        if not dtypes.issubdtype(dtype, np.floating):
            return base(shape, dtype)
        if dtypes.issubdtype(dtype, np.complexfloating):
            return _complex_from_parts(rand, shape, dtype)
        dims = _dims_of_shape(shape)
        masks = [rng.rand(*dims) < p for _, p in specials]
        vals = base(shape, dtype)
        for (value, _), mask in zip(specials, masks):
            vals = np.where(mask, np.array(value, dtype=dtype), vals)
        return _cast_to_shape(np.asarray(vals, dtype=dtype), shape, dtype)
    return rand


def rand_some_inf(rng):
    """rand_default with about 10% +inf and 10% -inf in floating dtypes."""
    return _with_specials(rng, [(np.inf, 0.1), (-np.inf, 0.1)], complex_first=False)


def rand_some_inf_and_nan(rng):
    """rand_default with about 10% each of +inf, -inf and nan in floating dtypes."""
    return _with_specials(rng, [(np.inf, 0.1), (-np.inf, 0.1), (np.nan, 0.1)],
                          complex_first=False)


def rand_some_nan(rng):
    """rand_default with about 10% nans (half of them negative) in floating dtypes."""
    base = rand_default(rng)

    def rand(shape, dtype):
        if dtypes.issubdtype(dtype, np.complexfloating):
            return _complex_from_parts(rand, shape, dtype)
        if not dtypes.issubdtype(dtype, np.floating):
            return base(shape, dtype)
        r = rng.rand(*_dims_of_shape(shape))
        vals = base(shape, dtype)
        vals = np.where(r < 0.1, np.array(np.nan, dtype=dtype), vals)
        vals = np.where(r < 0.05, np.array(-np.nan, dtype=dtype), vals)
        return _cast_to_shape(np.asarray(vals, dtype=dtype), shape, dtype)
    return rand


def rand_some_zero(rng):
    """rand_default with about half the values zero."""
    base = rand_default(rng)

    def rand(shape, dtype):
        zeros = rng.rand(*_dims_of_shape(shape)) < 0.5
        vals = np.where(zeros, np.array(0, dtype=dtype), base(shape, dtype))
        return _cast_to_shape(np.asarray(vals, dtype=dtype), shape, dtype)
    return rand


def rand_int(rng, low=0, high=None):
    """Integers in [low, high) (high defaults to the dtype's max for integer dtypes)."""
    def fn(shape, dtype):
        nonlocal high
        gen_dtype = dtype if np.issubdtype(dtype, np.integer) else np.int64
        if low == 0 and high is None:
            if not np.issubdtype(dtype, np.integer):
                raise ValueError("rand_int requires an explicit `high` value for non-integer "
                                 "types.")
            high = np.iinfo(dtype).max
        return rng.randint(low, high=high, size=shape, dtype=gen_dtype).astype(dtype)
    return fn


def rand_unique_int(rng, high=None):
    """Distinct integers below `high` (default: the number of elements)."""
    def fn(shape, dtype):
        return rng.choice(np.arange(high or math.prod(shape), dtype=dtype), size=shape,
                          replace=False)
    return fn


def rand_indices_unique_along_axis(rng):
    """fn(dim, shape, axis): indices below `dim`, distinct along `axis`, some made negative."""
    def fn(dim, shape, axis, allow_negative=True):
        rest = shape[:axis] + shape[axis + 1:]
        batch = math.prod(rest)
        idx = np.array([rng.choice(dim, size=shape[axis], replace=False) for _ in range(batch)])
        idx = np.moveaxis(idx.reshape(batch, shape[axis]).reshape(rest + (shape[axis],)), -1,
                          axis)
        if allow_negative:
            mask = rng.choice([False, True], idx.shape)
            idx[mask] -= dim
        return idx
    return fn


def rand_bool(rng):
    def generator(shape, dtype):
        return _cast_to_shape(np.asarray(rng.rand(*_dims_of_shape(shape)) < 0.5, dtype=dtype),
                              shape, dtype)
    return generator


# -- parameterizations ----------------------------------------------------------------------------

def cases_from_gens(*gens):
    """(name, *values) cases for sizes 1, 3 and 10, NUM_GENERATED_CASES/3 + 1 of each."""
    sizes = [1, 3, 10]
    per_size = int(NUM_GENERATED_CASES.value / len(sizes)) + 1
    for size in sizes:
        for i in range(per_size):
            yield (f"_{size}_{i}",) + tuple(gen(size) for gen in gens)


def named_cases_from_sampler(gen):
    """Distinct cases (by testcase_name) from a generator that picks with `choose_one`, until
    NUM_GENERATED_CASES are found or too many draws in a row repeat one."""
    seen, retries = set(), 0
    rng = np.random.RandomState(42)

    def choose_one(x):
        x = x if isinstance(x, (list, tuple)) else list(x)
        return [x[rng.randint(len(x))]]
    while len(seen) < NUM_GENERATED_CASES.value and retries < _MAX_CASES_SAMPLING_RETRIES.value:
        retries += 1
        cases = list(gen(choose_one))
        if not cases:
            continue
        if len(cases) > 1:
            raise RuntimeError("Generator is expected to only return a single case when "
                               "sampling")
        case = cases[0]
        if case["testcase_name"] in seen:
            continue
        retries = 0
        seen.add(case["testcase_name"])
        yield case


@functools.cache
def _choice(n, m):
    return np.random.RandomState(42).choice(n, size=m, replace=False)


def sample_product_testcases(*args, **kw):
    """The sampled cases of the product of `args` (lists of dicts, each contributing one dict)
    and `kw` (name -> list of values), as dicts of keyword arguments."""
    args = [list(a) for a in args]
    kw = [(k, list(v)) for k, v in kw.items()]
    n = math.prod(len(a) for a in args) * math.prod(len(v) for _, v in kw)
    cases = []
    for i in _choice(n, min(n, NUM_GENERATED_CASES.value)):
        case = {}
        for a in args:
            case.update(a[i % len(a)])
            i //= len(a)
        for k, v in kw:
            case[k] = v[i % len(v)]
            i //= len(v)
        cases.append(case)
    return cases


def sample_product(*args, **kw):
    """A decorator: absl's `parameterized.parameters` over a sample of the product."""
    return parameterized.parameters(*sample_product_testcases(*args, **kw))


def parameterized_filterable(*, kwargs, testcase_name=None, one_containing=None):
    """`parameterized.named_parameters` with names fit for `-k` filters; `one_containing`
    keeps only the first case whose name contains it (under the bare test name)."""
    if testcase_name is not None:
        kwargs = [dict(testcase_name=sanitize_test_name(str(testcase_name(kw))), **kw)
                  for kw in kwargs]
    else:
        for kw in kwargs:
            name = kw.get("testcase_name")
            if name is None:
                name = "_".join(f"{k}={kw[k]}" for k in sorted(kw))
            kw["testcase_name"] = sanitize_test_name(name)
    if one_containing is None:
        return parameterized.named_parameters(*kwargs)
    chosen = [kw for kw in kwargs if one_containing in kw["testcase_name"]]
    assert chosen, (f"No testcase_name contains '{one_containing}'. The testcase_name values "
                    "are\n  " + "\n  ".join(kw["testcase_name"] for kw in kwargs))
    chosen[0]["testcase_name"] = ""
    return parameterized.named_parameters([chosen[0]])
