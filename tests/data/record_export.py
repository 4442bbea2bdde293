"""Record JAX 0.10.2's jax.export behaviour for tests/test_export.py (run with the jaxref python):
the avals of exported functions as JAX prints them, the signature of `main` (argument and
result types, dynamic dims as `?`), the StableHLO op kinds of the computation, symbolic
dimension arithmetic as printed, and the exception class + message fragments of bad calls.

    /root/scratch/jaxref/bin/python tests/data/record_export.py
"""
import json
import os
import re

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)

# name -> (function source, shape specs); the test evaluates the same sources with pyjax
FUNCTIONS = {
    "mlp_mean": ("lambda x: jnp.tanh(x @ W).mean(axis=0) + x.sum()", ["b, 4"]),
    "elementwise": ("lambda x: jnp.sin(x) * 2.0 + 1.0", ["b, 4"]),
    "reshape": ("lambda x: x.reshape((-1, 2)).sum(axis=1)", ["b, 4"]),
    "broadcast": ("lambda x: x * x.sum(axis=1, keepdims=True) + jnp.ones((4,))", ["b, 4"]),
    "shape_value": ("lambda x: x * x.shape[0]", ["b, 4"]),
    "concrete": ("lambda x: jnp.cos(x) @ W", ["3, 4"]),
    "two_args": ("lambda x, y: (x * 2.0).sum(axis=1) + y", ["b, 4", "b"]),
}

BOOKKEEPING = {"stablehlo.custom_call", "stablehlo.compare", "func.call", "func.return",
               "stablehlo.constant", "stablehlo.get_dimension_size", "stablehlo.return"}


def main_signature(text):
    m = re.search(r"func\.func public @main\((.*?)\) -> \((.*?)\) \{", text) or \
        re.search(r"func\.func public @main\((.*?)\) -> (tensor<[^>]*>) \{", text)
    args = re.findall(r"tensor<[^>]*>", m.group(1))
    results = re.findall(r"tensor<[^>]*>", m.group(2))
    return args, results


def op_kinds(text):
    ops = set(re.findall(r"\b(stablehlo\.[a-z_]+)", text))
    return sorted(ops - BOOKKEEPING)


def record_functions():
    out = {}
    for name, (src, specs) in FUNCTIONS.items():
        fun = eval(src, {"jnp": jnp, "W": W})
        scope = export.SymbolicScope()
        args = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), jnp.float32)
                for s in specs]
        exp = export.export(jax.jit(fun))(*args)
        text = exp.mlir_module()
        sig_args, sig_results = main_signature(text)
        out[name] = {"src": src, "specs": specs,
                     "in_avals": [repr(a) for a in exp.in_avals],
                     "out_avals": [repr(a) for a in exp.out_avals],
                     "in_avals_str": [str(a) for a in exp.in_avals],
                     "main_args": sig_args, "main_results": sig_results,
                     "ops": op_kinds(text), "fun_name": exp.fun_name,
                     "in_tree": str(exp.in_tree), "out_tree": str(exp.out_tree),
                     "nr_devices": exp.nr_devices, "platforms": list(exp.platforms)}
    return out


DIM_EXPRS = ["a + b", "2*a - b", "a * b + 3", "(a + 1) * (a - 1)", "a // 2", "a % 3 + 1",
             "(2 * a) // 2", "(4 * a * b) // (2 * a)", "a ** 2 * b", "-a", "3 * a // 2",
             "max(a, 1)", "a == b", "a == 1", "a != 4", "a >= 1", "a > 0", "2 * a >= a",
             "a + 1 > a", "a <= a", "b - a >= 0", "a < 3", "min(a, 1)", "max(a, b)", "int(a)",
             "(2 * a) % 2", "np.prod((a, 4))"]


def record_dims():
    a, b = export.symbolic_shape("a, b")
    out = {}
    for e in DIM_EXPRS:
        try:
            v = eval(e, {"a": a, "b": b, "np": np})
            out[e] = {"value": str(v), "type": "bool" if isinstance(v, bool) else
                      ("int" if isinstance(v, int) else "dim")}
        except Exception as ex:  # noqa: BLE001
            out[e] = {"error": type(ex).__name__}
    return out


SPECS = ["b, 4", "(b, 4)", "b, 4, 2*b, a + 1", "b,", "", "4"]


def record_specs():
    return {s: [str(d) for d in export.symbolic_shape(s)] for s in SPECS}


def record_errors():
    b, = export.symbolic_shape("b")
    exp = export.export(jax.jit(lambda x, y: x * 2 + y.sum()))(
        jax.ShapeDtypeStruct((b, 4), jnp.float32), jax.ShapeDtypeStruct((b,), jnp.float32))
    c2 = export.export(jax.jit(lambda x: x))(
        jax.ShapeDtypeStruct(export.symbolic_shape("2*c"), jnp.float32))
    f32 = np.float32
    cases = {
        "tree": lambda: exp.call(np.ones((3, 4), f32)),
        "rank": lambda: exp.call(np.ones((3,), f32), np.ones((3,), f32)),
        "dtype": lambda: exp.call(np.ones((3, 4), np.int32), np.ones((3,), f32)),
        "const_dim": lambda: exp.call(np.ones((3, 5), f32), np.ones((3,), f32)),
        "inconsistent": lambda: exp.call(np.ones((3, 4), f32), np.ones((2,), f32)),
        "remainder": lambda: c2.call(np.ones((3,), f32)),
        "not_jit": lambda: export.export(lambda x: x)(1.0),
    }
    out = {}
    for name, thunk in cases.items():
        try:
            thunk()
            out[name] = {"error": None}
        except Exception as ex:  # noqa: BLE001
            out[name] = {"error": type(ex).__name__, "message": str(ex)}
    return out


# (spec, argument shape): JAX's solution of the dimension variables, or its message
SOLVING = [("a + 2*b, a, a + b + c", (8, 2, 9)), ("a + 2*b, a, a + b + c", (2, 2, 6)),
           ("a + 2*b, a, a + b + c", (3, 2, 6)), ("a + 2*b, a, a + b", (8, 2, 6)),
           ("2 * a + b, a, c * c", (7, 2, 36)), ("3, a, a + 8", (3, 4, 12)),
           ("3, a, a + 8", (3, 4, 13)), ("3, 4, 6*a", (3, 4, 13))]
# (inner spec, outer spec): an Exported called while exporting another one
NESTED = [("3, a, a + b", "3, 4, 12"), ("3, a, a + b", "3, 4, c"), ("3, 4, 5*a", "3, 4, c"),
          ("3, a, a + 8", "3, c + 2, c + 10"), ("3, a, b", "3, c + 4, 12"),
          ("3, 4, 12 + a", "3, 4, 12")]


def _outcome(thunk):
    try:
        return {"value": thunk()}
    except Exception as ex:  # noqa: BLE001
        return {"error": type(ex).__name__, "message": str(ex)}


def record_solving():
    """Dimension variables solved from arguments' shapes (JAX's solve_dim_vars): results,
    messages, and calls of an Exported while exporting another (JAX's export_test cases)."""
    def reshaped(x):
        return jnp.reshape(x, (-1, x.shape[1]))

    def solve(spec, shape):
        exp = export.export(jax.jit(lambda x: x.sum(axis=0)))(
            jax.ShapeDtypeStruct(export.symbolic_shape(spec), jnp.float32))
        return exp.call(np.ones(shape, np.float32)).tolist()

    def nested(inner_spec, outer_spec):
        inner = export.export(jax.jit(reshaped))(
            jax.ShapeDtypeStruct(export.symbolic_shape(inner_spec), jnp.float32))
        outer = export.export(jax.jit(lambda x: inner.call(x) + reshaped(x)))(
            jax.ShapeDtypeStruct(export.symbolic_shape(outer_spec), jnp.float32))
        x = np.arange(3 * 4 * 12, dtype=np.float32).reshape((3, 4, 12))
        return {"uses_global_constants": outer.uses_global_constants,
                "out_avals": [str(a) for a in outer.out_avals], "sum": float(outer.call(x).sum())}
    return {"solve": [[spec, list(shape), _outcome(lambda: solve(spec, shape))]
                      for spec, shape in SOLVING],
            "nested": [[i, o, _outcome(lambda: nested(i, o))] for i, o in NESTED]}


if __name__ == "__main__":
    data = {"functions": record_functions(), "dims": record_dims(), "specs": record_specs(),
            "errors": record_errors(), "solving": record_solving(),
            "constants": {"default_export_platform": export.default_export_platform(),
                          "min_ccv": export.minimum_supported_calling_convention_version,
                          "max_ccv": export.maximum_supported_calling_convention_version}}
    path = os.path.join(os.path.dirname(__file__), "export.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    print("wrote", path)
