"""A small emitter of StableHLO text in MLIR's generic op syntax.

Every op is printed the same way, `%3 = "stablehlo.add"(%1, %2) : (tensor<3xf32>,
tensor<3xf32>) -> tensor<3xf32>`, so one function prints all of them; attributes are passed
already formatted by the helpers below (`i64_array`, `dense`, `enum`...). No MLIR Python
bindings are needed: the text goes straight to XLA's parser.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from pyjax._src import dtypes

_IR_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "complex<f32>", "complex128": "complex<f64>",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
    "float8_e3m4": "f8E3M4", "float8_e4m3": "f8E4M3", "float8_e8m0fnu": "f8E8M0FNU",
    "float4_e2m1fn": "f4E2M1FN",
    "int4": "i4", "uint4": "ui4", "int2": "i2", "uint2": "ui2",
}


# float0 (the tangent type of integers) is i1 in a module, as JAX lowers it; its values (always
# zeros) are passed as booleans and outputs of it made back on the host (dispatch.py)
_IR_DTYPE_CACHE: dict = {dtypes.float0: "i1"}


def ir_dtype(dtype) -> str:
    out = _IR_DTYPE_CACHE.get(dtype)
    if out is None:
        try:
            out = _IR_DTYPE_CACHE[dtype] = _IR_DTYPES[np.dtype(dtype).name]
        except KeyError:
            raise TypeError(f"dtype {np.dtype(dtype).name} cannot be lowered to StableHLO") from None
    return out


def tensor_type(shape, dtype) -> str:
    # a symbolic dimension (export's DimExpr) is dynamic: `?`
    dims = "".join(f"{d}x" if isinstance(d, (int, np.integer)) else "?x" for d in shape)
    return f"tensor<{dims}{ir_dtype(dtype)}>"


_AVAL_TYPES: dict = {}


def aval_type(aval) -> str:
    t = _AVAL_TYPES.get(aval)
    if t is None:
        if len(_AVAL_TYPES) > 65536:
            _AVAL_TYPES.clear()
        t = _AVAL_TYPES[aval] = tensor_type(aval.shape, aval.dtype)
    return t


# --- attribute formatting -------------------------------------------------------------------


def i64_array(xs) -> str:
    return "array<i64: " + ", ".join(str(int(x)) for x in xs) + ">" if len(xs) else "array<i64>"


def i64(x) -> str:
    return f"{int(x)} : i64"


def i64_list(xs) -> str:
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


def enum(dialect_kind: str, value: str) -> str:
    """`#stablehlo<comparison_direction LT>`."""
    return f"#stablehlo<{dialect_kind} {value}>"


def dense(value, dtype, shape=None) -> str:
    """A dense elements attribute. Raw little-endian hex keeps every bit exact (NaN payloads,
    infinities, bf16, complex); when all elements are bitwise equal it is a splat."""
    if dtypes.is_float0(dtype):
        value, dtype = np.zeros(np.shape(value), np.bool_), np.bool_
    arr = np.asarray(value, dtype=dtype)
    shape = arr.shape if shape is None else tuple(shape)
    flat = np.ascontiguousarray(arr).reshape(-1)
    if flat.size > 1:
        rows = flat.view(np.uint8).reshape(flat.size, -1)
        if np.all(rows == rows[0]):
            flat = flat[:1]
    if arr.dtype == np.bool_:
        body = ("true" if flat[0] else "false") if flat.size == 1 else _nested_bools(arr)
    else:
        body = '"0x' + flat.astype(flat.dtype.newbyteorder("<")).tobytes().hex().upper() + '"'
    return f"dense<{body}> : {tensor_type(shape, dtype)}"


def _nested_bools(arr) -> str:
    if arr.ndim == 0:
        return "true" if arr else "false"
    return "[" + ", ".join(_nested_bools(a) for a in arr) + "]"


def format_attrs(attrs: dict | None) -> str:
    if not attrs:
        return ""
    return " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"


# --- functions and ops ----------------------------------------------------------------------


class FuncBuilder:
    """Accumulates the body of one `func.func`, naming SSA values and remembering their types."""

    def __init__(self):
        self.lines: list[str] = []
        self.types: dict[str, str] = {}
        self._indent = 4
        self._count = 0
        self.const_cache: dict = {}
        self.tokens: dict = {}   # ordered effect -> the SSA name of its current token
        # debug locations (`Lowered.as_text(debug_info=True)`): the name-stack prefix of the
        # equations being lowered (None: no locations are written) and the current op's `loc`
        self.name_prefix = None
        self.loc = ""
        self.frame = None  # (file, line, column) of the equation being lowered

    def fresh(self, prefix="%") -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def emit(self, line: str):
        self.lines.append(" " * self._indent + line)

    def op(self, name: str, operands, result_types, attrs=None, regions=None) -> list[str]:
        """Emit one op and return the names of its results."""
        in_types = ", ".join(self.types[o] for o in operands)
        out_types = ", ".join(result_types)
        if len(result_types) == 1:
            res = self.fresh()
            results = [res]
            lhs = f"{res} = "
        elif result_types:
            res = self.fresh()
            results = [f"{res}#{i}" for i in range(len(result_types))]
            lhs = f"{res}:{len(result_types)} = "
        else:
            results, lhs = [], ""
        for r, t in zip(results, result_types, strict=True):
            self.types[r] = t
        out_sig = f"({out_types})" if len(result_types) != 1 else out_types
        sig = f" : ({in_types}) -> {out_sig}"
        head = f'{lhs}"{name}"({", ".join(operands)})'
        if not regions:
            self.emit(f"{head}{format_attrs(attrs)}{sig}{self.loc}")
            return results
        loc = self.loc
        self.emit(head + " ({")
        for i, region in enumerate(regions):
            if i:
                self.emit("}, {")
            self._emit_region(*region)
        self.emit(f"}}){format_attrs(attrs)}{sig}{loc}")
        return results

    def _emit_region(self, arg_types, body_fn, terminator="stablehlo.return"):
        """One region: a block with typed arguments; `body_fn(*arg_names)` emits the body and
        returns the names to `terminator` (`stablehlo.return`, or `sdy.return`...)."""
        args = [self.fresh("%a") for _ in arg_types]
        for a, t in zip(args, arg_types, strict=True):
            self.types[a] = t
        if args:  # (a block without arguments needs no label)
            self.emit("^bb0(" + ", ".join(f"{a}: {t}" for a, t in zip(args, arg_types,
                                                                     strict=True)) + "):")
        self._indent += 2
        with self.scoped_consts():
            outs = body_fn(*args)
            self.op(terminator, list(outs), [])
        self._indent -= 2

    def constant(self, value, dtype, shape=()) -> str:
        """A (splat) constant, emitted once per function."""
        key = (np.asarray(value, dtype).tobytes(), np.dtype(dtype).str, tuple(shape))
        name = self.const_cache.get(key)
        if name is None:
            name = self.op("stablehlo.constant", [], [tensor_type(shape, dtype)],
                           {"value": dense(value, dtype, shape)})[0]
            self.const_cache[key] = name
        return name

    @contextmanager
    def scoped_consts(self):
        """Constants and effect tokens made inside a region must not be used outside it.
        NB: a region starts its own token chain; threading tokens through control-flow
        regions (and across executables) comes with the first ordered-effect primitive."""
        saved = self.const_cache, self.tokens
        self.const_cache, self.tokens = {}, {}
        try:
            yield
        finally:
            self.const_cache, self.tokens = saved


def name_loc(name: str, file=None, line=0, column=0) -> str:
    """` loc("name"("file":line:column))`: an op's location as JAX writes it (its name stack,
    and the user's line when known)."""
    def q(text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    inner = f"({q(file)}:{int(line)}:{int(column)})" if file else ""
    return f" loc({q(name)}{inner})"


def module_text(name: str, args: list[tuple[str, str, str]], results: list[str], body: list[str],
                ret_names: list[str], num_replicas=1, num_partitions=1,
                result_attrs=None, functions=(), declarations=()) -> str:
    """Assemble a module. `args` holds (name, type, extra attributes) triples;
    `result_attrs` one attribute string per result ("" for none); `functions` holds the texts
    of further (private) functions, placed after `main`, and `declarations` module-level ops
    placed before it (Shardy's meshes)."""
    arg_sig = ", ".join(f"{n}: {t}{(' ' + a) if a else ''}" for n, t, a in args)
    res_sig = ", ".join(f"{t}{(' ' + a) if a else ''}"
                        for t, a in zip(results, result_attrs or [""] * len(results), strict=True))
    ret_types = ", ".join(results)
    lines = [f"module @{name} attributes {{mhlo.num_partitions = {num_partitions} : i32, "
             f"mhlo.num_replicas = {num_replicas} : i32}} {{", *declarations,
             f"  func.func public @main({arg_sig}) -> ({res_sig}) {{",
             *body,
             f'    "func.return"({", ".join(ret_names)}) : ({ret_types}) -> ()',
             "  }", *functions, "}"]
    return "\n".join(lines) + "\n"
