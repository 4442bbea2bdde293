"""The differentiation API: jvp, linearize, vjp, grad, value_and_grad, jacfwd, jacrev, hessian,
linear_transpose. All reverse mode goes through `_linearize_flat` (JVP traced to a jaxpr, split
into known primal part and linear tangent part) and `ad.backward_pass`."""
from __future__ import annotations

import dataclasses
import functools
import operator

import numpy as np

from pyjax._src import core, dtypes, source_info, tree_api, tree_util
from pyjax._src.api_vmap import vmap
from pyjax._src.pjit import jit
from pyjax._src.interpreters import ad
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.ad import Zero, tangent_aval
from pyjax._src.lax import interpreter_ops  # noqa: F401  (fills ad's lax_ops slots)
from pyjax._src.lax.elementwise import _convert_element_type, real
from pyjax._src.lax.shape_ops import reshape, slice_in_dim
from pyjax._src.numpy.creation import eye, ones_like
from pyjax._src.numpy.util import asarray_value
from pyjax._src.traceback_util import api_boundary


_PY_SCALARS = (bool, int, float, complex)


def _is_float(aval):
    return dtypes.issubdtype(aval.dtype, np.inexact)


def _flat_fun(fun, in_tree, has_aux, out_tree_box):
    """`fun` on a pytree → a function of flat leaves returning (flat outs, flat aux)."""
    def flat(*leaves):
        out = fun(*tree_util.tree_unflatten(in_tree, leaves))
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(f"expected function with aux output to return a two-element "
                                f"tuple (output, auxiliary_data), but got type {type(out)} with "
                                f"value {out!r}")  # (JAX's words)
            out, aux = out
        else:
            aux = None
        out_flat, out_tree = tree_util.tree_flatten(out)
        aux_flat, aux_tree = tree_util.tree_flatten(aux)
        # aux leaves that are not arrays (strings, ints in a dict...) pass through untouched
        is_value = [_is_jax_value(a) for a in aux_flat]
        static = [None if v else a for a, v in zip(aux_flat, is_value)]
        out_tree_box[:] = [out_tree, (aux_tree, static)]
        return out_flat, [a for a, v in zip(aux_flat, is_value) if v]
    return flat


def _is_jax_value(x) -> bool:
    try:
        core.get_aval(x)
    except TypeError:
        return False
    return True


def _unflatten_aux(aux_tree_and_static, values):
    aux_tree, static = aux_tree_and_static
    it = iter(values)
    return tree_util.tree_unflatten(aux_tree, [next(it) if s is None else s for s in static])


# -- forward mode ------------------------------------------------------------------------------


@api_boundary
def jvp(fun, primals, tangents, has_aux=False):
    """Forward-mode derivative: `(fun(*primals), d fun(primals)[tangents])`.

    Example:
        >>> jvp(jnp.sin, (0.0,), (1.0,))
        (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    p_flat, in_tree = tree_util.tree_flatten(tuple(primals))
    t_flat, t_tree = tree_util.tree_flatten(tuple(tangents))
    if in_tree != t_tree and (lifted := tree_api.opaque_tangents(in_tree, tuple(tangents))) is not None:
        t_flat, t_tree = tree_util.tree_flatten(lifted)  # float0 tangents of key arrays
    if in_tree != t_tree or type(primals) is not type(tangents):  # (a tuple and a list differ)
        raise TypeError(f"primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure "
                        f"{tree_util.tree_structure(primals)} whereas tangents have tree structure "
                        f"{tree_util.tree_structure(tangents)}.")
    tangents_in = []
    for i, (p, t) in enumerate(zip(p_flat, t_flat)):
        pa, ta = core.get_aval(p), core.get_aval(t)
        expected = tangent_aval(pa)
        if pa.shape != ta.shape:
            raise ValueError(f"jvp called with different primal and tangent shapes;Got primal "
                             f"shape {pa.shape} and tangent shape as {ta.shape} (leaf {i})")
        if ta.dtype != expected.dtype:  # (JAX's words)
            raise TypeError(f"primal and tangent arguments to jax.jvp do not match; dtypes must "
                            f"be equal, or in case of int/bool primal dtype the tangent dtype must "
                            f"be float0.Got primal dtype {_dtype_name(pa.dtype)} and so expected "
                            f"tangent dtype {_dtype_name(expected.dtype)}, but got tangent dtype "
                            f"{_dtype_name(ta.dtype)} instead (leaf {i}).")
        tangents_in.append(Zero(expected) if dtypes.is_float0(ta.dtype) else t)
    box = []
    flat = _flat_fun(fun, in_tree, has_aux, box)
    out_p, out_t, aux = jvp_flat_with_aux(flat, p_flat, tangents_in)
    out_tree, aux_tree = box
    out_t = [ad.instantiate(t) for t in out_t]
    res = (tree_util.tree_unflatten(out_tree, out_p), tree_util.tree_unflatten(out_tree, out_t))
    return res + (_unflatten_aux(aux_tree, aux),) if has_aux else res


def _dtype_name(dt):
    return "float0" if dtypes.is_float0(dt) else np.dtype(dt).name


def jvp_flat_with_aux(flat, primals, tangents):
    with core.new_trace(ad.JVPTrace) as trace, source_info.transform_name_stack("jvp"):
        ins = [ad.maybe_jvp_tracer(trace, p, t) for p, t in zip(primals, tangents, strict=True)]
        outs, aux = flat(*ins)
        pairs = [trace.to_pair(o) for o in outs]
        aux = [trace.to_pair(a)[0] for a in aux]
    return [p for p, _ in pairs], [t for _, t in pairs], aux


# -- linearization (the heart of reverse mode) ---------------------------------------------------


class _Linearized:
    """The result of linearizing a flat function at some primal point."""

    def __init__(self, primals_out, aux, residuals, linear_jaxpr, diff_mask, in_avals, out_tangent_avals):
        self.primals_out = primals_out
        self.aux = aux
        self.residuals = residuals
        self.linear_jaxpr = linear_jaxpr   # (residuals..., tangents of diff inputs...) -> out tangents
        self.diff_mask = diff_mask
        self.in_avals = in_avals
        self.out_tangent_avals = out_tangent_avals

    def jvp(self, tangents, residuals=None):
        diff_t = [t for t, d in zip(tangents, self.diff_mask) if d]
        residuals = self.residuals if residuals is None else residuals
        return core.eval_jaxpr(self.linear_jaxpr, [], *residuals, *diff_t)

    def vjp(self, cts, residuals=None):
        """The cotangents of the inputs; `residuals` (default: this linearization's) are passed
        in by vjp's backward function, which carries them as pytree leaves."""
        # NB: a cotangent's weak type is what the transposes made of it, not its primal's (as
        # JAX: the transpose of a weak-to-strong conversion converts back to weak, a custom_vjp
        # bwd keeps what it returns, a cotangent passed in keeps its own).
        residuals = self.residuals if residuals is None else list(residuals)
        nres = len(residuals)
        ndiff = sum(self.diff_mask)
        mask = [False] * nres + [True] * ndiff
        cts_in = ad.backward_pass(self.linear_jaxpr, residuals, mask, cts)[nres:]
        it = iter(cts_in)
        out = []
        for aval, d in zip(self.in_avals, self.diff_mask):
            if d:
                out.append(ad.instantiate(next(it)))
            else:
                out.append(np.zeros(aval.shape, dtypes.float0))
        return out


def linearize_flat(flat, primals) -> _Linearized:
    """Linearize `flat` (returning (outs, aux)) at `primals`.

    The JVP runs on top of a `PartialEvalTrace`: primal operations run at once on the current
    trace (concretely outside `jit`, so Python control flow on values works), and only the
    tangent operations are staged into the linear jaxpr, whose constants are the residuals."""
    # (as JAX: Python scalars and NumPy values become arrays of their canonical type here, so a
    # jax.enable_x64 block inside `flat` cannot widen the primal past its tangent)
    primals = [asarray_value(p) if type(p) in _PY_SCALARS or isinstance(p, (np.ndarray, np.generic))
               else p for p in primals]
    in_avals = [core.get_aval(p) for p in primals]
    diff_mask = [_is_float(a) for a in in_avals]
    with core.new_trace(pe.PartialEvalTrace) as pe_trace:
        tangents = [pe_trace.new_arg(tangent_aval(a)) if d else Zero(tangent_aval(a))
                    for a, d in zip(in_avals, diff_mask)]
        out_p, out_t, aux = jvp_flat_with_aux(flat, primals, tangents)
        out_t = [ad.instantiate(t) for t in out_t]
        linear = pe_trace.to_jaxpr(out_t)
    if not all(pe_trace.is_known(p) for p in out_p + aux):  # (JAX's error and wording)
        raise ValueError("Linearization failed to produce known values for all output primals. This "
                         "is typically caused by attempting to differentiate a function uses an "
                         "operation that does not support reverse-mode autodiff.")
    jaxpr, residuals = _prune_residuals(pe.prune_jaxpr(linear.jaxpr), linear.consts)
    out_t_avals = [core.get_aval(t) for t in out_t]
    lin = _Linearized(out_p, aux, residuals, jaxpr, diff_mask, in_avals, out_t_avals)
    lin.primals_in = primals  # (vjp tells the residuals that are inputs apart: args_res)
    return lin


def _prune_residuals(jaxpr: core.Jaxpr, consts):
    """The linear jaxpr as `(residuals..., tangents...) -> out tangents`, keeping only the
    residuals its (dead-code-eliminated) equations still read."""
    used = {v for eqn in jaxpr.eqns for v in eqn.invars if type(v) is core.Var}
    used.update(v for v in jaxpr.outvars if type(v) is core.Var)
    kept = [(v, c) for v, c in zip(jaxpr.constvars, consts, strict=True) if v in used]
    res_vars = [v for v, _ in kept]
    return core.Jaxpr([], res_vars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns), [c for _, c in kept]


@api_boundary
def linearize(fun, *primals, has_aux=False):
    """`(fun(*primals), f_jvp)` where `f_jvp(*tangents)` evaluates the linear map cheaply
    (the primal computation is done once, here)."""
    _check_callable(fun)
    p_flat, in_tree = tree_util.tree_flatten(primals)
    box = []
    lin = linearize_flat(_flat_fun(fun, in_tree, has_aux, box), p_flat)
    out_tree, aux_tree = box
    residuals, lin.residuals = list(lin.residuals), None
    # as JAX's: a pytree (`Partial`) whose `func.args[0]` is the linear jaxpr and whose leaves
    # are the residuals, so it can be returned from jit
    f_jvp = tree_util.Partial(functools.partial(_lift_linearized, lin.linear_jaxpr, lin,
                                                (in_tree, out_tree)), residuals)
    out = tree_util.tree_unflatten(out_tree, lin.primals_out)
    if has_aux:
        return out, f_jvp, _unflatten_aux(aux_tree, lin.aux)
    return out, f_jvp


@api_boundary
def _lift_linearized(jaxpr, lin, trees, residuals, *tangents):
    """linearize's linear function: the tangents through the linear `jaxpr`."""
    del jaxpr  # (lin holds it; it is an argument to be seen as JAX's is)
    in_tree, out_tree = trees
    t_flat, t_tree = tree_util.tree_flatten(tangents)
    if t_tree != in_tree and (lifted := tree_api.opaque_tangents(in_tree, tangents)) is not None:
        t_flat, t_tree = tree_util.tree_flatten(lifted)  # float0 tangents of key arrays
    if t_tree != in_tree:
        raise TypeError(f"linearize: tangent structure {t_tree} does not match the primals' {in_tree}")
    for t, primal in zip(t_flat, lin.in_avals, strict=True):
        got, want = core.get_aval(t), ad.tangent_aval(primal)
        if got.shape != want.shape or got.dtype != want.dtype:  # (JAX's words)
            raise ValueError(f"linearized function called on tangent values inconsistent with "
                             f"the original primal values:\nGot tangent aval {got} for primal "
                             f"aval {primal} but expected {want}.")
    return tree_util.tree_unflatten(out_tree, lin.jvp(t_flat, residuals))


def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    """`(fwd, bwd)`: `fwd(*args)` is `vjp(fun, ...)` of the arguments at `argnums` (the others
    fixed), `(out, f_vjp)` or `(out, f_vjp, aux)`; `bwd(f_vjp, ct)` the cotangents of those
    arguments (one, for an int `argnums`). Both jitted by default, so a training loop reuses one
    compiled backward pass (f_vjp is a pytree of its residuals).

    Example:
        >>> fwd, bwd = fwd_and_bwd(lambda x, w: x @ w, argnums=(0, 1))
        >>> y, res = fwd(x, w)
        >>> ct_x, ct_w = bwd(res, jnp.ones_like(y))
    """
    _check_callable(fun)

    def fwd(*args, **kwargs):
        nums = _check_argnums(argnums, len(args), "fwd_and_bwd")
        f_partial = _fix_args(fun, args, kwargs, nums)
        return vjp(f_partial, *[args[i] for i in nums], has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        cts = f_vjp(outgrad)
        return cts[0] if isinstance(argnums, int) else cts

    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)


@api_boundary
def vjp(fun, *primals, has_aux=False):
    """`(fun(*primals), f_vjp)` where `f_vjp(ct)` pulls a cotangent back to the primals.

    Example:
        >>> y, f_vjp = vjp(jnp.sin, 0.5)
        >>> f_vjp(1.0)   # (cos(0.5),)
    """
    _check_callable(fun)
    p_flat, in_tree = tree_util.tree_flatten(primals)
    box = []
    lin = linearize_flat(_flat_fun(fun, in_tree, has_aux, box), p_flat)
    out_tree, aux_tree = box

    # as JAX's: the residuals that are the primals themselves are `args_res` (one entry per
    # argument, NotNeeded where unused: a program may drop them and put them back, FSDP-style),
    # the others `opaque_residuals`
    primal_index = {id(p): i for i, p in enumerate(lin.primals_in)}
    spec, opaque = [], []
    for r in lin.residuals:
        i = primal_index.get(id(r))
        spec.append((True, i) if i is not None else (False, len(opaque)))
        if i is None:
            opaque.append(r)
    used = {i for is_arg, i in spec if is_arg}
    args_res = list(tree_util.tree_unflatten(in_tree, [
        p if i in used else NotNeeded() for i, p in enumerate(lin.primals_in)]))
    lin.residuals = lin.primals_in = None  # (the backward function carries them, as leaves)

    @api_boundary
    def pullback(args_res, opaque, ct):
        ct_flat, ct_tree = tree_util.tree_flatten(ct)
        if ct_tree != out_tree and (lifted := tree_api.opaque_tangents(out_tree, ct)) is not None:
            ct_flat, ct_tree = tree_util.tree_flatten(lifted)  # float0 cotangents of key arrays
        if ct_tree != out_tree:
            raise TypeError(f"vjp: the cotangent has structure {ct_tree}, but the function's "
                            f"output has structure {out_tree}")
        for c, a in zip(ct_flat, lin.out_tangent_avals):
            ca = core.get_aval(c)
            if ca.shape != a.shape or (ca.dtype != a.dtype and not dtypes.is_float0(a.dtype)):
                raise ValueError(  # (JAX's words)
                    f"unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                    f"{ca.str_short(short_dtypes=False)}, but expected "
                    f"{a.str_short(short_dtypes=False)} because the corresponding output of the "
                    f"differentiated function had JAX type {a.str_short(short_dtypes=False)}")
        try:  # (a leaf a pytree map replaced by None or NotNeeded is a subtree here: kept as is)
            args = in_tree.flatten_up_to(tuple(args_res))
        except (ValueError, TypeError):
            raise ValueError(f"vjp: args_res must have the primals' structure {in_tree}") from None
        residuals = []
        for is_arg, i in spec:
            if is_arg and _unset_residual(args[i]):
                raise ValueError("vjp: the backward function needs the primal input "
                                 f"{i} (args_res), which was set to {args[i]!r}")
            residuals.append(args[i] if is_arg else opaque[i])
        ct_flat = [_cast_ct(c, a) for c, a in zip(ct_flat, lin.out_tangent_avals)]
        return tuple(tree_util.tree_unflatten(in_tree, lin.vjp(ct_flat, residuals)))

    f_vjp = VJP(pullback, in_tree, out_tree, args_res, opaque, getattr(fun, "__name__", repr(fun)))
    out = tree_util.tree_unflatten(out_tree, lin.primals_out)
    if has_aux:
        return out, f_vjp, _unflatten_aux(aux_tree, lin.aux)
    return out, f_vjp


@dataclasses.dataclass(slots=True, weakref_slot=True)
class VJP:
    """The backward function `vjp` returns, as JAX's: a pytree whose leaves are the residuals
    (`args_res`, `opaque_residuals`) and whose static part is the residual-free pullback and the
    trees, so it can be returned from `jit`, passed into one, or mapped over."""
    fun: object
    in_tree: object
    out_tree: object
    args_res: list
    opaque_residuals: list
    name: str = "the function"

    def __call__(self, out_ct, *extra_args):
        if extra_args:
            raise TypeError(
                f"The function returned by `jax.vjp` applied to {self.name} was called with "
                f"{len(extra_args) + 1} arguments, but functions returned by `jax.vjp` must be called "
                f"with a single argument corresponding to the single value returned by the function "
                f"being differentiated (even if that returned value is a tuple or other container): "
                f"call f_vjp((a, b)), not f_vjp(a, b).")
        return self.fun(self.args_res, self.opaque_residuals, out_ct)

    # (identity, as JAX: residuals may be arrays, which do not compare)
    __hash__ = object.__hash__
    __eq__ = object.__eq__


tree_util.register_pytree_node(
    VJP, lambda v: ((v.args_res, v.opaque_residuals), (v.fun, v.in_tree, v.out_tree, v.name)),
    lambda meta, children: VJP(meta[0], meta[1], meta[2], *children, meta[3]))


@dataclasses.dataclass(frozen=True)
class NotNeeded:
    """An `args_res` entry for a primal that vjp's backward function does not need (JAX's)."""


tree_util.register_pytree_node(NotNeeded, lambda _: ((), None), lambda _, __: NotNeeded())


def _unset_residual(x):
    return x is None or isinstance(x, NotNeeded)


def _cast_ct(c, aval):
    """Cotangents of integer outputs are symbolic zeros, whatever was passed (float0 zeros)."""
    return Zero(aval) if dtypes.is_float0(aval.dtype) else c


# -- grad ---------------------------------------------------------------------------------------


def _is_single(argnums) -> bool:
    """`argnums=1` (also a NumPy integer) differentiates one argument; a sequence gives a tuple."""
    return isinstance(argnums, (int, np.integer))


def _check_callable(fun):
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")


def _check_argnums(argnums, nargs, fname):
    """`argnums` (an int or a sequence of ints) as non-negative positions, checked as JAX 0.10.2
    does: not integers or repeated: TypeError; empty: ValueError; out of range: TypeError from
    grad/value_and_grad for a position past the arguments, ValueError otherwise."""
    nums = (argnums,) if hasattr(argnums, "__index__") else tuple(argnums)
    if not all(hasattr(a, "__index__") for a in nums):  # NumPy ints are ints, floats are not
        raise TypeError(f"{fname}: argnums must be an int or a sequence of ints, got {argnums!r}")
    nums = tuple(a.__index__() for a in nums)
    if not nums:
        raise ValueError(f"{fname}: argnums={argnums!r} is empty; name at least one argument to "
                         f"differentiate with respect to")
    if fname == "grad" and max(nums) >= nargs:
        raise TypeError(f"differentiating with respect to argnums={argnums} requires at least "
                        f"{max(nums) + 1} positional arguments to be passed by the caller, but got "
                        f"only {nargs} positional arguments.")
    if any(not -nargs <= a < nargs for a in nums):
        raise ValueError(f"{fname}: argnums={argnums} must be in [-{nargs}, {nargs}) for the {nargs} "
                         f"positional arguments given")
    out = tuple(a % nargs for a in nums)
    if len(set(out)) != len(out):
        raise TypeError(f"{fname}: argnums={argnums} names an argument more than once")
    return out


def _fix_args(fun, args, kwargs, nums):
    """`fun` as a function of only the arguments at positions `nums` (the others fixed)."""
    def f_partial(*dyn_args):
        full = list(args)
        for i, d in zip(nums, dyn_args):
            full[i] = d
        return fun(*full, **kwargs)
    return f_partial


def _check_input_dtype(x, i, holomorphic, allow_int, fname):
    aval = core.get_aval(x)
    dt = aval.dtype
    if holomorphic and not dtypes.issubdtype(dt, np.complexfloating):
        raise TypeError(f"{fname} with holomorphic=True requires inputs with complex dtype, but "
                        f"got {dt.name}.")   # JAX's words
    if not dtypes.issubdtype(dt, np.inexact) and not allow_int:
        raise TypeError(f"{fname} requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {dt.name} (argument {i}, "
                        f"{aval.str_short()}). If you want to use Boolean- or integer-valued "
                        f"inputs, use vjp or set allow_int to True.")


def _check_scalar_output(ans, fname, holomorphic):
    aval = core.get_aval(ans)
    if aval.shape:
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: "
                        f"{aval.shape}")
    if not holomorphic and dtypes.issubdtype(aval.dtype, np.complexfloating):
        raise TypeError(f"{fname} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {aval.dtype.name}. For holomorphic "
                        f"differentiation, pass holomorphic=True.")
    if not dtypes.issubdtype(aval.dtype, np.inexact):
        raise TypeError(f"{fname} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {aval.dtype.name}. For differentiation of "
                        f"functions with integer outputs, use jax.vjp directly.")


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """A function returning `(fun(*args), gradient w.r.t. args[argnums])`.

    Example:
        >>> value_and_grad(lambda x: (x ** 2).sum())(jnp.arange(3.0))
        (Array(5., dtype=float32), Array([0., 2., 4.], dtype=float32))
    """
    _check_callable(fun)
    @functools.wraps(fun)
    @api_boundary
    def value_and_grad_f(*args, **kwargs):
        nums = _check_argnums(argnums, len(args), "grad")
        dyn = [args[i] for i in nums]
        for i, d in zip(nums, dyn):
            for leaf in tree_util.tree_leaves(d):
                _check_input_dtype(leaf, i, holomorphic, allow_int, "grad")
        f_partial = _fix_args(fun, args, kwargs, nums)
        if has_aux:
            ans, f_vjp, aux = vjp(f_partial, *dyn, has_aux=True)
        else:
            ans, f_vjp = vjp(f_partial, *dyn)
        _check_scalar_output(ans, "grad", holomorphic)
        ct = ones_like(ans)
        grads = f_vjp(ct)
        g = grads[0] if _is_single(argnums) else tuple(grads)
        return ((ans, aux), g) if has_aux else (ans, g)
    return value_and_grad_f


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """The gradient of scalar-valued `fun` with respect to `args[argnums]`.

    Example:
        >>> grad(jnp.sin)(0.0)
        Array(1., dtype=float32, weak_type=True)
    """
    _check_callable(fun)
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    @api_boundary
    def grad_f(*args, **kwargs):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]
    return grad_f


# -- Jacobians ------------------------------------------------------------------------------------


def _std_basis(flat_avals):
    """The standard basis of the flattened inputs, as a stacked identity, one block per leaf."""
    total = sum(a.size for a in flat_avals)
    dt = dtypes.result_type(*[a.dtype for a in flat_avals]) if flat_avals else np.float32
    basis = eye(total, dtype=dt)
    out, start = [], 0
    for a in flat_avals:
        block = slice_in_dim(basis, start, start + a.size, 1, 1)
        out.append(reshape(block, (total,) + a.shape).astype(a.dtype))
        start += a.size
    return total, out


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """Jacobian by forward mode: one JVP per input element, batched with vmap."""
    _check_callable(fun)
    @functools.wraps(fun)
    @api_boundary
    def jac_f(*args, **kwargs):
        nums = _check_argnums(argnums, len(args), "jacfwd")
        dyn = tuple(args[i] for i in nums)
        f_partial = _fix_args(fun, args, kwargs, nums)
        d_flat, d_tree = tree_util.tree_flatten(dyn)
        for i, leaf in enumerate(d_flat):
            _check_input_dtype(leaf, i, holomorphic, False, "jacfwd")
            dt = core.get_aval(leaf).dtype
            if not holomorphic and not dtypes.issubdtype(dt, np.floating):  # (JAX's words)
                raise TypeError(f"jacfwd requires real-valued inputs (input dtype that is a "
                                f"sub-dtype of np.floating), but got {dt.name}. For holomorphic "
                                f"differentiation, pass holomorphic=True. For differentiation of "
                                f"non-holomorphic functions involving complex inputs or integer "
                                f"inputs, use jax.jvp directly.")
        avals = [core.get_aval(x) for x in d_flat]
        n, basis = _std_basis(avals)

        def push(*t_flat):  # the primal output and aux do not depend on the basis vector
            out = jvp(f_partial, dyn, tree_util.tree_unflatten(d_tree, list(t_flat)), has_aux=has_aux)
            # integer outputs have float0 tangents: their Jacobian is zeros of their dtype (as JAX)
            t_out = tree_util.tree_map(
                lambda t, yy: np.zeros(np.shape(yy), core.get_aval(yy).dtype)
                if dtypes.is_float0(core.get_aval(t).dtype) else t, out[1], out[0])
            return out[0], t_out, out[2] if has_aux else None
        y, jac_t, aux = vmap(push, out_axes=(None, -1, None))(*basis)
        if holomorphic:
            for leaf in tree_util.tree_leaves(y):
                if not dtypes.issubdtype(core.get_aval(leaf).dtype, np.complexfloating):
                    raise TypeError("jacfwd with holomorphic=True requires outputs with complex "
                                    f"dtype, but got {core.get_aval(leaf).dtype.name}.")
        jac = tree_util.tree_map(lambda j, yy: _split_last(j, avals, d_tree, nums, argnums, yy), jac_t, y)
        return (jac, aux) if has_aux else jac
    return jac_f


def _split_last(j, avals, d_tree, nums, argnums, y):
    """Split the last (stacked-basis) axis of `j` back into the input pytree's shapes, each block
    with the dtype and weak type of the output `y` it differentiates (as JAX's jacfwd)."""
    ja = core.get_aval(j)
    lead = ja.shape[:-1]
    pieces, start = [], 0
    for a in avals:
        blk = slice_in_dim(j, start, start + a.size, 1, ja.ndim - 1)
        pieces.append(_possible_downcast(reshape(blk, lead + a.shape), core.get_aval(y)))
        start += a.size
    tree = tree_util.tree_unflatten(d_tree, pieces)
    return tree[0] if _is_single(argnums) else tree


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """Jacobian by reverse mode: one VJP per output element, batched with vmap."""
    _check_callable(fun)
    @functools.wraps(fun)
    @api_boundary
    def jac_f(*args, **kwargs):
        nums = _check_argnums(argnums, len(args), "jacrev")
        dyn = tuple(args[i] for i in nums)
        f_partial = _fix_args(fun, args, kwargs, nums)
        for i, d in zip(nums, dyn):
            for leaf in tree_util.tree_leaves(d):
                _check_input_dtype(leaf, i, holomorphic, allow_int, "jacrev")
        if has_aux:
            y, f_vjp, aux = vjp(f_partial, *dyn, has_aux=True)
        else:
            y, f_vjp = vjp(f_partial, *dyn)
        y_flat, y_tree = tree_util.tree_flatten(y)
        y_avals = [core.get_aval(v) for v in y_flat]
        for a in y_avals:
            _check_output_dtype_jacrev(a, holomorphic)
        n, basis = _std_basis(y_avals)
        dyn_leaves, dyn_tree = tree_util.tree_flatten(dyn)
        is_float = [_is_float(core.get_aval(x)) for x in dyn_leaves]

        def pullback(*b):  # the float0 cotangents of integer inputs stay out of vmap
            cts = tree_util.tree_leaves(f_vjp(tree_util.tree_unflatten(y_tree, list(b))))
            return [c for c, f in zip(cts, is_float) if f]
        it = iter(vmap(pullback)(*basis))
        # integer inputs (allow_int): zeros of their own dtype, as JAX
        cts = tree_util.tree_unflatten(dyn_tree, [
            next(it) if f else np.zeros((n,) + np.shape(x), core.get_aval(x).dtype)
            for x, f in zip(dyn_leaves, is_float)])
        # cts: tuple over dyn args of pytrees with leading axis n; split n into y's leaves
        out_per_y = []
        for yi, ya in enumerate(y_avals):
            start = sum(a.size for a in y_avals[:yi])

            def take(c, x, ya=ya, start=start):
                ca = core.get_aval(c)
                blk = reshape(slice_in_dim(c, start, start + ya.size, 1, 0), ya.shape + ca.shape[1:])
                xa = core.get_aval(x)
                return _possible_downcast(blk, xa) if _is_float(xa) else blk
            part = tree_util.tree_map(take, cts, dyn)
            out_per_y.append(part[0] if _is_single(argnums) else part)
        jac = tree_util.tree_unflatten(y_tree, out_per_y)
        return (jac, aux) if has_aux else jac
    return jac_f


def _check_output_dtype_jacrev(aval, holomorphic):
    """jacrev's outputs must be real floating (complex with holomorphic=True), as JAX's."""
    dt = aval.dtype
    if holomorphic:
        if not dtypes.issubdtype(dt, np.complexfloating):
            raise TypeError(f"jacrev with holomorphic=True requires outputs with complex dtype, "
                            f"but got {dt.name}.")
    elif dtypes.issubdtype(dt, np.complexfloating):
        raise TypeError(f"jacrev requires real-valued outputs (output dtype that is a sub-dtype of "
                        f"np.floating), but got {dt.name}. For holomorphic differentiation, pass "
                        f"holomorphic=True. For differentiation of non-holomorphic functions "
                        f"involving complex outputs, use jax.vjp directly.")
    elif not dtypes.issubdtype(dt, np.floating):
        raise TypeError(f"jacrev requires real-valued outputs (output dtype that is a sub-dtype of "
                        f"np.floating), but got {dt.name}. For differentiation of functions with "
                        f"integer outputs, use jax.vjp directly.")


def _possible_downcast(x, example_aval):
    """A Jacobian block with the dtype and weak type of the input (jacrev) or output (jacfwd) it
    belongs to; the real part when that is real and the block complex."""
    xa = core.get_aval(x)
    if dtypes.issubdtype(xa.dtype, np.complexfloating) and not dtypes.issubdtype(
            example_aval.dtype, np.complexfloating):
        x = real(x)
    return _convert_element_type(x, example_aval.dtype, example_aval.weak_type)


jacobian = jacrev


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """Second derivatives: forward-over-reverse (`jacfwd(jacrev(fun))`)."""
    _check_callable(fun)
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


@api_boundary
def linear_transpose(fun, *primals, reduce_axes=()):
    """Transpose of a linear function `fun`, traced at the avals of `primals`."""
    p_flat, in_tree = tree_util.tree_flatten(primals)
    # (as JAX, a primal may be an abstract value itself: equinox passes ShapedArrays)
    in_avals = [p if type(p) is core.ShapedArray else core.shaped_abstractify(p) for p in p_flat]
    box = []
    flat = _flat_fun(fun, in_tree, False, box)
    closed, _ = pe.trace_to_jaxpr(lambda *xs: flat(*xs)[0], in_avals)
    out_tree = box[0]
    # (JAX's checks and words: programs match them)
    dts = [a.dtype for a in in_avals + closed.out_avals]
    if not (all(dtypes.issubdtype(d, np.inexact) for d in dts)
            or all(dtypes.issubdtype(d, np.integer) for d in dts)):
        raise TypeError(f"linear_transpose only supports [float or complex] -> [float or complex], "
                        f"and integer -> integer functions, but got "
                        f"{[a.dtype for a in in_avals]} -> {[a.dtype for a in closed.out_avals]}.")

    @api_boundary
    def transposed(*cts):
        ct = cts[0] if len(cts) == 1 else cts
        ct_flat, ct_tree = tree_util.tree_flatten(ct)
        if ct_tree != out_tree:
            raise TypeError(f"cotangent tree does not match function output, expected {out_tree} "
                            f"but got {ct_tree}")
        ct_avals = [None if isinstance(c, Zero) else core.get_aval(c) for c in ct_flat]
        if any(c is not None and (c.shape, c.dtype) != (a.shape, a.dtype)
               for c, a in zip(ct_avals, closed.out_avals)):
            raise TypeError(f"cotangent type does not match function output, expected "
                            f"{closed.out_avals} but got {ct_flat}")
        jaxpr = pe.convert_constvars_jaxpr(closed.jaxpr)
        mask = [False] * len(closed.consts) + [True] * len(in_avals)
        res = ad.backward_pass(jaxpr, closed.consts, mask, ct_flat)[len(closed.consts):]
        return tuple(tree_util.tree_unflatten(in_tree, [ad.instantiate(r) for r in res]))
    return transposed


del operator
