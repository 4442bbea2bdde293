"""Record JAX 0.10.2's configuration surface: every `jax.config` flag with its default, the kind
of value it takes, its choices, and what `jax.config.update` does with odd values; which
top-level `jax.X` names are flag context managers; and what unknown names raise.

Run with the reference JAX environment (never needed by the tests):

    /root/scratch/jaxref/bin/python tests/data/record_config.py

It writes tests/data/jax_config.json, which tests/test_config.py replays with pyjax. Values are
stored as JSON; enum members as {"enum": class name, "name": ..., "value": ...}.
"""
import enum
import json
import os
import warnings

# Values `config.update` is probed with (each flag is restored to its default afterwards).
PROBES = {"str": "__bogus__", "int": 7, "neg": -3, "float": 0.5, "none": None, "true": True}


# Behaviour under settings: (id, {flag: value}, source). The source runs with jax, jnp, lax, np
# and the PRELUDE names in scope; its last line's value is the result.
PRELUDE = """
f32 = jnp.ones(2, jnp.float32)
f16 = jnp.ones(2, jnp.float16)
bf16 = jnp.ones(2, jnp.bfloat16)
i32 = jnp.ones(2, jnp.int32)
i8 = jnp.ones(2, jnp.int8)
u8 = jnp.ones(2, jnp.uint8)
b = jnp.ones(2, jnp.bool_)
m = jnp.ones((2, 2), jnp.float32)
row = jnp.ones((1, 2), jnp.float32)
"""
STRICT = {"jax_numpy_dtype_promotion": "strict"}
BEHAVIOURS = [
    # jax_numpy_dtype_promotion='strict': only weak (Python) scalars promote implicitly
    ("strict_f32_i32", STRICT, "f32 + i32"),
    ("strict_f32_f16", STRICT, "f32 + f16"),
    ("strict_f32_bf16", STRICT, "jnp.add(f32, bf16)"),
    ("strict_u8_i8", STRICT, "u8 * i8"),
    ("strict_bool_i32", STRICT, "b + i32"),
    ("strict_f32_pyfloat", STRICT, "f32 + 1.0"),
    ("strict_f32_pyint", STRICT, "f32 * 2"),
    ("strict_i32_pyfloat", STRICT, "i32 + 1.5"),
    ("strict_i32_pyint", STRICT, "i32 + 3"),
    ("strict_same", STRICT, "f32 * f32"),
    ("strict_result_type", STRICT, "jnp.result_type(jnp.float32, jnp.int32)"),
    ("strict_result_type_weak", STRICT, "jnp.result_type(jnp.float32, float)"),
    ("strict_promote_types", STRICT, "jnp.promote_types(jnp.float32, jnp.float16)"),
    ("strict_promote_types_same", STRICT, "jnp.promote_types(jnp.int8, jnp.int8)"),
    ("strict_where", STRICT, "jnp.where(b, f32, i32)"),
    ("strict_concatenate", STRICT, "jnp.concatenate([f32, i32])"),
    ("strict_jit", STRICT, "jax.jit(lambda a, c: a - c)(f32, f16)"),
    ("strict_numpy_f64", STRICT, "f32 + np.ones(2)"),
    ("strict_context_manager", {}, "with jax.numpy_dtype_promotion('strict'):\n"
                                   "    r = f32 + i32\nr"),
    ("standard_f32_i32", {}, "f32 + i32"),
    ("standard_u8_i8", {}, "u8 * i8"),
    ("dtype_promotion_bad_value", {}, "jax.numpy_dtype_promotion('bogus')"),
    ("dtype_promotion_bad_type", {}, "jax.numpy_dtype_promotion(3)"),
    # jax_numpy_rank_promotion
    ("rank_raise_add", {"jax_numpy_rank_promotion": "raise"}, "f32 + row"),
    ("rank_raise_mul_matrix", {"jax_numpy_rank_promotion": "raise"}, "m * f32"),
    ("rank_raise_scalar", {"jax_numpy_rank_promotion": "raise"}, "f32 + 3.0"),
    ("rank_raise_0d_array", {"jax_numpy_rank_promotion": "raise"}, "m + jnp.float32(2)"),
    ("rank_raise_same_rank", {"jax_numpy_rank_promotion": "raise"}, "m + row"),
    ("rank_raise_where", {"jax_numpy_rank_promotion": "raise"}, "jnp.where(b, f32, m)"),
    ("rank_raise_jit", {"jax_numpy_rank_promotion": "raise"}, "jax.jit(lambda a, c: a * c)(f32, m)"),
    ("rank_warn_add", {"jax_numpy_rank_promotion": "warn"}, "f32 + row"),
    ("rank_warn_scalar", {"jax_numpy_rank_promotion": "warn"}, "f32 + 3.0"),
    ("rank_allow_add", {}, "f32 + row"),
    ("rank_context_manager", {}, "with jax.numpy_rank_promotion('raise'):\n    r = f32 + row\nr"),
    ("rank_bad_value", {}, "jax.numpy_rank_promotion('bogus')"),
    ("rank_no_argument", {}, "jax.numpy_rank_promotion()"),
    # jax_explicit_x64_dtypes (x64 off)
    *[(f"explicit_{mode}_{what}", {"jax_explicit_x64_dtypes": mode}, src)
      for mode in ("warn", "error", "allow")
      for what, src in [("zeros", "jnp.zeros(3, jnp.float64)"),
                        ("array", "jnp.array([1.0, 2.0], dtype=np.float64)"),
                        ("astype", "f32.astype(jnp.int64)"),
                        ("arange", "jnp.arange(3, dtype=jnp.int64)"),
                        ("numpy_value", "jnp.asarray(np.ones(2))"),
                        ("convert", "lax.convert_element_type(f32, jnp.float64)"),
                        ("scalar_type", "jnp.float64(1)"),
                        ("canonicalize", "jax.dtypes.canonicalize_dtype(np.float64)"),
                        ("result_type", "jnp.result_type(np.float64)"),
                        ("result_type_pytype", "jnp.result_type(float)"),
                        ("jit", "jax.jit(lambda: jnp.zeros(2, jnp.float64))()"),
                        ("add", "jnp.zeros(3, jnp.float64) + jnp.ones(3)"),
                        ("mul_scalar", "jnp.zeros(3, jnp.float64) * 2.0"),
                        ("sum", "jnp.zeros(3, jnp.float64).sum()")]],
    ("explicit_bad_value", {}, "jax.config.update('jax_explicit_x64_dtypes', 'sometimes')"),
    # jax_default_matmul_precision
    ("matmul_precision_flag", {"jax_default_matmul_precision": "highest"},
     "str(jax.make_jaxpr(lambda a, c: lax.dot(a, c))(m, m).eqns[0].params['precision'])"),
    ("matmul_precision_context", {},
     "with jax.default_matmul_precision('float32'):\n"
     "    r = str(jax.make_jaxpr(lambda a, c: lax.dot(a, c))(m, m).eqns[0].params['precision'])\nr"),
    ("matmul_precision_unset", {},
     "str(jax.make_jaxpr(lambda a, c: lax.dot(a, c))(m, m).eqns[0].params['precision'])"),
    ("matmul_precision_explicit_wins", {"jax_default_matmul_precision": "highest"},
     "str(jax.make_jaxpr(lambda a, c: lax.dot(a, c, precision='default'))(m, m)"
     ".eqns[0].params['precision'])"),
    ("matmul_precision_bad", {}, "jax.default_matmul_precision('bogus')"),
    # jax_debug_nans / jax_debug_infs
    ("nans_eager", {"jax_debug_nans": True}, "jnp.log(-f32)"),
    ("nans_jit", {"jax_debug_nans": True}, "jax.jit(lambda a: jnp.log(a) * 2)(-f32)"),
    ("nans_ok", {"jax_debug_nans": True}, "jnp.log(f32)"),
    ("nans_ignore_inf", {"jax_debug_nans": True}, "f32 / 0.0"),
    ("nans_int", {"jax_debug_nans": True}, "i32 * 0"),
    ("nans_passthrough", {"jax_debug_nans": True}, "jax.jit(lambda a: a)(f32 * jnp.nan)"),
    ("nans_context_manager", {}, "with jax.debug_nans(True):\n    r = jnp.log(-f32)\nr"),
    ("nans_context_default", {}, "with jax.debug_nans():\n    r = jnp.log(-f32)\nr"),
    ("nans_off", {}, "jnp.log(-f32)"),
    ("infs_eager", {"jax_debug_infs": True}, "f32 / 0.0"),
    ("infs_ignore_nan", {"jax_debug_infs": True}, "jnp.log(-f32)"),
    ("infs_grad", {"jax_debug_infs": True}, "jax.grad(lambda a: jnp.sqrt(a))(0.0)"),
    # jax_enable_checks
    ("enable_checks", {"jax_enable_checks": True}, "jax.jit(lambda a: jnp.sin(a) * 2)(f32)"),
    ("enable_checks_context", {}, "with jax.enable_checks(True):\n    r = jnp.cos(f32)\nr"),
]


def run_behaviour(jax, jnp, lax, np, settings, src):
    """The outcome of `src` under `settings`: the result's dtype/shape (or str value), the
    number of warnings, or the exception class."""
    config = jax.config
    saved = {k: config.values[k] for k in settings}
    ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(PRELUDE, ns)
    try:
        for k, v in settings.items():
            config.update(k, v)
        *body, last = src.split("\n")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if body:
                    exec("\n".join(body), ns)
                value = eval(last, ns)
            except Exception as e:  # noqa: BLE001 — the class is what we record
                return {"raises": type(e).__name__}
        n_warn = sum(1 for w in caught if not issubclass(w.category, DeprecationWarning))
        if isinstance(value, str):
            return {"value": value, "warnings": n_warn}
        if hasattr(value, "dtype") and hasattr(value, "shape"):
            return {"dtype": str(np.dtype(value.dtype)), "shape": list(value.shape),
                    "warnings": n_warn}
        if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
            return {"dtype": str(np.dtype(value)), "warnings": n_warn}
        return {"repr": type(value).__name__, "warnings": n_warn}
    finally:
        for k, v in saved.items():
            config.update(k, v)


def encode(v):
    if isinstance(v, enum.Enum):
        return {"enum": type(v).__name__, "name": v.name, "value": v.value}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return {"repr": repr(v)}


def _closure_values(fn):
    cells = getattr(fn, "__closure__", None) or ()
    out = []
    for c in cells:
        try:
            out.append(c.cell_contents)
        except ValueError:
            pass
    return out


def describe_flag(holder, default):
    """(kind, choices): bool/int/float/str/optional_str/enum/enum_class/other."""
    parser = getattr(holder, "_parser", None)
    closure = _closure_values(parser) if parser else []
    for v in closure:
        if isinstance(v, type) and issubclass(v, enum.Enum):
            return "enum_class", [m.name.lower() for m in v]
    for v in closure:
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, str) for x in v):
            return "enum", list(v)
    if isinstance(default, bool):
        return "bool", None
    if isinstance(default, int):
        return "int", None
    if isinstance(default, float):
        return "float", None
    if isinstance(default, str):
        return "str", None
    return "other", None


def probe(config, name, value, default):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config.update(name, value)
        got = config.values[name]
        result = {"ok": encode(got)}
    except Exception as e:  # noqa: BLE001 — the class is what we record
        result = {"raises": type(e).__name__}
    finally:
        try:
            config.update(name, default)
        except Exception:  # noqa: BLE001
            pass
    return result


def main():
    import jax
    from jax._src import config as config_lib
    assert jax.__version__ == "0.10.2", jax.__version__
    config = jax.config
    holders = config._value_holders
    # Probing these changes process-wide machinery JAX may already have initialized.
    unsafe = {"jax_platforms", "jax_platform_name", "jax_backend_target", "jax_num_cpu_devices",
              "jax_cpu_collectives_implementation", "jax_default_device", "jax_logging_level",
              "jax_debug_log_modules", "jax_compilation_cache_dir", "jax_enable_compilation_cache"}
    flags = {}
    for name in sorted(config.values):
        default = config.values[name]
        kind, choices = describe_flag(holders.get(name), default)
        entry = {"default": encode(default), "kind": kind, "choices": choices,
                 "type": type(default).__name__}
        if name not in unsafe:
            entry["probes"] = {k: probe(config, name, v, default) for k, v in PROBES.items()}
        flags[name] = entry
    context_managers = {}
    for n in sorted(dir(jax)):
        obj = getattr(jax, n, None)
        if isinstance(obj, config_lib.State):
            context_managers[n] = obj.name
    errors = {}
    for what, fn in [("update_unknown", lambda: config.update("jax_bogus_flag", 1)),
                     ("getattr_unknown", lambda: config.jax_bogus_flag)]:
        try:
            fn()
            errors[what] = None
        except Exception as e:  # noqa: BLE001
            errors[what] = type(e).__name__
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    behaviours = {bid: run_behaviour(jax, jnp, lax, np, settings, src)
                  for bid, settings, src in BEHAVIOURS}
    out = {"jax_version": jax.__version__, "flags": flags, "context_managers": context_managers,
           "errors": errors, "behaviours": behaviours}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_config.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
    print(f"wrote {len(flags)} flags, {len(context_managers)} context managers to {path}")


if __name__ == "__main__":
    main()
