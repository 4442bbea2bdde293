"""checkify's rules: how each primitive adds its checks (`error_checks`), and how the
higher-order primitives (cond, while, scan, jit, checkpoint, custom_jvp/vjp) run their bodies
checkified, threading the error value through them as extra operands and results.

A rule is `rule(error, enabled_errors, *in_vals, **params) -> (error, out)`: it binds the
primitive under the current trace and folds any new error into `error` with `assert_func`.
Importing this module fills the tables of pyjax._src.checkify (`import pyjax` imports it).
"""
from __future__ import annotations

import functools
import weakref

import numpy as np

from pyjax._src import ad_checkpoint, core, custom_derivatives, dtypes, pjit, shard_map, tree_util
from pyjax._src.checkify import (
    _BATCHED_WHILE_MESSAGE, DivisionByZeroError, ErrorEffect, NaNError, OOBError, _aval,
    _current_traceback, _merged, _merge_metadata, _where, assert_func, check_p,
    checkify_jaxpr_flat, error_checks, error_checks_by_name, update_error)
from pyjax._src.interpreters import batching
from pyjax._src.lax import dynamic_slicing, elementwise, shape_ops, slicing
from pyjax._src.lax.control_flow import conditionals, scan, while_loop
from pyjax._src.lax.control_flow.common import join_consts, trace_flat
from pyjax._src.numpy import array_methods  # noqa: F401  (the rules use Array operators)
from pyjax._src.numpy import creation, index_tricks, reductions, ufuncs
from pyjax._src.numpy import shape as jshape
from pyjax._src.sharding import PartitionSpec


# -- rules: NaNs, division, indices ------------------------------------------------------------


def _nan_rule(prim, error, enabled, *in_vals, **params):
    out = prim.bind(*in_vals, **params)
    return _check_nans(prim, error, enabled, out), out


def _check_nans(prim, error, enabled, out):
    if NaNError not in enabled:
        return error
    outs = out if prim.multiple_results else [out]
    flags = [reductions.any(ufuncs.isnan(x)) for x in outs
             if dtypes.issubdtype(_aval(x).dtype, np.inexact)]
    if not flags:
        return error
    any_nan = functools.reduce(ufuncs.logical_or, flags)
    return assert_func(error, any_nan, NaNError(_current_traceback(), prim.name))


# Every primitive that can produce a NaN from non-NaN inputs (JAX 0.10.2's list, by name).
NAN_PRIMITIVES = (
    "acos", "acosh", "add", "asin", "asinh", "atan2", "atan", "atanh", "bessel_i0e",
    "bessel_i1e", "cbrt", "conv_general_dilated", "cos", "cosh", "cumlogsumexp", "cummax",
    "cummin", "cumprod", "cumsum", "digamma", "dot_general", "erf_inv", "erf", "erfc", "exp",
    "expm1", "fft", "igamma_grad_a", "igamma", "igammac", "integer_pow", "lgamma",
    "custom_linear_solve", "log1p", "log", "logistic", "mul", "pad", "pow", "psum", "reduce",
    "reduce_prod", "reduce_sum", "reduce_window", "reduce_window_sum",
    "regularized_incomplete_beta", "rem", "rng_uniform", "rsqrt", "sin", "sinh", "sqrt", "sub",
    "tan", "tanh")


def _oob_payload(oob_mask, indices, dims_map, operand_shape):
    """int32[3]: the first out-of-bounds index, its operand axis and that axis's size."""
    flat_idx = reductions.argmin(ufuncs.logical_not(oob_mask))
    multi = index_tricks.unravel_index(flat_idx, np.shape(indices))
    axis = creation.array(np.asarray(dims_map, np.int32))[multi[-1]]
    size = creation.array(np.asarray(operand_shape, np.int32))[axis]
    index = jshape.ravel(indices)[flat_idx]
    return creation.array([index, axis, size], dtype=np.int32)


def _dynamic_slice_rule(error, enabled, operand, *starts, slice_sizes):
    out = dynamic_slicing.dynamic_slice_p.bind(operand, *starts, slice_sizes=slice_sizes)
    if OOBError not in enabled:
        return error, out
    return _window_oob(error, "dynamic_slice", operand, starts, slice_sizes), out


def _dynamic_update_slice_rule(error, enabled, operand, update, *starts):
    out = dynamic_slicing.dynamic_update_slice_p.bind(operand, update, *starts)
    if OOBError not in enabled:
        return error, out
    return _window_oob(error, "dynamic_update_slice", operand, starts, np.shape(update)), out


def _window_oob(error, name, operand, starts, sizes):
    shape = np.shape(operand)
    if not starts:
        return error
    idx = jshape.stack([creation.asarray(s) for s in starts])
    dims = np.asarray(shape, idx.dtype)
    mask = (idx < 0) | (idx + np.asarray(sizes, idx.dtype) > dims)
    payload = _oob_payload(mask, idx, range(len(shape)), shape)
    return assert_func(error, reductions.any(mask),
                       OOBError(_current_traceback(), name, shape, payload))


def _gather_rule(error, enabled, operand, indices, **params):
    out = slicing.gather_p.bind(operand, indices, **params)
    if OOBError not in enabled:
        return error, out
    dnums, sizes = params["dimension_numbers"], params["slice_sizes"]
    shape = np.shape(operand)
    smap = np.asarray(dnums.start_index_map, np.int64)
    upper = np.asarray(shape, np.int64)[smap] - np.asarray(sizes, np.int64)[smap]
    idt = np.dtype(_aval(indices).dtype)
    upper = np.broadcast_to(np.minimum(upper, np.iinfo(idt).max).astype(idt), np.shape(indices))
    mask = (indices < 0) | (indices > upper)   # (explicit broadcast: rank_promotion='raise' too)
    payload = _oob_payload(mask, indices, dnums.start_index_map, shape)
    return assert_func(error, reductions.any(mask),
                       OOBError(_current_traceback(), "gather", shape, payload)), out


def _scatter_rule(error, enabled, operand, indices, updates, **params):
    prim = _where.prim
    out = prim.bind(operand, indices, updates, **params)
    if OOBError not in enabled:
        return error, out
    dnums = params["dimension_numbers"]
    shape = np.shape(operand)
    ushape = np.shape(updates)
    sizes, pos = [], 0
    for i in range(len(shape)):
        if i in dnums.inserted_window_dims or i in dnums.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(ushape[dnums.update_window_dims[pos]])
            pos += 1
    idt = np.dtype(_aval(indices).dtype)
    upper = np.asarray([shape[i] - sizes[i] for i in dnums.scatter_dims_to_operand_dims], np.int64)
    upper = np.broadcast_to(np.minimum(upper, np.iinfo(idt).max).astype(idt), np.shape(indices))
    mask = (indices < 0) | (indices > upper)
    payload = _oob_payload(mask, indices, dnums.scatter_dims_to_operand_dims, shape)
    error = assert_func(error, reductions.any(mask),
                        OOBError(_current_traceback(), prim.name, shape, payload))
    return _check_nans(prim, error, enabled, out), out


def _div_rule(error, enabled, x, y):
    if DivisionByZeroError in enabled:
        error = assert_func(error, reductions.any(ufuncs.equal(y, 0)),
                            DivisionByZeroError(_current_traceback()))
    return _nan_rule(elementwise.div_p, error, enabled, x, y)


def _check_discharge_rule(error, enabled, *args, err_tree, debug):
    """A `check` inside the function: fold its error into the threaded one (kinds not
    enabled are dropped, as in JAX)."""
    new = tree_util.tree_unflatten(err_tree, args)
    for effect in new._pred:
        if effect.error_type in enabled:
            error = update_error(error, new._pred[effect], new._code[effect], {},
                                 new._payload[effect], effect)
    return error._replace({**new._metadata, **error._metadata}), []


# -- rules: higher-order primitives -----------------------------------------------------------


def _cond_rule(error, enabled, index, *ops, branches):
    op_avals = [_aval(x) for x in ops]
    error, leaves, traced = _merged(error, branches, enabled,
                                    lambda ls: [_aval(x) for x in ls] + op_avals)
    jaxprs, consts = join_consts([(j, c) for j, c, _ in traced])
    outs = conditionals.cond_p.bind(index, *consts, *leaves, *ops, branches=tuple(jaxprs))
    return _split_outs(outs, [t for _, _, t in traced], error)


def _split_outs(outs, trees, error):
    tree = trees[0]
    n = tree.num_leaves
    err = tree_util.tree_unflatten(tree, outs[:n])
    return err._replace(_merge_metadata(error, trees)), list(outs[n:])


def _scan_rule(error, enabled, *in_flat, jaxpr, num_consts, num_carry, length, reverse, unroll,
               **params):
    consts, carry, xs = (in_flat[:num_consts], in_flat[num_consts:num_consts + num_carry],
                         in_flat[num_consts + num_carry:])
    c_avals = [_aval(x) for x in consts]
    rest = [_aval(x) for x in carry] + [_aval(x).update(shape=_aval(x).shape[1:]) for x in xs]
    error, leaves, traced = _merged(error, [jaxpr], enabled,
                                    lambda ls: c_avals + [_aval(x) for x in ls] + rest,
                                    err_pos=num_consts)
    body, new_consts, tree = traced[0]
    outs = scan.scan_p.bind(*new_consts, *consts, *leaves, *carry, *xs, jaxpr=body,
                       num_consts=len(new_consts) + num_consts,
                       num_carry=len(leaves) + num_carry, length=length, reverse=reverse,
                       unroll=unroll, **params)
    return _split_outs(outs, [tree], error)


def _while_rule(error, enabled, *in_flat, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    if cond_jaxpr.out_avals[0].shape:
        raise ValueError(_BATCHED_WHILE_MESSAGE)
    cc = list(in_flat[:cond_nconsts])
    bc = list(in_flat[cond_nconsts:cond_nconsts + body_nconsts])
    carry = list(in_flat[cond_nconsts + body_nconsts:])
    # an error of the first test of the condition
    leaves, tree = tree_util.tree_flatten(error)
    error, _ = checkify_jaxpr_flat(cond_jaxpr.jaxpr, cond_jaxpr.consts, enabled, tree,
                                   *leaves, *cc, *carry)

    def body_and_cond(err_tree, *args):
        # one iteration, then the next test of the condition (so its errors are caught too)
        n = err_tree.num_leaves
        c, b = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts]
        errs, xs = args[cond_nconsts + body_nconsts:][:n], args[cond_nconsts + body_nconsts + n:]
        err, out = checkify_jaxpr_flat(body_jaxpr.jaxpr, body_jaxpr.consts, enabled, err_tree,
                                       *errs, *b, *xs)
        ls, t = tree_util.tree_flatten(err)
        err, _ = checkify_jaxpr_flat(cond_jaxpr.jaxpr, cond_jaxpr.consts, enabled, t, *ls, *c, *out)
        ls, t = tree_util.tree_flatten(err)
        box.append(t)
        return [*ls, *out]

    fixed = [_aval(x) for x in cc + bc]
    c_avals = [_aval(x) for x in carry]
    box = []
    leaves, tree = tree_util.tree_flatten(error)
    trace_flat(functools.partial(body_and_cond, tree), fixed + [_aval(x) for x in leaves] + c_avals)
    t = box[-1]
    effects = set(tree_util.tree_unflatten(t, [None] * t.num_leaves)._pred)
    error = error._add_placeholder_effects(effects)
    leaves, tree = tree_util.tree_flatten(error)
    e_avals = [_aval(x) for x in leaves]
    box.clear()
    body, b_new = trace_flat(functools.partial(body_and_cond, tree), fixed + e_avals + c_avals)
    out_tree = box[-1]
    n = len(leaves)
    cond, c_new = trace_flat(
        lambda *args: core.eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts,
                                      *args[:cond_nconsts], *args[cond_nconsts + n:]),
        [_aval(x) for x in cc] + e_avals + c_avals)
    outs = while_loop.while_p.bind(*c_new, *cc, *b_new, *cc, *bc, *leaves, *carry, cond_jaxpr=cond,
                        body_jaxpr=body, cond_nconsts=len(c_new) + len(cc),
                        body_nconsts=len(b_new) + len(cc) + len(bc))
    return _split_outs(outs, [out_tree], error)


def _pjit_rule(error, enabled, *args, jaxpr, name, donated_invars=None, **params):
    arg_avals = [_aval(x) for x in args]
    error, leaves, traced = _merged(error, [jaxpr], enabled,
                                    lambda ls: [_aval(x) for x in ls] + arg_avals)
    body, consts, tree = traced[0]
    donated = None if donated_invars is None else (
        (False,) * (len(consts) + len(leaves)) + tuple(donated_invars))
    outs = pjit.pjit_p.bind(*consts, *leaves, *args, jaxpr=body, name=name, donated_invars=donated,
                       **params)
    return _split_outs(outs, [tree], error)


def _checkpoint_rule(error, enabled, *args, jaxpr, **params):
    arg_avals = [_aval(x) for x in args]
    error, leaves, traced = _merged(error, [jaxpr], enabled,
                                    lambda ls: [_aval(x) for x in ls] + arg_avals)
    body, consts, tree = traced[0]
    params = dict(params, prevent_cse=ad_checkpoint.with_cse(  # (the error's leaves: no barrier)
        params["prevent_cse"], before=(False,) * (len(consts) + len(leaves))))
    outs = ad_checkpoint.checkpoint_p.bind(*consts, *leaves, *args, jaxpr=body, **params)
    return _split_outs(outs, [tree], error)


def _custom_call_rule(error, enabled, *args, call_jaxpr, **params):
    # NB: JAX threads the error through the custom_jvp/custom_vjp call itself; pyjax keeps the
    # call (and its rules) unchanged and checks the function's primal computation beside it, on
    # the same (gradient-stopped) inputs. Same errors; the duplicate work is XLA's to share.
    # The call itself runs without its checks (they are functionalized beside it).
    prim = _where.prim
    outs = prim.bind(*args, call_jaxpr=without_checks(call_jaxpr), **params)
    leaves, tree = tree_util.tree_flatten(error)
    stopped = [shape_ops.stop_gradient(x) if dtypes.issubdtype(_aval(x).dtype, np.inexact) else x
               for x in args]
    error, _ = checkify_jaxpr_flat(call_jaxpr.jaxpr, call_jaxpr.consts, enabled, tree,
                                   *leaves, *stopped)
    return error, outs


def _shard_map_rule(error, enabled, *args, jaxpr, mesh, in_specs, out_specs, **params):
    """The body checkified per device; each device's error comes out along a leading axis (so
    `get()` reports `at mapped index d:` per failing device, as JAX does for pmap)."""
    local = list(jaxpr.in_avals)
    with batching.extend_axis_env(mesh.shape):
        error, leaves, traced = _merged(error, [jaxpr], enabled,
                                        lambda ls: [_aval(x) for x in ls] + local)
        body, consts, tree = traced[0]
        n = tree.num_leaves

        def per_device(*xs):  # the body, its error leaves given a leading axis of size 1
            outs = core.eval_jaxpr(body.jaxpr, [], *xs)
            return [shape_ops.expand_dims(e, (0,)) for e in outs[:n]] + list(outs[n:])
        body2, consts2 = trace_flat(per_device, [_aval(x) for x in consts + leaves] + local)
    rep = PartitionSpec()
    outs = shard_map.shard_map_p.bind(
        *consts2, *consts, *leaves, *args, jaxpr=body2, mesh=mesh,
        in_specs=(rep,) * (len(consts2) + len(consts) + len(leaves)) + tuple(in_specs),
        out_specs=(PartitionSpec(tuple(mesh.axis_names)),) * n + tuple(out_specs), **params)
    return _split_outs(outs, [tree], error)


_stripped: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def without_checks(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """`closed` with its `check` equations removed, also inside the jaxprs its equations carry
    (the same object when it has none)."""
    if not any(isinstance(e, ErrorEffect) for e in closed.effects):
        return closed
    hit = _stripped.get(closed)
    if hit is None:
        hit = _stripped[closed] = core.ClosedJaxpr(_strip(closed.jaxpr), closed.consts)
    return hit


def _strip(jaxpr: core.Jaxpr) -> core.Jaxpr:
    eqns = []
    for eqn in jaxpr.eqns:
        if eqn.primitive is check_p:
            continue
        if any(isinstance(e, ErrorEffect) for e in eqn.effects):
            eqn = eqn._replace(params={k: _strip_param(v) for k, v in eqn.params.items()})
        eqns.append(eqn)
    return core.Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns,
                      debug_info=jaxpr.debug_info)


def _strip_param(v):
    if type(v) is core.ClosedJaxpr:
        return without_checks(v)
    if type(v) is core.Jaxpr:
        return _strip(v)
    if type(v) in (tuple, list):
        return type(v)(_strip_param(x) for x in v)
    return v


def _with_prim(rule):
    """A rule shared by several primitives: it finds its primitive in `_where.prim`."""
    return functools.partial(_prim_rule, rule)


def _prim_rule(rule, error, enabled, *args, **params):
    return rule(_where.prim, error, enabled, *args, **params)


# -- the tables (filled on import) -------------------------------------------------------------

error_checks_by_name.update({name: _with_prim(_nan_rule) for name in NAN_PRIMITIVES})
error_checks_by_name["div"] = _div_rule
error_checks.update({p: _scatter_rule for p in (
    slicing.scatter_p, slicing.scatter_add_p, slicing.scatter_sub_p, slicing.scatter_mul_p,
    slicing.scatter_min_p, slicing.scatter_max_p)})
error_checks.update({
    slicing.gather_p: _gather_rule,
    dynamic_slicing.dynamic_slice_p: _dynamic_slice_rule,
    dynamic_slicing.dynamic_update_slice_p: _dynamic_update_slice_rule,
    check_p: _check_discharge_rule,
    conditionals.cond_p: _cond_rule,
    scan.scan_p: _scan_rule,
    while_loop.while_p: _while_rule,
    pjit.pjit_p: _pjit_rule,
    ad_checkpoint.checkpoint_p: _checkpoint_rule,
    shard_map.shard_map_p: _shard_map_rule,
    custom_derivatives.custom_jvp_call_p: _custom_call_rule,
    custom_derivatives.custom_vjp_call_p: _custom_call_rule,
})
