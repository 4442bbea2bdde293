"""The XLA foreign function interface (`jax.ffi`): calling C/C++ functions from compiled code.

A C++ handler written against the XLA FFI headers that jaxlib ships (`include_dir()`,
`xla/ffi/api/ffi.h`) and compiled into a shared library is registered with XLA by name
(`register_ffi_target(name, pycapsule(lib.Fn))`). `ffi_call(name, result_shape_dtypes)` then
returns a function that calls it: one `ffi_call` primitive, with all its rules in one block
below, that lowers to `stablehlo.custom_call @name` with the keyword arguments encoded as the
handler's attributes (`mhlo.backend_config = {eps = 1.0e-05 : f32, ...}`), as JAX emits them.
It runs eagerly (a one-primitive executable) and under jit; under vmap as its `vmap_method`
says; it is not differentiable (wrap it in `custom_jvp` / `custom_vjp`).

Attribute encoding (what the handler's `.Attr<T>("name")` decodes): a Python `int` is i64, a
`float` f64, a `bool` i1 (pred), NumPy scalars keep their type (`np.float32(1.)` is f32), a
`str` is a string, a NumPy array a dense array attribute, a `np.dtype` a type attribute, a
tuple/list an array attribute and a dict a dictionary (nested attributes).
"""
from __future__ import annotations

import ctypes
import dataclasses
from typing import Any, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.backend import xla
from pyjax._src.callback import _front, _sequential_batch
from pyjax._src.core import ShapedArray
from pyjax._src.lax import shape_ops
from pyjax._src.lax.utils import standard_primitive
from pyjax._src.lowering import mlir

# -- registration --------------------------------------------------------------------------------


def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1,
                        **kwargs: Any) -> None:
    """Register the handler `fn` (a PyCapsule, see `pycapsule`, or a dict of them by FFI stage)
    as the target `name` for `ffi_call`. `api_version=1` is the typed FFI
    (`XLA_FFI_DEFINE_HANDLER_SYMBOL`), 0 the legacy custom-call API.

    >>> lib = ctypes.cdll.LoadLibrary("./librms.so")                     # doctest: +SKIP
    >>> jax.ffi.register_ffi_target("rms_norm", jax.ffi.pycapsule(lib.RmsNorm))  # doctest: +SKIP
    """
    xla.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type_id(name: str, obj: Any, platform: str = "cpu") -> None:
    """Gone from jaxlib (as in JAX 0.10.2, which raises): use `register_ffi_type`."""
    raise ValueError("register_ffi_type_id is not supported after jaxlib version 381.")


def register_ffi_type(name: str, type_registration: dict, platform: str = "cpu") -> None:
    """Register a user type for FFI handlers: `type_registration` is a dict with `type_id` (a
    PyCapsule holding an `XLA_FFI_TypeId*`) and optionally `type_info`."""
    xla.register_custom_type(name, type_registration, platform)


def register_ffi_target_as_batch_partitionable(name: str) -> None:
    """Tell XLA's SPMD partitioner that target `name` may be split along its batch dimensions."""
    xla.register_custom_call_as_batch_partitionable(name)


def pycapsule(funcptr):
    """Wrap a ctypes function pointer (`ctypes.cdll.LoadLibrary(path).Fn`) in a PyCapsule, the
    form `register_ffi_target` takes.

    >>> capsule = jax.ffi.pycapsule(ctypes.cdll.LoadLibrary("./libk.so").Fn)  # doctest: +SKIP
    """
    destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
    return new(ctypes.cast(funcptr, ctypes.c_void_p), None, destructor(0))


def include_dir() -> str:
    """The directory holding the XLA FFI headers jaxlib ships: compile handlers with
    `-I{jax.ffi.include_dir()}` and `#include "xla/ffi/api/ffi.h"`."""
    return xla.jaxlib_include_dir()


# -- attributes ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _HashableArray:
    """A NumPy array attribute, compared and hashed by value (parameters must be hashable)."""
    val: np.ndarray

    def __eq__(self, other):
        return (isinstance(other, _HashableArray) and self.val.dtype == other.val.dtype
                and self.val.shape == other.val.shape and np.array_equal(self.val, other.val))

    def __hash__(self):
        return hash((self.val.dtype.str, self.val.shape, self.val.tobytes()))


@dataclasses.dataclass(frozen=True)
class _FrozenDict:
    items: tuple

    def as_dict(self):
        return dict(self.items)


def _hashable(name, v):
    if isinstance(v, np.ndarray):
        return _HashableArray(np.array(v))   # a private copy: the caller may mutate theirs
    if isinstance(v, dict):
        return _FrozenDict(tuple((k, _hashable(f"{name}.{k}", x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(_hashable(name, x) for x in v)
    try:
        hash(v)
    except TypeError:
        raise TypeError(f"Non-hashable keyword argument to ffi_call {name}: {v!r}") from None
    return v


def _hex_float(x, dtype) -> str:
    """A float attribute by its bits: exact for every value, infinities and NaN included."""
    bits = np.asarray(x, dtype).reshape(1).view(f"u{np.dtype(dtype).itemsize}")[0]
    return f"0x{int(bits):0{2 * np.dtype(dtype).itemsize}X}"


def _scalar_attr(x) -> str:
    x = np.asarray(x)
    t = mlir.ir_dtype(x.dtype)
    if x.dtype == np.bool_:
        return "true" if x else "false"
    if np.issubdtype(x.dtype, np.integer):
        return f"{int(x)} : {t}"
    if np.issubdtype(x.dtype, np.floating):
        return f"{_hex_float(x, x.dtype)} : {t}"
    raise TypeError(f"ffi_call: unsupported scalar attribute type: {x.dtype}")


def ir_attribute(v) -> str:
    """The MLIR text of one FFI attribute value (see the module docstring for the encoding)."""
    if isinstance(v, _HashableArray):
        v = v.val
    if isinstance(v, _FrozenDict):
        v = v.as_dict()
    if isinstance(v, (str, bytes)):
        s = v.decode() if isinstance(v, bytes) else v
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return _scalar_attr(np.int64(v))
    if isinstance(v, float):
        return _scalar_attr(np.float64(v))
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return mlir.ir_dtype(np.dtype(v))
    if isinstance(v, np.generic):
        return _scalar_attr(v)
    if isinstance(v, np.ndarray):
        if v.dtype.kind not in "biuf":
            raise TypeError(f"ffi_call: unsupported array attribute dtype: {v.dtype}")
        return mlir.dense(v, v.dtype)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {ir_attribute(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(ir_attribute(x) for x in v) + "]"
    raise TypeError(f"No attribute handler defined for type: {type(v)}")


# -- layouts -------------------------------------------------------------------------------------


def _default_layout(ndim) -> tuple:
    return tuple(range(ndim - 1, -1, -1))


def _layout_for_lowering(aval, layout) -> tuple:
    """A minor-to-major dimension order, as XLA's custom call takes it. `layout` is None
    (row-major), or a Layout-like object with `major_to_minor` (no tiling), or minor-to-major."""
    if layout is None:
        return _default_layout(aval.ndim)
    if hasattr(layout, "major_to_minor"):
        if getattr(layout, "tiling", None):
            raise ValueError("The FFI does not support layouts with tiling")
        return tuple(layout.major_to_minor)[::-1]
    return tuple(int(d) for d in layout)


def _layouts_for_call(avals, layouts) -> tuple:
    """ffi_call's layouts: sequences of ints there are major-to-minor."""
    return tuple(_layout_for_lowering(a, l if l is None or hasattr(l, "major_to_minor")
                                      else tuple(l)[::-1])
                 for a, l in zip(avals, layouts, strict=True))


def _layout_text(layout) -> str:
    if not layout:
        return "dense<> : tensor<0xindex>"
    return f"dense<[{', '.join(map(str, layout))}]> : tensor<{len(layout)}xindex>"


# -- the lowering, usable as a primitive's rule (`ffi_lowering`) -----------------------------------


def build_ffi_lowering_function(call_target_name: str, *, operand_layouts=None, result_layouts=None,
                                backend_config=None, skip_ffi_layout_processing=False,
                                **lowering_args):
    """A function `(ctx, *operands, **attributes) -> result names` that emits the custom call
    of `call_target_name` through pyjax's emitter. Layouts here are minor-to-major (XLA's
    order); the keyword arguments become the handler's attributes. Extra options:
    `api_version` (default 4, the typed FFI), `has_side_effect`,
    `operand_output_aliases` ({operand: result})."""
    api_version = lowering_args.pop("api_version", 4)
    has_side_effect = lowering_args.pop("has_side_effect", False)
    aliases = dict(lowering_args.pop("operand_output_aliases", None) or {})
    lowering_args.pop("result_types", None)
    if lowering_args:
        raise TypeError(f"ffi_lowering: unsupported options {sorted(lowering_args)}")

    def lower(ctx, *operands, **params):
        attrs = {"call_target_name": ir_attribute(call_target_name)}
        if api_version >= 4:
            if backend_config is not None and not isinstance(backend_config, dict):
                raise ValueError("When api_version > 4, backend_config must be a dictionary.")
            config = dict(backend_config or {}, **params)
            # NB (as JAX): the typed FFI is api_version 1 in the op, with the attributes in
            # `mhlo.backend_config`; XLA reads a dictionary there as the FFI attributes.
            attrs["api_version"] = "1 : i32"
            attrs["backend_config"] = '""'
            attrs["mhlo.backend_config"] = ir_attribute(config)
        else:
            if params:
                raise ValueError("The use of ffi_call attributes requires a custom call API "
                                 f"version of at least 4; got api_version={api_version}.")
            attrs["api_version"] = f"{int(api_version)} : i32"
            attrs["backend_config"] = ir_attribute(backend_config or "")
        if has_side_effect:
            attrs["has_side_effect"] = "true"
        if not skip_ffi_layout_processing:
            ins = [_layout_for_lowering(a, l) for a, l in
                   zip(ctx.avals_in, operand_layouts or [None] * len(ctx.avals_in))]
            outs = [_layout_for_lowering(a, l) for a, l in
                    zip(ctx.avals_out, result_layouts or [None] * len(ctx.avals_out))]
            attrs["operand_layouts"] = "[" + ", ".join(map(_layout_text, ins)) + "]"
            attrs["result_layouts"] = "[" + ", ".join(map(_layout_text, outs)) + "]"
        if aliases:
            attrs["output_operand_aliases"] = "[" + ", ".join(
                f"#stablehlo.output_operand_alias<output_tuple_indices = "
                f"{'[]' if len(ctx.avals_out) == 1 else f'[{o}]'}, operand_index = {i}, "
                f"operand_tuple_indices = []>" for i, o in sorted(aliases.items())) + "]"
        return ctx.fb.op("stablehlo.custom_call", list(operands),
                         [mlir.aval_type(a) for a in ctx.avals_out], attrs)
    return lower


def ffi_lowering(call_target_name: str, *, operand_layouts=None, result_layouts=None,
                 backend_config=None, skip_ffi_layout_processing=False, **lowering_args):
    """A lowering rule for a primitive of one's own that calls an FFI target:
    `mlir.register_lowering(my_p, jax.ffi.ffi_lowering("my_target"))`; the primitive's
    parameters become the handler's attributes."""
    build = build_ffi_lowering_function(
        call_target_name, operand_layouts=operand_layouts, result_layouts=result_layouts,
        backend_config=backend_config, skip_ffi_layout_processing=skip_ffi_layout_processing,
        **lowering_args)

    def rule(ctx, *operands, **params):
        outs = build(ctx, *operands, **params)
        return outs if len(ctx.avals_out) != 1 else outs[0]
    return rule


# -- ffi_call ------------------------------------------------------------------------------------

_VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None]

ffi_effect = core.Effect("FFI")


def _result_aval(i, r) -> ShapedArray:
    if not (hasattr(r, "shape") and hasattr(r, "dtype")):
        raise ValueError("All elements of result_shape_dtypes must have 'shape' and 'dtype' "
                         f"attributes. Got {r} at position {i}.")
    dt = np.dtype(r.dtype)
    if dtypes.canonicalize_dtype(dt) != dt:
        raise ValueError(f"ffi_call: result {i} has dtype {dt.name}, a 64-bit type while "
                         "`jax_enable_x64` is disabled")
    return ShapedArray(tuple(int(d) for d in r.shape), dt)


def ffi_call(target_name: str, result_shape_dtypes, *, has_side_effect: bool = False,
             vmap_method: str | None = None, input_layouts=None, output_layouts=None,
             input_output_aliases: dict | None = None, custom_call_api_version: int = 4,
             legacy_backend_config: str | None = None):
    """A function calling the FFI target `target_name` (see `register_ffi_target`).

    `result_shape_dtypes` is one `jax.ShapeDtypeStruct` (the call returns one array) or a
    sequence of them (it returns a list, or a tuple for a tuple). The returned function takes
    the input arrays positionally and the handler's attributes as keyword arguments:

    >>> rms = jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype),
    ...                        vmap_method="broadcast_all")                  # doctest: +SKIP
    >>> y = rms(x, eps=np.float32(1e-5))                                    # doctest: +SKIP

    `vmap_method`: "sequential" (a loop of calls), "sequential_unrolled", "expand_dims" (one
    call, unbatched inputs get a leading axis of size 1), "broadcast_all" (one call, every
    input broadcast to the batch), "legacy_vectorized"; None: vmap raises. `input_layouts` /
    `output_layouts`: per array, None (row-major) or a major-to-minor axis order.
    `input_output_aliases` {input: output} lets the result reuse an input's buffer.
    """
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {_VMAP_METHODS}, "
                         f"but got: {vmap_method}")
    multiple = isinstance(result_shape_dtypes, Sequence)
    results = list(result_shape_dtypes) if multiple else [result_shape_dtypes]
    result_avals = tuple(_result_aval(i, r) for i, r in enumerate(results))
    out_layouts = output_layouts if multiple else (output_layouts,)
    if custom_call_api_version >= 4 and legacy_backend_config is not None:
        raise ValueError("The use of the legacy_backend_config parameter requires "
                         f"custom_call_api_version < 4; got {custom_call_api_version}.")

    def call(*args, **kwargs):
        in_avals = [core.get_aval(x) for x in args]
        if input_layouts is None:
            in_l = tuple(_default_layout(a.ndim) for a in in_avals)
        else:
            if len(input_layouts) != len(in_avals):
                raise ValueError(f"The number of input arguments ({len(in_avals)}) must equal "
                                 f"the number of input layouts ({len(input_layouts)}).")
            in_l = _layouts_for_call(in_avals, input_layouts)
        if out_layouts is None:
            out_l = tuple(_default_layout(a.ndim) for a in result_avals)
        else:
            if len(out_layouts) != len(result_avals):
                raise ValueError(f"The number of outputs ({len(result_avals)}) must equal the "
                                 f"number of output layouts ({len(out_layouts)}).")
            out_l = _layouts_for_call(result_avals, out_layouts)
        aliases = _check_aliases(input_output_aliases, in_avals, result_avals, in_l, out_l)
        outs = ffi_call_p.bind(
            *args, target_name=target_name, result_avals=result_avals,
            has_side_effect=bool(has_side_effect), vmap_method=vmap_method,
            input_layouts=in_l, output_layouts=out_l, input_output_aliases=aliases,
            custom_call_api_version=int(custom_call_api_version),
            legacy_backend_config=legacy_backend_config,
            attributes=tuple((k, _hashable(k, v)) for k, v in sorted(kwargs.items())))
        if not multiple:
            return outs[0]
        return tuple(outs) if isinstance(result_shape_dtypes, tuple) else list(outs)
    return call


def _check_aliases(aliases, in_avals, out_avals, in_l, out_l) -> tuple:
    checked = []
    for i, o in sorted((aliases or {}).items()):
        i, o = int(i), int(o)
        what = f"input_output_aliases contains the mapping '{i}:{o}'"
        if not 0 <= i < len(in_avals):
            raise ValueError(f"{what} with input index {i} outside the range [0, {len(in_avals)}).")
        if not 0 <= o < len(out_avals):
            raise ValueError(f"{what} with output index {o} outside the range "
                             f"[0, {len(out_avals)}).")
        a, b = in_avals[i], out_avals[o]
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"{what} referring to an input with abstract value "
                             f"{a.str_short()} and an output with a different abstract value "
                             f"{b.str_short()}.")
        if in_l[i] != out_l[o]:
            raise ValueError(f"{what} referring to an input with layout {in_l[i]} and an "
                             f"output with a different layout {out_l[o]}.")
        checked.append((i, o))
    return tuple(checked)


ffi_call_p = standard_primitive("ffi_call", multiple_results=True)


@ffi_call_p.def_abstract_eval
def _ffi_call_abstract_eval(*avals, result_avals, **params):
    return list(result_avals)


ffi_call_p.def_effects(lambda *, has_side_effect, **params:
                       frozenset({ffi_effect}) if has_side_effect else core.no_effects)


def _not_differentiable(*args, target_name, **params):
    raise ValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can use "
                     "`jax.custom_jvp` or `jax.custom_vjp` to add support.")


ffi_call_p.def_jvp(lambda primals, tangents, **params: _not_differentiable(**params))
ffi_call_p.def_transpose(lambda cts, *args, **params: _not_differentiable(**params))


def _batched_layout(layout):
    """A row-major-or-not layout with a new leading (most major) batch axis."""
    return tuple(d + 1 for d in layout) + (0,)


@ffi_call_p.def_batch
def _ffi_call_batch(axis_size, args, dims, *, vmap_method, result_avals, **params):
    if vmap_method in ("sequential", "sequential_unrolled"):
        return _sequential_batch(ffi_call_p, axis_size, args, dims,
                                 unroll=vmap_method == "sequential_unrolled",
                                 vmap_method=vmap_method, result_avals=result_avals, **params)
    if vmap_method not in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        raise NotImplementedError(
            f"vmap is only supported for the {ffi_call_p.name} primitive when vmap_method is one "
            "of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={vmap_method!r}.")
    args = [_front(x, d) for x, d in zip(args, dims, strict=True)]
    if vmap_method == "legacy_vectorized":
        in_l = tuple(l if d is None else _batched_layout(l)
                     for l, d in zip(params["input_layouts"], dims, strict=True))
    else:
        size = axis_size if vmap_method == "broadcast_all" else 1
        args = [shape_ops.broadcast(x, (size,)) if d is None else x
                for x, d in zip(args, dims, strict=True)]
        in_l = tuple(map(_batched_layout, params["input_layouts"]))
    params = dict(params, input_layouts=in_l,
                  output_layouts=tuple(map(_batched_layout, params["output_layouts"])))
    batched = tuple(a.update(shape=(axis_size, *a.shape)) for a in result_avals)
    outs = ffi_call_p.bind(*args, vmap_method=vmap_method, result_avals=batched, **params)
    return outs, [0] * len(outs)


@ffi_call_p.def_lowering
def _ffi_call_lowering(ctx, *operands, target_name, result_avals, has_side_effect, vmap_method,
                       input_layouts, output_layouts, input_output_aliases,
                       custom_call_api_version, legacy_backend_config, attributes):
    rule = build_ffi_lowering_function(
        target_name, operand_layouts=input_layouts, result_layouts=output_layouts,
        backend_config=legacy_backend_config, api_version=custom_call_api_version,
        has_side_effect=has_side_effect, operand_output_aliases=dict(input_output_aliases))
    return rule(ctx, *operands, **dict(attributes))
