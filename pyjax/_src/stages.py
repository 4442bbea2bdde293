"""The ahead-of-time stages of a jitted function: `jit(f).trace(*args)` gives a `Traced`
(the jaxpr and the argument/result structure), `.lower()` a `Lowered` (the StableHLO module),
`.compile()` a `Compiled` (the XLA executable, callable with arguments of the traced
signature).

Every stage answers the questions JAX's do: `in_tree` / `out_tree` (the pytree structures of
`(args, kwargs)` and of the result), `in_avals`, `args_info` (each argument's aval and whether it
is donated), `out_info` (ShapeDtypeStructs of the result); a Lowered and a Compiled also give
XLA's `cost_analysis()` (the unoptimized and the optimized module's), a Compiled
`memory_analysis()` and its `input_shardings` / `output_shardings`.

    >>> c = jit(lambda x: x * 2).lower(jnp.ones(3)).compile()
    >>> c.memory_analysis().argument_size_in_bytes
    12
"""
from __future__ import annotations

import dataclasses
from typing import Any

from pyjax._src import core, dispatch, spmd, tree_util
from pyjax._src.array import ShapeDtypeStruct
from pyjax._src.backend import xla
from pyjax._src.dispatch import Compiled, CompileRequest
from pyjax._src.layout import Format, Layout
from pyjax._src.lowering import lower as lowering
from pyjax._src.sharding import SingleDeviceSharding
from pyjax._src.state.types import AbstractRef, Ref

# What `lower` compiles for a function given (or closing over) Refs comes from state.discharge,
# which sits above stages in the import order (through pjit): it fills this slot ("aot_call")
# when imported (STYLE rule 9: a registry the module above fills).
ref_lowering: dict = {}


@dataclasses.dataclass(frozen=True, slots=True)
class ArgInfo:
    """An argument's abstract value and whether it is donated: a pytree leaf, as JAX's (whose
    field is `_aval`; `shape` and `dtype` read it)."""
    _aval: Any
    donated: bool

    @property
    def aval(self):
        return self._aval

    @property
    def shape(self):
        if not hasattr(self._aval, "shape"):
            raise TypeError(f"No shape attribute with aval of type {type(self._aval)}")
        return self._aval.shape

    @property
    def dtype(self):
        if not hasattr(self._aval, "dtype"):
            raise TypeError(f"No dtype attribute with aval of type {type(self._aval)}")
        return self._aval.dtype


def _args_info(in_tree, in_avals, donated):
    flags = list(donated) if donated else [False] * len(in_avals)
    return tree_util.tree_unflatten(in_tree, [ArgInfo(a, bool(d)) for a, d in
                                              zip(in_avals, flags, strict=True)])


def _donate_argnums(args_info) -> tuple:
    args = args_info[0] if isinstance(args_info, tuple) and len(args_info) == 2 else args_info
    return tuple(i for i, a in enumerate(args)
                 if any(leaf.donated for leaf in tree_util.tree_leaves(
                     a, is_leaf=lambda x: isinstance(x, ArgInfo))))


class _Stage:
    """What every stage knows: the traced jaxpr and the argument/result structure."""

    _traced: Traced

    @property
    def in_tree(self):
        return self._traced.in_tree

    @property
    def out_tree(self):
        return self._traced.out_tree

    @property
    def in_avals(self):
        """The arguments' avals, structured as `(args, kwargs)`."""
        t = self._traced
        return tree_util.tree_unflatten(t.in_tree, t.jaxpr.in_avals)

    @property
    def args_info(self):
        t = self._traced
        return _args_info(t.in_tree, t.jaxpr.in_avals, t.donated)

    @property
    def donate_argnums(self) -> tuple:
        return _donate_argnums(self.args_info)

    @property
    def out_info(self):
        t = self._traced
        return tree_util.tree_unflatten(t.out_tree, [ShapeDtypeStruct(a.shape, a.dtype)
                                                     for a in t.jaxpr.out_avals])


class Traced(_Stage):
    """A function traced for one signature: `jaxpr`, `in_tree`/`out_tree`, `lower()`."""

    def __init__(self, name, closed, in_tree, out_tree, donated):
        self.name = self.fun_name = name
        self.jaxpr = closed
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.donated = donated
        self.shardings = None  # (in, out) NamedShardings of a jit over a mesh
        self.device = None  # the device SingleDeviceShardings given to jit name
        self.layouts = (None, None)  # `mhlo.layout_mode`s of jit's Formats (arguments, results)
        self._ref_call = None  # a state.discharge.AotCall when given or closing over Refs
        self.compile_options = ()  # jit's compiler_options

    _traced = property(lambda self: self)
    in_tree = out_tree = None  # plain attributes here (set in __init__)

    @property
    def out_avals(self):
        return tree_util.tree_unflatten(self.out_tree, self.jaxpr.out_avals)

    def lower(self) -> Lowered:
        jaxpr, donated = self.jaxpr, self.donated
        if any(type(a) is AbstractRef for a in jaxpr.in_avals) or \
                any(type(c) is Ref for c in jaxpr.consts):
            self._ref_call = ref_lowering["aot_call"](jaxpr, donated)  # the discharged jaxpr
            jaxpr, donated = self._ref_call.jaxpr, self._ref_call.donated
        in_layouts, out_layouts = self.layouts
        if self.shardings is not None:
            request = CompileRequest(jaxpr, f"jit_{self.name}", donated,
                                     spmd.mesh_devices(*self.shardings), *self.shardings,
                                     in_layouts=in_layouts, out_layouts=out_layouts,
                                     compile_options=self.compile_options)
        else:
            request = CompileRequest(jaxpr, f"jit_{self.name}", donated,
                                     () if self.device is None else (self.device,),
                                     in_layouts=in_layouts, out_layouts=out_layouts,
                                     compile_options=self.compile_options)
        return Lowered(self, request, dispatch.lower(request))


class Lowered(_Stage):
    """The StableHLO module of a traced function: `as_text()`, `compile()`."""

    def __init__(self, traced: Traced, request: CompileRequest, lowered):
        self._traced = traced
        self._request = request
        self._lowered = lowered   # (module text, module context)
        self._text = lowered[0]

    def as_text(self, dialect=None, *, debug_info=False) -> str:
        """The module's text (`dialect="hlo"`: XLA's HLO text of it, as JAX prints it); with
        `debug_info=True`, lowered again with a location on every op: its name stack
        (named_scope / named_call) and the user's line, as JAX prints them."""
        if dialect not in (None, "stablehlo", "hlo"):
            raise ValueError(f"unknown dialect: {dialect}")
        if debug_info:
            with lowering.debug_locations():
                text = dispatch.lower(self._request)[0]
        else:
            # printed by MLIR in its custom (pretty) form, as JAX prints modules; pyjax emits
            # the generic form, which XLA reads the same
            text = self._text if dialect == "hlo" else xla.mlir_module(self._text).operation.get_asm(
                enable_debug_info=False)
        return text if dialect != "hlo" else xla.hlo_computation(text).as_hlo_text()

    def compiler_ir(self, dialect=None):
        """The module as JAX gives it: "stablehlo" (the default) an MLIR `ir.Module` (its
        `str()` is the module text), "hlo" an XLA computation (`as_hlo_text()`)."""
        if dialect is None or dialect == "stablehlo":
            return xla.mlir_module(self._text)
        if dialect == "hlo":
            return xla.hlo_computation(self._text)
        raise ValueError(f"unknown dialect: {dialect}")

    def cost_analysis(self) -> dict:
        """XLA's cost estimate (flops, bytes accessed, ...) of the module before optimization."""
        return xla.module_cost_analysis(self._text, self._request.devices[0])

    def compile(self, compiler_options=None) -> Compiled:
        """The executable (shared with calls of the jitted function on the same signature);
        `compiler_options`, a dict of XLA options, makes a separately compiled one."""
        options = {**dict(self._request.compile_options), **dict(compiler_options or {})}
        request = dataclasses.replace(self._request, compile_options=tuple(sorted(options.items())))
        return Compiled(dispatch.compile(request, self._lowered), self._traced)


class Compiled(_Stage):
    """A compiled executable for one signature: call it with arguments of that signature."""

    def __init__(self, compiled: Compiled, traced: Traced):
        self._compiled = compiled
        self._traced = traced
        self._jaxpr = traced.jaxpr  # the executable holds it weakly; debug_nans re-runs it

    def __call__(self, *args, **kwargs):
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if in_tree != self.in_tree:
            raise TypeError(f"Function compiled with input pytree does not match the input pytree "
                            f"it was called with: compiled for {self.in_tree}, called with "
                            f"{in_tree}")
        if any(isinstance(x, core.Tracer) for x in leaves):
            t = next(x for x in leaves if isinstance(x, core.Tracer))
            raise TypeError(f"Cannot apply JAX transformations to a function lowered and compiled "
                            f"for a particular signature. Detected argument of Tracer type "
                            f"{type(t)}. (Call the jitted function itself under transformations.)")
        avals = [core.get_aval(x) for x in leaves]
        want = self._traced.jaxpr.in_avals
        bad = [i for i, (a, w) in enumerate(zip(avals, want, strict=True))
               if a.shape != w.shape or a.dtype != w.dtype]
        if bad:  # (JAX's words)
            names = getattr(self._traced, "arg_names", None)
            names = names() if names is not None else [f"args[{i}]" for i in range(len(avals))]
            lines = [f"Argument '{names[i]}' compiled with {want[i].str_short(short_dtypes=False)} "
                     f"and called with {avals[i].str_short(short_dtypes=False)}" for i in bad[:5]]
            head = f"The first 5 of {len(bad)}" if len(bad) >= 5 else "The"
            raise TypeError("Argument types differ from the types for which this computation was "
                            "compiled. Perhaps you are calling the compiled executable with a "
                            "different enable_x64 mode than when it was AOT compiled? "
                            f"{head} mismatches are:\n" + "\n".join(lines))
        if self._traced._ref_call is not None:  # reads the Refs' values, writes them back
            return tree_util.tree_unflatten(self.out_tree,
                                            self._traced._ref_call(self._compiled, leaves))
        if self._traced.layouts[0] is not None:  # (compiled for device-local layouts)
            leaves = dispatch.in_layouts(self._compiled, leaves,
                                         tree_util.tree_leaves(self.input_shardings))
        return tree_util.tree_unflatten(self.out_tree, self._compiled(leaves))

    call = __call__

    def cost_analysis(self) -> dict:
        return self._compiled.exe.cost_analysis()

    def memory_analysis(self):
        """XLA's memory statistics of the executable (`argument_size_in_bytes`,
        `output_size_in_bytes`, `temp_size_in_bytes`, `generated_code_size_in_bytes`, ...)."""
        return self._compiled.exe.memory_analysis()

    def as_text(self) -> str:
        return self._compiled.exe.as_hlo_text()

    def runtime_executable(self):
        return self._compiled.exe.xla_executable

    @property
    def input_shardings(self):
        """The arguments' shardings, structured as `(args, kwargs)`."""
        c = self._compiled
        n = len(self._traced.jaxpr.in_avals)
        if c.in_shardings is not None:
            flat = list(c.in_shardings)[-n:]
        else:
            flat = [SingleDeviceSharding(c.exe.devices[0])] * n
        return tree_util.tree_unflatten(self.in_tree, flat)

    @property
    def output_shardings(self):
        return tree_util.tree_unflatten(self.out_tree, self._flat_output_shardings())

    @property
    def input_formats(self):
        """The arguments' Formats (the device-local layout the executable takes each in, with
        its sharding), structured as `(args, kwargs)`."""
        params, _ = xla.executable_layouts(self._compiled.exe.xla_executable)
        n = len(self._traced.jaxpr.in_avals)
        flat = tree_util.tree_leaves(self.input_shardings)
        return tree_util.tree_unflatten(self.in_tree, [
            Format(Layout.from_xla(lay), s) for lay, s in zip(params[-n:] if n else [], flat,
                                                             strict=True)])

    @property
    def output_formats(self):
        """The results' Formats (the layout the executable gives each in, with its sharding)."""
        _, outs = xla.executable_layouts(self._compiled.exe.xla_executable)
        return tree_util.tree_unflatten(self.out_tree, [
            Format(Layout.from_xla(lay), s)
            for lay, s in zip(outs, self._flat_output_shardings(), strict=True)])

    def _flat_output_shardings(self):
        c = self._compiled
        if c.out_shardings is not None:
            return list(c.out_shardings)
        return [SingleDeviceSharding(c.exe.devices[0])] * len(self._traced.jaxpr.out_avals)

    @property
    def out_info(self):
        """The outputs' shapes and dtypes, with the shardings the executable gives them."""
        return tree_util.tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(a.shape, a.dtype, sharding=s) for a, s in
            zip(self._traced.jaxpr.out_avals, self._flat_output_shardings(), strict=True)])
