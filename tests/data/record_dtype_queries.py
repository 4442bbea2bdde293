"""Record JAX 0.10.2's answers to dtype queries on odd inputs: jnp.issubdtype, jnp.isdtype,
jnp.dtype, jnp.result_type, jnp.promote_types, jnp.can_cast, jax.dtypes.issubdtype and
jax.dtypes.canonicalize_dtype, on dtypes, dtype names, Python types, NumPy abstract classes,
object/str/None, float0 and the extended-dtype categories.

Run with the reference JAX environment (never needed by the tests), once per ml_dtypes version
to record (each run adds its version to the file; `jnp.can_cast` is NumPy's `can_cast`, whose
answers for the ml_dtypes types change between ml_dtypes releases):

    jaxref/bin/pip install ml_dtypes==0.5.4 && jaxref/bin/python tests/data/record_dtype_queries.py

It writes tests/data/jax_dtype_queries.json, which tests/test_dtypes.py replays with pyjax.
Inputs are source expressions evaluated with `np`, `jnp` and `dtypes` (jax.dtypes or
pyjax.dtypes) in scope, so the test rebuilds the same objects from pyjax. An outcome is
{"value": ...} (a dtype as its name, a bool as itself) or {"raises": exception class name}.
"""
import itertools
import json
import os
import warnings

# Things a user may pass where a dtype is expected.
DTYPE_LIKES = [
    "np.float32", "'float32'", "np.dtype('float32')", "jnp.float32", "jnp.bfloat16",
    "np.dtype(jnp.bfloat16)", "'bfloat16'", "np.dtype(dtypes.float0)", "'int4'", "jnp.int4",
    "jnp.float8_e4m3fn", "np.int64", "np.uint32", "np.uint8", "np.int8", "np.float16",
    "np.float64", "np.complex64", "np.complex128", "np.bool_", "'bool'",
    "bool", "int", "float", "complex", "object", "str", "bytes", "None", "list",
    "np.object_", "np.str_", "np.bytes_", "np.void", "np.dtype('O')", "np.dtype('U5')",
    "np.dtype('V4')", "np.dtype([('a', np.int32)])", "'i4'", "'f8'", "'c8'", "'bogus'", "'O'",
    "np.datetime64", "np.dtype('M8[s]')",
]
# Abstract categories (second argument of issubdtype).
CATEGORIES = [
    "np.generic", "np.number", "np.integer", "np.signedinteger", "np.unsignedinteger",
    "np.inexact", "np.floating", "np.complexfloating", "np.bool_", "np.flexible",
    "np.character", "dtypes.extended", "dtypes.prng_key", "object", "np.object_",
    "str", "bool", "int", "float", "complex", "None", "np.float32", "'float32'", "jnp.bfloat16",
    "np.int32", "np.void",
]
# Values and dtypes for result_type (Python scalars are weak).
VALUES = [
    "1", "1.0", "1j", "True", "np.float16(1)", "np.int8(1)", "np.ones(2, np.uint8)",
    "np.ones(2, np.int64)", "jnp.ones(2, jnp.bfloat16)", "jnp.ones(2)",
    "np.float32", "'int16'", "jnp.bfloat16", "int", "float", "complex", "bool", "object", "str",
    "None", "np.dtype('O')", "'bogus'", "np.generic", "np.floating", "[1, 2]", "(1.0,)",
]
ISDTYPE_KINDS = [
    "'bool'", "'signed integer'", "'unsigned integer'", "'integral'", "'real floating'",
    "'complex floating'", "'numeric'", "('bool', 'integral')", "np.float32", "'float32'",
    "'bogus'", "object", "np.floating", "('real floating', np.int8)",
]
ISDTYPE_DTYPES = [
    "np.float32", "np.dtype('float32')", "jnp.bfloat16", "np.dtype(jnp.bfloat16)", "np.int8",
    "np.uint16", "np.bool_", "np.complex64", "np.dtype(jnp.int4)", "'float32'", "float",
    "object", "None", "np.dtype('O')",
]


def queries():
    """(function name, argument sources) for every recorded call."""
    for a, b in itertools.product(DTYPE_LIKES, CATEGORIES):
        yield "jnp.issubdtype", (a, b)
        yield "dtypes.issubdtype", (a, b)
    for a, b in itertools.product(DTYPE_LIKES, DTYPE_LIKES[:30]):
        yield "jnp.promote_types", (a, b)
        yield "jnp.can_cast", (a, b)
    for a in DTYPE_LIKES:
        yield "jnp.dtype", (a,)
        yield "dtypes.canonicalize_dtype", (a,)
    for a in VALUES:
        yield "jnp.result_type", (a,)
    for a, b in itertools.product(VALUES, VALUES[:12]):
        yield "jnp.result_type", (a, b)
    yield "jnp.result_type", ()
    for d, k in itertools.product(ISDTYPE_DTYPES, ISDTYPE_KINDS):
        yield "jnp.isdtype", (d, k)


def evaluate(fn_src, arg_srcs, scope):
    """Call fn on the evaluated args; the outcome as a JSON-able dict."""
    try:
        fn = eval(fn_src, scope)
        args = [eval(a, scope) for a in arg_srcs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(*args)
    except Exception as e:  # noqa: BLE001 — the class is what we record
        return {"raises": type(e).__name__}
    return {"value": describe(out)}


def describe(out):
    import numpy as np
    if isinstance(out, (bool, np.bool_)):
        return bool(out)
    if isinstance(out, np.dtype):
        return "float0" if out.names == ("float0",) else out.name
    return repr(out)


def key(fn_src, arg_srcs):
    return f"{fn_src}({', '.join(arg_srcs)})"


def ml_dtypes_version_key(version):
    """'0.7.0' -> (0, 7, 0), for ordering the recordings."""
    return tuple(int(part) for part in version.split(".")[:3] if part.isdigit())


def expected_for(data, installed):
    """The recorded outcomes for an installed ml_dtypes version: the newest recording at or below
    it (the oldest one when it is older than all), as the base table plus that version's diffs."""
    versions = sorted([data["ml_dtypes"], *data.get("by_ml_dtypes", {})], key=ml_dtypes_version_key)
    below = [v for v in versions if ml_dtypes_version_key(v) <= ml_dtypes_version_key(installed)]
    chosen = below[-1] if below else versions[0]
    table = dict(data["results"])
    table.update(data.get("by_ml_dtypes", {}).get(chosen, {}))
    return chosen, table


def main():
    import jax
    import jax.numpy as jnp
    import ml_dtypes
    import numpy as np
    assert jax.__version__.startswith("0.10.2"), jax.__version__
    scope = {"np": np, "jnp": jnp, "dtypes": jax.dtypes}
    table = {key(f, a): evaluate(f, a, scope) for f, a in queries()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_dtype_queries.json")
    # One file for every ml_dtypes version recorded: the newest version's full table, and for each
    # older version only the outcomes that differ (jnp.can_cast is NumPy's, which asks ml_dtypes).
    data = {}
    if os.path.exists(path):
        with open(path) as fh:
            data = json.load(fh)
    tables = {}
    if "ml_dtypes" in data:
        tables = {v: expected_for(data, v)[1] for v in [data["ml_dtypes"], *data.get("by_ml_dtypes", {})]}
    tables[ml_dtypes.__version__] = table
    newest = max(tables, key=ml_dtypes_version_key)
    base = tables[newest]
    out = {"jax_version": "0.10.2", "numpy": np.__version__, "ml_dtypes": newest, "results": base,
           "by_ml_dtypes": {v: {k: o for k, o in t.items() if base.get(k) != o}
                            for v, t in tables.items() if v != newest}}
    with open(path, "w") as fh:
        json.dump(out, fh, indent=0, sort_keys=True)
    print(f"wrote {len(table)} outcomes for ml_dtypes {ml_dtypes.__version__} to {path}")


if __name__ == "__main__":
    main()
