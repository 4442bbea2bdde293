"""`export(jit(f))(*specs)` → `Exported`: a jitted function's StableHLO module with its calling
signature, serializable (`serialization.py`), callable again (`Exported.call`) in this or
another process, eagerly or inside other jitted functions, and differentiable through its
serialized VJP.

Calling: `call_exported` is a primitive. Its abstract evaluation checks the arguments against
the exported avals (rank, dtype, constant dims, and the values of the symbolic dimension
variables, solved from the arguments' shapes) and gives the results' avals. Its lowering
specializes the module to the call's concrete shapes with jaxlib's StableHLO shape refinement
pass (`refine_polymorphic_shapes`: the exported `main` is called from a wrapper whose argument
types are static, and the pass propagates them through the dynamic ops), then places the refined
functions in the calling module, renamed, and emits a `func.call`. A call whose shapes are
themselves symbolic (exporting a function that calls an Exported) embeds the module unrefined.

Differentiation: `Exported.call` is a `custom_vjp` function whose backward pass calls the VJP's
Exported (`Exported.vjp()`), which is exported on demand from the original function, or read
from the blob when it was serialized with `vjp_order >= 1`.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
import threading
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import core, dispatch, dtypes, spmd, tree_util
from pyjax._src.ad_api import vjp
from pyjax._src.array import ShapeDtypeStruct
from pyjax._src.backend import xla
from pyjax._src.custom_derivatives import custom_vjp
from pyjax._src.export import flatbuf, serialization, shape_poly, sharded, solve
from pyjax._src.export.shape_poly import DimExpr
from pyjax._src.lax import helpers as lax
from pyjax._src.config import config
from pyjax._src.lowering import lower, mlir, sdy
from pyjax._src.mesh import get_mesh
from pyjax._src.pjit import jit, jit_info

# The module calling convention (JAX's, versions 9 and 10): `main`'s arguments are the platform
# index (an i32 scalar, when exported for several platforms), one token per ordered effect, then
# the kept array arguments (`module_kept_var_idx`); its results are one token per ordered effect,
# then the array results. Dimension variables are computed inside `main` from the arguments'
# shapes (and checked there by `shape_assertion` custom calls in JAX's modules).
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10


class DisabledSafetyCheck:
    """A safety check to skip when calling an Exported: `platform()` (the current platform need
    not be one the module was exported for), `custom_call(name)`, `shape_assertions()`."""

    def __init__(self, _impl: str):
        self._impl = _impl

    @classmethod
    def platform(cls) -> DisabledSafetyCheck:
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
        return cls("custom_call:" + target_name)

    @classmethod
    def shape_assertions(cls) -> DisabledSafetyCheck:
        return cls("shape_assertions")

    def is_custom_call(self) -> str | None:
        return self._impl[len("custom_call:"):] if self._impl.startswith("custom_call:") else None

    def __str__(self):
        return self._impl

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, DisabledSafetyCheck) and self._impl == other._impl

    def __hash__(self):
        return hash(self._impl)


def default_export_platform() -> str:
    """The platform modules are exported for by default: the default backend's."""
    return xla.default_backend()


@dataclasses.dataclass(frozen=True, eq=False)
class Exported:
    """A function exported for some argument shapes: its StableHLO module and signature.

    >>> exp = export(jit(jnp.sin))(ShapeDtypeStruct((3,), jnp.float32))
    >>> exp.in_avals, exp.out_avals
    ((ShapedArray(float32[3]),), (ShapedArray(float32[3]),))
    >>> exp.call(jnp.arange(3.0))
    """

    fun_name: str
    in_tree: Any
    in_avals: tuple
    out_tree: Any
    out_avals: tuple
    in_shardings_hlo: tuple
    out_shardings_hlo: tuple
    nr_devices: int
    platforms: tuple
    ordered_effects: tuple
    unordered_effects: tuple
    disabled_safety_checks: tuple
    mlir_module_serialized: bytes   # a StableHLO portable artifact (versioned bytecode)
    calling_convention_version: int
    module_kept_var_idx: tuple
    uses_global_constants: bool
    _get_vjp: Callable | None = None
    _scope: Any = None
    # the shardings as JAX's format carries them: a NamedSharding over an AbstractMesh or None
    # (unspecified) per argument / result (None: all unspecified)
    _in_named_shardings: tuple | None = None
    _out_named_shardings: tuple | None = None

    def mlir_module(self) -> str:
        """The StableHLO module text (dynamic dimensions as `?`), with its locations."""
        return xla.deserialize_portable_artifact(self.mlir_module_serialized, debug_info=True)

    def __str__(self):
        return f"Exported(fun_name={self.fun_name!r}, in_avals={self.in_avals}, out_avals={self.out_avals})"

    def __repr__(self):
        return (f"Exported(fun_name={self.fun_name!r}, in_tree={self.in_tree}, "
                f"in_avals={self.in_avals}, out_tree={self.out_tree}, out_avals={self.out_avals}, "
                f"in_shardings_hlo={self.in_shardings_hlo}, out_shardings_hlo={self.out_shardings_hlo}, "
                f"nr_devices={self.nr_devices}, platforms={self.platforms})")

    def has_vjp(self) -> bool:
        return self._get_vjp is not None

    def vjp(self) -> Exported:
        """The Exported of the VJP: `(*primals, *out_cotangents) -> in_cotangents`, flat."""
        if self._get_vjp is None:
            raise ValueError(f"No VJP is available for the exported function '{self.fun_name}': "
                             "it was deserialized from a blob serialized with vjp_order=0. "
                             "Serialize with vjp_order=1 (or more) to keep its VJP.")
        return self._get_vjp(self)

    def in_shardings_jax(self, mesh):
        """The exported in-shardings over `mesh` (a Mesh or AbstractMesh of the exported mesh's
        axes), for `jit` or `device_put`; None where unspecified."""
        return sharded.shardings_on(self._in_named_shardings or (None,) * len(self.in_avals), mesh)

    def out_shardings_jax(self, mesh):
        return sharded.shardings_on(self._out_named_shardings or (None,) * len(self.out_avals), mesh)

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """Bytes that `deserialize` (pyjax's or JAX's) turns back into this Exported: JAX
        0.10.2's flatbuffer format (`flatbuf.py`); `vjp_order=k` keeps k levels of VJPs."""
        return bytearray(flatbuf.encode(_to_data(self, vjp_order)))

    def call(self, *args, **kwargs):
        """Call the exported function (eagerly, or inside a transformation or jit)."""
        return call_exported(self)(*args, **kwargs)


# -- export -----------------------------------------------------------------------------------------


def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()) -> Callable[..., Exported]:
    """Export a jitted function: `export(jit(f))(*args_specs, **kwargs_specs)` traces `f` on
    the specs (ShapeDtypeStructs, possibly with symbolic dimensions from `symbolic_shape`, or
    arrays) and returns an `Exported`.

    >>> b, = symbolic_shape("b")
    >>> exp = export(jit(lambda x: x.sum(0)))(ShapeDtypeStruct((b, 4), jnp.float32))
    >>> exp.in_avals
    (ShapedArray(float32[b,4]),)
    """
    if not (callable(fun_jit) and "_jit_info" in getattr(fun_jit, "__dict__", {})):
        raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit}")
    info = jit_info(fun_jit)
    if platforms is None:
        platforms = (default_export_platform(),)
    else:
        platforms = tuple(_canonical_platform(p) for p in platforms)

    def do_export(*args_specs, **kwargs_specs) -> Exported:
        version = config._values["jax_export_calling_convention_version"]
        if not (minimum_supported_calling_convention_version <= version
                <= maximum_supported_calling_convention_version):
            raise ValueError(
                f"The requested export calling convention version {version} is outside the "
                f"range of supported versions [{minimum_supported_calling_convention_version}"
                f"..{maximum_supported_calling_convention_version}]")
        _check_one_scope(info.name, args_specs, kwargs_specs)
        traced = info.trace(*args_specs, **kwargs_specs)
        shardings = sharded.export_shardings(info, traced, args_specs, kwargs_specs)
        exp = _export_traced(traced.name, traced.jaxpr, traced.in_tree, traced.out_tree,
                             platforms, tuple(disabled_checks), shardings, info.keep_unused)
        return dataclasses.replace(exp, calling_convention_version=version)
    return do_export


def _check_one_scope(fun_name, args_specs, kwargs_specs):
    """JAX's ValueError when the specs' symbolic dimensions come from different scopes."""
    first = None
    for path, spec in tree_util.tree_flatten_with_path((args_specs, kwargs_specs))[0]:
        for d in getattr(spec, "shape", ()):
            if not isinstance(d, DimExpr):
                continue
            where = ("args" if path[0].idx == 0 else "kwargs") + tree_util.keystr(tuple(path[1:]))
            if first is None:
                first = (d._scope, where)
            elif d._scope is not first[0]:
                raise ValueError(
                    f"Invalid mixing of symbolic scopes when exporting {fun_name}.\nExpected "
                    f"current (from {first[1]}) scope {first[0]}\nand found for '{d}' ({where}) "
                    f"scope {d._scope}\nSee https://docs.jax.dev/en/latest/export/shape_poly.html"
                    "#user-specified-symbolic-constraints.")


def _canonical_platform(p):
    """The platform's name in lower case, "gpu" as "cuda"; platforms pyjax does not know are
    kept (as JAX keeps them), lowered with the rules for every platform."""
    return {"gpu": "cuda"}.get(p.lower(), p.lower())


def _export_traced(name, closed, in_tree, out_tree, platforms, disabled, shardings,
                   keep_unused=False) -> Exported:
    """`shardings`: (in, out, mesh) from `sharded.export_shardings` (mesh None: one device).
    As JAX's, the module takes only the arguments the function reads (`module_kept_var_idx`),
    unless `keep_unused` or some shape is symbolic."""
    # ordered effects: one token argument and result each, in the order of their names
    ordered = tuple(sorted((e for e in closed.jaxpr.effects if getattr(e, "ordered", False)),
                           key=str))
    ins, outs, mesh = shardings
    infos = _result_infos(out_tree, closed.out_avals)
    kept = tuple(range(len(closed.in_avals)))
    module_closed = closed
    if not keep_unused and all(shape_poly.is_constant_shape(a.shape) for a in closed.in_avals):
        kept = _read_inputs(closed.jaxpr)
        j = closed.jaxpr
        module_closed = core.ClosedJaxpr(core.Jaxpr(j.constvars, [j.invars[i] for i in kept],
                                                    j.outvars, j.eqns, j.effects), closed.consts)
    module_shardings = (tuple(ins[i] for i in kept), outs, mesh)
    texts = [lower_for_export(name, module_closed, p, module_shardings, infos, in_tree, ordered)
             for p in platforms]
    text = (texts[0] if len(platforms) == 1
            else _multi_platform_module(name, module_closed, texts, len(ordered), infos,
                                        module_shardings))
    # (JAX's "global constants": the dimension variables and the platform index, its own or
    # those of an exported function it calls)
    uses_global_constants = (len(platforms) > 1 or not all(
        shape_poly.is_constant_shape(a.shape) for a in closed.in_avals)
        or _calls_global_constants(closed.jaxpr))
    text = text.replace(" attributes {", " attributes {jax.uses_shape_polymorphism = "
                        f"{str(uses_global_constants).lower()}, ", 1)
    in_named, out_named = tuple(map(sharded.abstract, ins)), tuple(map(sharded.abstract, outs))
    in_avals = sharded.with_sharding(closed.in_avals, in_named)
    scope = _scope_of(in_avals)
    # (JAX 0.10.2's export leaves in/out_shardings_hlo None; a deserialized blob has them)
    exp = Exported(
        fun_name=name, in_tree=in_tree, in_avals=in_avals, out_tree=out_tree,
        out_avals=sharded.with_sharding(closed.out_avals, out_named),
        in_shardings_hlo=(None,) * len(in_avals), out_shardings_hlo=(None,) * len(closed.out_avals),
        nr_devices=1 if mesh is None else mesh.size, platforms=tuple(platforms),
        ordered_effects=ordered, unordered_effects=(),
        disabled_safety_checks=disabled,
        mlir_module_serialized=_module_bytes(text),
        calling_convention_version=maximum_supported_calling_convention_version,
        module_kept_var_idx=kept, uses_global_constants=uses_global_constants,
        _get_vjp=functools.partial(_vjp_of_jaxpr, closed, platforms, disabled, shardings),
        _scope=scope, _in_named_shardings=in_named, _out_named_shardings=out_named)
    return exp


def _read_inputs(jaxpr) -> tuple:
    """The indices of the invars that the live equations (those whose results are used, or
    with effects) or the outputs read."""
    live = {v for v in jaxpr.outvars if type(v) is core.Var}
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(v in live for v in eqn.outvars):
            live.update(v for v in eqn.invars if type(v) is core.Var)
    return tuple(i for i, v in enumerate(jaxpr.invars) if v in live)


def _calls_global_constants(jaxpr) -> bool:
    """Whether `jaxpr` (or a jaxpr inside it) calls an Exported that uses global constants."""
    for eqn in jaxpr.eqns:
        if eqn.primitive is call_exported_p and eqn.params["exported"].uses_global_constants:
            return True
        for v in eqn.params.values():
            for x in (v if isinstance(v, (tuple, list)) else (v,)):
                inner = x.jaxpr if isinstance(x, core.ClosedJaxpr) else x
                if isinstance(inner, core.Jaxpr) and _calls_global_constants(inner):
                    return True
    return False


_TOKEN, _TOKEN_ATTR = "!stablehlo.token", "{jax.token = true}"


def _multi_platform_module(name, closed, texts, n_tokens, result_infos, shardings) -> str:
    """The module for several platforms: `main` takes the platform index first (then the
    ordered effects' `n_tokens` tokens) and calls the function lowered for that platform (one
    `stablehlo.case` branch per distinct lowering); over a mesh, `main`'s arguments and results
    carry the shardings, and the module declares the platforms' meshes."""
    distinct = list(dict.fromkeys(texts))
    fb = mlir.FuncBuilder()
    ins, outs, mesh = shardings
    module = lower.ModuleContext(None)
    module.shardy = mesh is not None and config._values["jax_use_shardy_partitioner"]
    in_attrs, out_attrs = sharded.main_attributes(module, ins, outs, closed.in_avals,
                                                  closed.out_avals)
    args = [("%arg0", "tensor<i32>", '{jax.global_constant = "_platform_index"}')]
    fb.types["%arg0"] = "tensor<i32>"
    types = [_TOKEN] * n_tokens + [mlir.aval_type(v.aval) for v in closed.jaxpr.invars]
    attrs = [_TOKEN_ATTR] * n_tokens + [f"{{{a}}}" if a else "" for a in in_attrs]
    for i, (t, a) in enumerate(zip(types, attrs, strict=True)):
        n = f"%arg{i + 1}"
        fb.types[n] = t
        args.append((n, t, a))
    out_types = [_TOKEN] * n_tokens + [mlir.aval_type(a) for a in closed.out_avals]
    functions = []
    for k, text in enumerate(distinct):
        functions += _rename_functions(_module_functions(text), f"_platform_{k}")

    def call(k):
        return fb.op("func.call", [n for n, _, _ in args[1:]], out_types,
                     {"callee": f"@_platform_{k}_main"})
    if len(distinct) == 1:
        results = call(0)
    else:
        results = fb.op("stablehlo.case", ["%arg0"], out_types, regions=[
            ([], lambda t=t: call(distinct.index(t))) for t in texts])
    return mlir.module_text(lower._sanitize(f"jit_{name}"), args, out_types, fb.lines, results,
                            num_partitions=1 if mesh is None else mesh.size,
                            result_attrs=[_TOKEN_ATTR] * n_tokens + [
                                "{" + ", ".join([f"jax.result_info = {_mlir_string(i)}"]
                                                + ([a] if a else [])) + "}"
                                for i, a in zip(result_infos, out_attrs, strict=True)],
                            functions=[t for _, t in functions],
                            declarations=sharded.mesh_declarations(texts[0]))


_module_texts: dict = {}


def _module_bytes(text: str) -> bytes:
    """The module text as a StableHLO portable artifact (its text is remembered)."""
    blob = xla.serialize_portable_artifact(text)
    _remember_text(blob, xla.deserialize_portable_artifact(blob))
    return blob


def _remember_text(blob, text):
    with _callee_lock:
        if len(_module_texts) > 256:
            _module_texts.clear()
        _module_texts[blob] = text


def _module_text(blob: bytes) -> str:
    with _callee_lock:
        text = _module_texts.get(blob)
    if text is None:
        text = xla.deserialize_portable_artifact(blob)
        _remember_text(blob, text)
    return text


def _scope_of(avals):
    for a in avals:
        for d in a.shape:
            if isinstance(d, DimExpr):
                return d._scope
    return None


def _vjp_of_jaxpr(closed, platforms, disabled, shardings, primal: Exported) -> Exported:
    """Export the VJP of the traced function: `(*primals, *cts) -> in_cts` (flat), laid out as
    the primal's arguments and results (`shardings`: its (in, out, mesh))."""
    n_in = len(closed.in_avals)
    fwd = core.jaxpr_as_fun(closed)

    def fun_vjp_jax(*primals_and_cts):
        primals, cts = primals_and_cts[:n_in], primals_and_cts[n_in:]
        keep = [_differentiable(a) for a in closed.out_avals]  # (integer outputs have no cts)
        diff = [_differentiable(a) for a in closed.in_avals]   # (nor integer inputs)

        def fun_of_diff(*xs):
            it = iter(xs)
            args = [next(it) if d else p for p, d in zip(primals, diff, strict=True)]
            return [o for o, k in zip(fwd(*args), keep, strict=True) if k]
        _, pullback = vjp(fun_of_diff, *[p for p, d in zip(primals, diff, strict=True) if d])
        in_cts = iter(pullback([c for c, k in zip(cts, keep, strict=True) if k]))
        # (an integer value's cotangent is float0: bool zeros in the module, as JAX's)
        return tuple(next(in_cts) if d else lax.full(a.shape, False, np.bool_)
                     for d, a in zip(diff, closed.in_avals, strict=True))

    specs = [ShapeDtypeStruct(a.shape, a.dtype if _differentiable(a) or i < n_in else np.bool_)
             for i, a in enumerate((*closed.in_avals, *closed.out_avals))]
    ins, outs, mesh = shardings
    traced = jit_info(jit(fun_vjp_jax)).trace(*specs)
    exp = _export_traced(traced.name, traced.jaxpr, traced.in_tree, traced.out_tree, platforms,
                         disabled, ((*ins, *outs), ins, mesh) if mesh is not None else
                         ((None,) * len(specs), (None,) * n_in, None))
    exp = dataclasses.replace(exp, calling_convention_version=primal.calling_convention_version)
    # the cotangents of integer values are float0 in its signature, as in JAX's (bool in the
    # module, where float0 is i1)
    return dataclasses.replace(
        exp, in_avals=(*exp.in_avals[:n_in], *map(_as_cotangent, exp.in_avals[n_in:],
                                                  closed.out_avals)),
        out_avals=tuple(map(_as_cotangent, exp.out_avals, closed.in_avals)))


def _as_cotangent(aval, primal):
    return aval if _differentiable(primal) else aval.update(dtype=dtypes.float0)


def _differentiable(aval) -> bool:
    return dtypes.issubdtype(aval.dtype, np.inexact)


# -- lowering for export ----------------------------------------------------------------------------


def _mlir_string(text) -> str:
    """`text` as an MLIR string attribute."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _result_infos(out_tree, out_avals) -> list[str]:
    """JAX's `jax.result_info` of each result: its path in the output (`result['a'][0]`; the
    tree is built with the avals as leaves, for nodes whose constructors look at them)."""
    paths, _ = tree_util.tree_flatten_with_path(tree_util.tree_unflatten(out_tree, out_avals))
    return ["result" + tree_util.keystr(path) for path, _ in paths]


def lower_for_export(name, closed: core.ClosedJaxpr, platform, shardings=None,
                     result_infos=None, in_tree=None, ordered=()) -> str:
    """The StableHLO module of `closed`: its invars are `main`'s arguments (dynamic dimensions
    `?`), its consts are constants in the module; symbolic dimension variables are read from
    the arguments' shapes with `stablehlo.get_dimension_size`. `shardings` (in, out, mesh):
    over a mesh, the module is partitioned for its devices, its arguments and results
    annotated (Shardy's or GSPMD's form, as `jax_use_shardy_partitioner` says). Results carry
    their `jax.result_info` (`result_infos`), as JAX's. Each ordered effect of `ordered` has a
    token argument and result (before the arrays, as JAX's calling convention has them)."""
    fb = mlir.FuncBuilder()
    module = lower.ModuleContext(platform)
    ins, outs, mesh = shardings or ((None,) * len(closed.in_avals),
                                    (None,) * len(closed.out_avals), None)
    if mesh is not None:
        module.partitioned, module.shardy = True, config._values["jax_use_shardy_partitioner"]
    jaxpr = closed.jaxpr
    args, names = [], []
    for k, eff in enumerate(ordered):  # (the effect's rules thread its token from here)
        n = f"%arg{k}"
        fb.types[n], fb.tokens[eff] = _TOKEN, n
        args.append((n, _TOKEN, _TOKEN_ATTR))
    for i, (v, s) in enumerate(zip(jaxpr.invars, ins, strict=True), start=len(ordered)):
        n = f"%arg{i}"
        fb.types[n] = mlir.aval_type(v.aval)
        attr = "" if s is None else "{" + sdy.sharding_attr(module, s, v.aval.ndim) + "}"
        args.append((n, fb.types[n], attr))
        names.append(n)
    symbolic = not all(shape_poly.is_constant_shape(v.aval.shape)
                       for v in (*jaxpr.invars, *jaxpr.outvars) if hasattr(v, "aval"))
    if symbolic:  # (the dimension variables' values, after JAX's shape assertions)
        solve.emit(lower.LoweringRuleContext(fb, module, [], []),
                   solve.solve(tuple(v.aval for v in jaxpr.invars), in_tree), names)
    consts = [fb.constant(np.asarray(c), np.asarray(c).dtype, np.shape(c)) for c in closed.consts]
    target = spmd.lowering_target.set(((), None) if mesh is None
                                      else (sharded.devices_of(mesh), mesh))
    try:
        results = lower.lower_jaxpr_body(fb, module, jaxpr, consts, names)
    finally:
        spmd.lowering_target.reset(target)
    if module.host_callbacks:  # (their custom calls name Python objects of this process)
        raise NotImplementedError(f"serialization of host_callbacks is not yet implemented: "
                                  f"'{name}' calls back into Python (pure_callback, io_callback "
                                  f"or jax.debug), which an exported module cannot carry")
    out_types = [_TOKEN] * len(ordered) + [mlir.aval_type(v.aval) for v in jaxpr.outvars]
    results = [fb.tokens[eff] for eff in ordered] + results
    infos = result_infos or [None] * len(jaxpr.outvars)
    result_attrs = ["{" + ", ".join(
        ([f"jax.result_info = {_mlir_string(info)}"] if info is not None else [])
        + ([sdy.sharding_attr(module, s, v.aval.ndim)] if s is not None else [])) + "}"
        for s, v, info in zip(outs, jaxpr.outvars, infos, strict=True)]
    result_attrs = [_TOKEN_ATTR] * len(ordered) + ["" if a == "{}" else a for a in result_attrs]
    return mlir.module_text(lower._sanitize(f"jit_{name}"), args, out_types, fb.lines, results,
                            num_partitions=1 if mesh is None else mesh.size,
                            result_attrs=result_attrs, functions=list(module.functions.values()),
                            declarations=sdy.mesh_ops(module))


# -- calling ---------------------------------------------------------------------------------------

call_exported_p = core.Primitive("call_exported")
call_exported_p.multiple_results = True


def call_exported(exported: Exported) -> Callable:
    """`exported`'s function: takes arguments of its in_tree, returns its out_tree."""
    def call(*args, **kwargs):
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if in_tree != exported.in_tree:
            raise ValueError(
                f"The invocation args and kwargs must have the same pytree structure as when the "
                f"function '{exported.fun_name}' was exported, but they have the following "
                f"structural differences:\n    exported with {exported.in_tree}, called with "
                f"{in_tree}")
        if exported.has_vjp():
            outs = _call_with_vjp(exported)(*leaves)
        else:
            outs = call_exported_p.bind(*leaves, exported=exported)
        return tree_util.tree_unflatten(exported.out_tree, outs)
    return call


@functools.lru_cache(maxsize=256)
def _call_with_vjp(exported: Exported):

    @custom_vjp
    def f(*leaves):
        return call_exported_p.bind(*leaves, exported=exported)

    def fwd(*leaves):
        return f(*leaves), leaves

    def bwd(leaves, cts):
        vjp_exported = exported.vjp()
        want = vjp_exported.in_avals[len(leaves):]  # (float0 goes in as bool, as in the module)
        cts = [c if _differentiable(a) else lax.full(a.shape, 0, _physical(w.dtype))
               for c, a, w in zip(cts, _call_exported_abstract_eval(
                   *map(core.get_aval, leaves), exported=exported), want, strict=True)]
        in_cts = call_exported(vjp_exported)(*leaves, *cts)
        return tuple(ct if _differentiable(core.get_aval(x)) else None
                     for ct, x in zip(in_cts, leaves, strict=True))

    f.defvjp(fwd, bwd)
    return f


@call_exported_p.def_abstract_eval
def _call_exported_abstract_eval(*avals, exported: Exported):
    env = solve_dimensions(exported, avals)
    return [core.ShapedArray(tuple(solve.evaluate(d, env) for d in a.shape), a.dtype, sharding=s)
            for a, s in zip(exported.out_avals, exported._out_named_shardings
                            or (None,) * len(exported.out_avals), strict=True)]


def solve_dimensions(exported: Exported, avals) -> dict:
    """The values of the exported avals' dimension variables for arguments of `avals`; raises
    ValueError (as JAX) when the arguments do not match the exported signature."""
    if len(avals) != len(exported.in_avals):
        raise ValueError(f"Exported function '{exported.fun_name}' called with {len(avals)} "
                         f"arguments, expected {len(exported.in_avals)}")
    names = solve.arg_names(exported.in_tree, list(exported.in_avals))
    for name, got, want in zip(names, avals, exported.in_avals, strict=True):
        if len(got.shape) != len(want.shape):
            raise ValueError(f"Rank mismatch for {name}: expected {solve.shape_str(want.shape)} "
                             f"and called with {solve.shape_str(got.shape)}")
        if got.dtype != want.dtype and _physical(got.dtype) != _physical(want.dtype):
            raise ValueError(f"Dtype mismatch for {name}: expected {want.dtype} and called "
                             f"with {got.dtype}")
        for j, (g, w) in enumerate(zip(got.shape, want.shape, strict=True)):
            if not isinstance(w, DimExpr) and g != w:
                raise ValueError(f"Shape mismatch for {name}.shape[{j}] (expected same "
                                 f"constant): expected {solve.shape_str(want.shape)} and called "
                                 f"with {solve.shape_str(got.shape)}")
    return solve.check(solve.solve(tuple(exported.in_avals), exported.in_tree), avals)


def _call_exported_impl(*args, exported: Exported):
    if exported.nr_devices > 1:  # (through jit, which runs over the mesh in context, as JAX's)
        return _jitted_call(exported, get_mesh())(*args)
    return dispatch.apply_primitive(call_exported_p, *args, exported=exported)


@functools.lru_cache(maxsize=64)
def _jitted_call(exported: Exported, mesh):
    """(one per mesh in context: the jit's trace reads it)"""
    return jit(lambda *args: call_exported_p.bind(*args, exported=exported))


def _call_mesh(eqn):
    """A jit calling a module exported for several devices runs over the mesh in context
    (`set_mesh`) when it has as many devices (else over its arguments' mesh)."""
    mesh = get_mesh()
    n = eqn.params["exported"].nr_devices
    return mesh if n > 1 and mesh is not None and mesh.size == n else None


call_exported_p.def_impl(_call_exported_impl)
spmd.eqn_mesh_rules["call_exported"] = _call_mesh


@call_exported_p.def_jvp
def _call_exported_jvp(primals, tangents, *, exported: Exported):
    """Reached only when `exported` has no VJP (else `.call` differentiates through it): JAX's
    ValueError, naming the function and `serialize(vjp_order=...)`."""
    exported.vjp()  # raises
    raise AssertionError("unreachable: an Exported with a VJP is called through custom_vjp")


def _platform_index(exported: Exported, platform) -> int:
    if platform in exported.platforms:
        return exported.platforms.index(platform)
    if DisabledSafetyCheck.platform() in exported.disabled_safety_checks:
        return 0
    raise ValueError(f"Function '{exported.fun_name}' was exported for platforms "
                     f"'{exported.platforms}' but it is used on '{platform}'.")


def _call_main(fb, callee, args, exported: Exported, platform_index) -> list:
    """Emit the call of an exported `main` in JAX's calling convention: the platform index (when
    exported for several platforms), a fresh token per ordered effect, then the (kept) array
    arguments, converted to the exported types; returns the array results."""
    prefix = []
    if len(exported.platforms) > 1:
        prefix.append(fb.constant(platform_index, np.int32))
    tokens = ["!stablehlo.token"] * len(exported.ordered_effects)
    for _ in tokens:
        prefix.append(fb.op("stablehlo.after_all", [], ["!stablehlo.token"])[0])
    kept = [exported.in_avals[i] for i in exported.module_kept_var_idx]
    args = [a if fb.types[a] == mlir.aval_type(w) else
            fb.op("stablehlo.convert", [a], [mlir.aval_type(w)])[0]
            for a, w in zip(args, kept, strict=True)]
    outs = fb.op("func.call", prefix + args,
                 tokens + [mlir.aval_type(a) for a in exported.out_avals], {"callee": "@" + callee})
    return outs[len(tokens):]


def _call_exported_lowering(ctx, *args, exported: Exported):
    platform = ctx.module.platform or xla.default_backend()
    index = _platform_index(exported, platform)
    none = (None,) * len(exported.in_avals)
    args = sharded.constrain_all(ctx, args, exported._in_named_shardings or none, ctx.avals_in)
    avals_in = tuple(ctx.avals_in[i] for i in exported.module_kept_var_idx)
    args = [args[i] for i in exported.module_kept_var_idx]
    static = all(shape_poly.is_constant_shape(a.shape) for a in avals_in)
    callee, functions, meshes = _callee(exported, avals_in if static else None, index)
    sharded.check_calling_context(ctx, exported, bool(meshes))
    for fname, text in sharded.rename_meshes(functions, meshes, ctx.module):
        ctx.module.functions.setdefault(fname, text)
    if static:  # the refined module's main takes the arguments as they are
        outs = ctx.fb.op("func.call", list(args), [mlir.aval_type(a) for a in ctx.avals_out],
                         {"callee": "@" + callee})
    else:
        outs = _call_main(ctx.fb, callee, list(args), exported, index)
        outs = [o if mlir.aval_type(want) == mlir.aval_type(a)
                else ctx.fb.op("stablehlo.convert", [o], [mlir.aval_type(a)])[0]
                for o, want, a in zip(outs, exported.out_avals, ctx.avals_out, strict=True)]
    return sharded.constrain_all(ctx, outs, exported._out_named_shardings
                                 or (None,) * len(outs), ctx.avals_out)


call_exported_p.def_lowering(_call_exported_lowering)

_callees: dict = {}
_callee_lock = threading.Lock()


def _callee(exported: Exported, avals, platform_index):
    """(name of the function to call, [(name, text)] of the functions to add, the meshes they
    name): the module refined for the kept arguments' `avals` on the platform of
    `platform_index` (None: the module as exported)."""
    key = (exported.mlir_module_serialized, avals, platform_index)
    with _callee_lock:
        hit = _callees.get(key)
    if hit is not None:
        return hit
    # named by content, so a calling module's text (the compile cache key) is the same in
    # every process
    digest = hashlib.sha256(repr(key).encode()).hexdigest()
    prefix = f"_pyjax_exported_{digest[:16]}"
    text = _module_text(exported.mlir_module_serialized)
    meshes = sharded.module_meshes(text)
    if avals is not None:
        text = _refine_for(text, exported, avals, platform_index)
    functions = _rename_functions(_module_functions(text), prefix)
    out = (f"{prefix}_main", functions, meshes)
    with _callee_lock:
        if len(_callees) > 1024:
            _callees.clear()
        _callees[key] = out
    return out


def _refine_for(text, exported, avals, platform_index) -> str:
    """The module specialized to (kept) arguments of `avals`: a wrapper `main` with static
    argument types calls the exported `main` (renamed); jaxlib's shape refinement does the rest
    (and checks the module's shape assertions)."""
    full = list(exported.in_avals)
    for i, a in zip(exported.module_kept_var_idx, avals, strict=True):
        full[i] = a
    env = solve_dimensions(exported, full)
    outs = [core.ShapedArray(tuple(solve.evaluate(d, env) for d in a.shape), a.dtype)
            for a in exported.out_avals]
    fb = mlir.FuncBuilder()
    args = []
    for i, a in enumerate(avals):
        n = f"%arg{i}"
        fb.types[n] = mlir.aval_type(a)
        args.append((n, fb.types[n], ""))
    res = _call_main(fb, "_pyjax_inner_main", [n for n, _, _ in args], exported, platform_index)
    res = [r if mlir.aval_type(o) == mlir.aval_type(w) else
           fb.op("stablehlo.convert", [r], [mlir.aval_type(o)])[0]
           for r, o, w in zip(res, outs, exported.out_avals, strict=True)]
    inner = _rename_functions(_module_functions(text), "_pyjax_inner")
    wrapper = mlir.module_text("pyjax_refine", args, [mlir.aval_type(o) for o in outs], fb.lines,
                               res, functions=[t for _, t in inner],
                               declarations=sharded.mesh_declarations(text))
    try:
        return xla.refine_polymorphic_shapes(wrapper)
    except ValueError as e:
        failed = re.search(r"error: (Input shapes do not match the .*)", str(e))
        if failed:  # a shape assertion of the module failed: its message, as JAX raises it
            raise ValueError(failed.group(1)) from None
        raise ValueError(f"Calling the exported function '{exported.fun_name}' with arguments "
                         f"{[a.str_short() for a in avals]}: {e}") from None


_FUNC_RE = re.compile(r"^\s*func\.func\s+(?:(public|private|nested)\s+)?@([\w$.\-]+)")


def _module_functions(text) -> list[tuple[str, str]]:
    """The top-level functions of a module's text, as (name, text) pairs (the module's own
    printer's layout: each function starts at `func.func` and ends with its closing brace at
    the same indentation)."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        m = _FUNC_RE.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        j = i + 1
        while j < len(lines) and not (lines[j].startswith(" " * indent + "}")
                                      and len(lines[j]) - len(lines[j].lstrip()) == indent):
            j += 1
        out.append((m.group(2), "\n".join(lines[i:j + 1])))
        i = j + 1
    if not out:
        raise ValueError("the exported module has no functions")
    return out


def _rename_functions(functions, prefix) -> list[tuple[str, str]]:
    """The functions renamed (`main` → prefix + `_main`, f → prefix + `_f`), all private."""
    names = {name for name, _ in functions}
    pattern = re.compile(r"@(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")(?![\w$.\-])")
    out = []
    for name, text in functions:
        text = pattern.sub(lambda m: f"@{prefix}_{m.group(1)}", text)
        text = re.sub(r"func\.func\s+(public\s+|nested\s+)?@", "func.func private @", text, count=1)
        out.append((f"{prefix}_{name}", text))
    return out


# -- serialization ----------------------------------------------------------------------------------


def _to_data(exp: Exported, vjp_order: int) -> dict:
    """`exp` as `flatbuf.encode`'s plain data."""
    if vjp_order < 0:
        raise ValueError(f"serialize: vjp_order must be >= 0, got {vjp_order}")
    if vjp_order > 0 and not exp.has_vjp():
        raise ValueError("serialization of an Exported that does not have vjps of high-enough "
                         "order")
    for a in (*exp.in_avals, *exp.out_avals):
        if _dtype_name(a.dtype) not in flatbuf.DTYPES:
            raise NotImplementedError(f"serialize: the dtype {a.dtype} has no code in JAX's "
                                      "serialization format")
    in_keys = serialization.key_impls(exp.in_tree, exp.in_avals)
    out_keys = serialization.key_impls(exp.out_tree, exp.out_avals)
    return {
        "fun_name": exp.fun_name,
        "in_tree": serialization.tree_to_jax(exp.in_tree, exp.in_avals),
        "out_tree": serialization.tree_to_jax(exp.out_tree, exp.out_avals),
        "in_avals": [_aval_data(a, k) for a, k in zip(exp.in_avals, in_keys, strict=True)],
        "out_avals": [_aval_data(a, k) for a, k in zip(exp.out_avals, out_keys, strict=True)],
        "in_shardings": [sharded.data_from_named(s)
                         for s in exp._in_named_shardings or (None,) * len(exp.in_avals)],
        "out_shardings": [sharded.data_from_named(s)
                          for s in exp._out_named_shardings or (None,) * len(exp.out_avals)],
        "nr_devices": exp.nr_devices,
        "platforms": list(exp.platforms),
        "ordered_effects": [_effect_type_name(e) for e in exp.ordered_effects],
        "unordered_effects": [_effect_type_name(e) for e in exp.unordered_effects],
        "disabled_checks": [str(c) for c in exp.disabled_safety_checks
                            if c != DisabledSafetyCheck.shape_assertions()],
        "module": exp.mlir_module_serialized,
        "calling_convention_version": exp.calling_convention_version,
        "module_kept_var_idx": list(exp.module_kept_var_idx),
        "uses_global_constants": exp.uses_global_constants,
        "vjp": _to_data(exp.vjp(), vjp_order - 1) if vjp_order > 0 else None,
    }


def _dtype_name(dtype) -> str:
    return "float0" if dtypes.is_float0(dtype) else dtype.name


def _physical(dtype):
    """float0 (the tangent type of integers) is bool in a module."""
    return np.dtype(np.bool_) if dtypes.is_float0(dtype) else dtype


def _aval_data(aval, key_impl=None) -> dict:
    """`aval` as the format has it; the data of a key array as an array of its key dtype."""
    if key_impl is not None:
        if key_impl.name not in serialization.KEY_DTYPES:
            raise NotImplementedError(f"serialize: keys of the PRNG implementation "
                                      f"{key_impl.name} have no dtype in JAX's format")
        shape = aval.shape[:len(aval.shape) - len(key_impl.key_shape)]
        return {"shape": [str(d) for d in shape], "dtype": serialization.KEY_DTYPES[key_impl.name],
                "memory_space": "device"}
    return {"shape": [str(d) for d in aval.shape], "dtype": _dtype_name(aval.dtype),
            "memory_space": "device"}


def _effect_type_name(eff) -> str:
    """How the format names an effect: its type's `str`, for effects whose type makes an equal
    one with no arguments (JAX's conditions, so that a reader can make it again)."""
    if isinstance(eff, SerializedEffect):
        return eff.type_name
    try:
        replica = eff.__class__()
    except Exception:
        raise NotImplementedError(f"Effect {eff} must have a nullary constructor to be "
                                  "serializable") from None
    try:
        same_hash = hash(eff) == hash(replica)
    except Exception:
        raise NotImplementedError(f"Effect {eff} must be hashable to be serializable") from None
    if eff != replica or not same_hash:
        raise NotImplementedError(f"Effect {eff} must have a nullary class constructor that "
                                  "produces an equal effect object.")
    return str(eff.__class__)


class SerializedEffect:
    """An effect read from a blob, known by its type's name (`str(type(effect))` in the process
    that exported it)."""

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __str__(self):
        return self.type_name

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, SerializedEffect) and other.type_name == self.type_name

    def __hash__(self):
        return hash(self.type_name)


def deserialize(blob: bytes | bytearray) -> Exported:
    """The Exported serialized in `blob`: JAX's format (written by JAX 0.10.2 or pyjax), or
    pyjax's former `PYJAXEXP` format.

    >>> deserialize(exp.serialize()).call(x)
    """
    if bytes(blob[:len(serialization.MAGIC)]) == serialization.MAGIC:
        return _from_json(serialization.unpack(blob))
    return _from_data(flatbuf.decode(blob))


def _from_data(d: dict) -> Exported:
    if not (minimum_supported_calling_convention_version <= d["calling_convention_version"]
            <= maximum_supported_calling_convention_version):
        raise ValueError(f"The exported function '{d['fun_name']}' uses an unsupported calling "
                         f"convention version: {d['calling_convention_version']} (supported: "
                         f"[{minimum_supported_calling_convention_version}.."
                         f"{maximum_supported_calling_convention_version}])")
    scope = shape_poly.SymbolicScope()
    in_named = tuple(sharded.named_from_data(s) for s in d["in_shardings"])
    out_named = tuple(sharded.named_from_data(s) for s in d["out_shardings"])
    in_avals = tuple(_aval_from_data(a, scope, s) for a, s in zip(d["in_avals"], in_named,
                                                                  strict=True))
    out_avals = tuple(_aval_from_data(a, scope, s) for a, s in zip(d["out_avals"], out_named,
                                                                   strict=True))
    symbolic = not all(shape_poly.is_constant_shape(a.shape) for a in in_avals)
    vjp_exported = _from_data(d["vjp"]) if d["vjp"] is not None else None
    # (a key array, a leaf of a key dtype in the format, is a node around its data in pyjax)
    in_keys = [serialization.key_impl(a["dtype"]) for a in d["in_avals"]]
    out_keys = [serialization.key_impl(a["dtype"]) for a in d["out_avals"]]
    return Exported(
        fun_name=d["fun_name"], in_avals=in_avals, out_avals=out_avals,
        in_tree=serialization.tree_from_jax(d["in_tree"],
                                            serialization.key_arrays(in_avals, in_keys)),
        out_tree=serialization.tree_from_jax(d["out_tree"],
                                             serialization.key_arrays(out_avals, out_keys)),
        in_shardings_hlo=sharded.hlo_shardings(in_named, in_avals),
        out_shardings_hlo=sharded.hlo_shardings(out_named, out_avals),
        nr_devices=d["nr_devices"] or 1,
        platforms=tuple(d["platforms"]),
        ordered_effects=tuple(SerializedEffect(e) for e in d["ordered_effects"]),
        unordered_effects=tuple(SerializedEffect(e) for e in d["unordered_effects"]),
        disabled_safety_checks=tuple(DisabledSafetyCheck(c) for c in d["disabled_checks"]),
        mlir_module_serialized=d["module"],
        calling_convention_version=d["calling_convention_version"],
        module_kept_var_idx=tuple(d["module_kept_var_idx"]),
        uses_global_constants=d["uses_global_constants"],
        _get_vjp=(lambda _: vjp_exported) if vjp_exported is not None else None,
        _scope=scope if symbolic else None,
        _in_named_shardings=in_named, _out_named_shardings=out_named)


def _aval_from_data(a, scope, sharding=None):
    shape = tuple(int(d) if d.lstrip("-").isdigit() else shape_poly._parse_dim(d, scope, d)
                  for d in a["shape"])
    impl = serialization.key_impl(a["dtype"])
    if impl is not None:  # (the key data: uint32, the key's own dimensions last)
        return core.ShapedArray(shape + tuple(impl.key_shape), np.uint32)
    # (float0, the cotangent type of integer values in JAX's VJPs, is bool in the module); a
    # sharding over Explicit mesh axes is part of the type
    return core.ShapedArray(shape, dtypes.float0 if a["dtype"] == "float0"
                            else dtypes.dtype_of(a["dtype"]), sharding=sharding)


def _from_json(d: dict) -> Exported:
    constraints = d["symbolic_constraints"]
    scope = shape_poly.SymbolicScope(constraints) if constraints else shape_poly._default_scope
    in_avals = tuple(serialization.aval_from_json(a, scope) for a in d["in_avals"])
    out_avals = tuple(serialization.aval_from_json(a, scope) for a in d["out_avals"])
    vjp = d.get("vjp")
    vjp_exported = _from_json(vjp) if vjp is not None else None
    return Exported(
        fun_name=d["fun_name"], in_tree=serialization.tree_from_json(d["in_tree"]),
        in_avals=in_avals, out_tree=serialization.tree_from_json(d["out_tree"]),
        out_avals=out_avals, in_shardings_hlo=tuple(d["in_shardings_hlo"]),
        out_shardings_hlo=tuple(d["out_shardings_hlo"]), nr_devices=d["nr_devices"],
        platforms=tuple(d["platforms"]), ordered_effects=(), unordered_effects=(),
        disabled_safety_checks=tuple(DisabledSafetyCheck(c) for c in d["disabled_checks"]),
        mlir_module_serialized=_module_bytes(d["module"]),
        calling_convention_version=d["calling_convention_version"],
        module_kept_var_idx=tuple(range(len(in_avals))),
        uses_global_constants=not all(shape_poly.is_constant_shape(a.shape) for a in in_avals),
        _get_vjp=(lambda _: vjp_exported) if vjp_exported is not None else None,
        _scope=scope if constraints or not all(shape_poly.is_constant_shape(a.shape)
                                               for a in in_avals) else None)
