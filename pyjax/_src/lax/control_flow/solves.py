"""`lax.custom_linear_solve` and `lax.custom_root`: solvers whose derivatives come from the
equations they solve, not from differentiating the solver's iterations.

`linear_solve_p.bind(*consts, *b, const_lengths, jaxprs)` runs `jaxprs.solve(b)`. `jaxprs` holds
four const-free closed jaxprs (`matvec`, `vecmat`, `solve`, `transpose_solve`; the vecmat and
transpose_solve ones are None without a `transpose_solve`), each taking its constants
(`const_lengths` of them, in that order among the operands) and then a vector like b; `solve`
may return auxiliary outputs after x. Rules, in order: abstract eval, impl, jvp (`A x = b` gives
`x' = solve(b' - A' x)`), transpose (the same primitive with the transposed jaxprs, applied to
the cotangent), batching (every jaxpr batched, with b and x always batched) and lowering (the
solve jaxpr, inlined).

`custom_root` is `root_p`, whose JVP rule is the implicit derivative: the root's tangent is
`-tangent_solve(J_x, J_params . dparams)`, built from traceable operations so that reverse mode
transposes it and higher derivatives differentiate it.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from pyjax._src import core, tree_util
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax.control_flow import common
from pyjax._src.traceback_util import api_boundary


class _LinearSolveTuple(NamedTuple):
    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self):
        return type(self)(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _split(args, const_lengths):
    """(_LinearSolveTuple of constant lists, b) from the flat operands."""
    groups, start = [], 0
    for n in const_lengths:
        groups.append(list(args[start:start + n]))
        start += n
    return _LinearSolveTuple(*groups), list(args[start:])


def _flatten(groups):
    return [x for g in groups for x in g]


linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)

# -- the wrapper -------------------------------------------------------------------------------


def _check_shapes(fname, out_flat, b_avals):
    got = [tuple(core.get_aval(x).shape) for x in out_flat]
    want = [tuple(a.shape) for a in b_avals]
    if got != want:
        raise ValueError(f"{fname}() output shapes must match b, got {got} and {want}")


def _trace_like_b(fname, fun, b_tree, b_avals, has_aux=False):
    """`fun` (pytree like b -> pytree like b, or (that, aux)) as (const-free jaxpr, consts,
    aux treedef)."""
    aux_trees = []

    def flat(*leaves):
        out = fun(tree_util.tree_unflatten(b_tree, leaves))
        y, aux = out if has_aux else (out, None)
        y_flat, y_tree = tree_util.tree_flatten(y)
        if y_tree != b_tree:
            raise TypeError(f"custom_linear_solve: {fname}() output pytree structure must match b, "
                            f"got {y_tree} and {b_tree}")
        _check_shapes(fname, y_flat, b_avals)
        aux_flat, aux_tree = tree_util.tree_flatten(aux)
        aux_trees.append(aux_tree)
        return y_flat + (aux_flat if has_aux else [])
    jaxpr, consts = common.trace_flat(flat, b_avals)
    return jaxpr, consts, aux_trees[0]


def _transpose_jaxpr(matvec_jaxpr, matvec_consts, b_avals):
    """The jaxpr of matvec's transpose (matvec is linear in its vector), as (jaxpr, consts): it
    takes what its trace captured and matvec's constants, then a cotangent."""
    n = len(matvec_consts)

    def vecmat(*args):
        consts, ct = list(args[:n]), list(args[n:])
        cts = ad.backward_pass(matvec_jaxpr.jaxpr, consts, [False] * n + [True] * len(ct), ct)
        return [common.instantiate_zeros(c, a) for c, a in zip(cts[n:], b_avals, strict=True)]
    in_avals = [core.get_aval(c) for c in matvec_consts] + list(b_avals)
    jaxpr, captured = common.trace_flat(vecmat, in_avals)
    return jaxpr, list(captured) + list(matvec_consts)


def _as_function(jaxpr, consts, b_tree):
    """`v -> jaxpr(*consts, *leaves(v))` on pytrees like b."""
    def fun(v):
        outs = core.jaxpr_as_fun(jaxpr)(*consts, *tree_util.tree_leaves(v))
        return tree_util.tree_unflatten(b_tree, outs)
    return fun


@api_boundary
def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False, has_aux=False):
    """Solve `matvec(x) == b` with `solve(matvec, b)`, differentiated implicitly: the tangent of
    x solves the same system (by `solve` again) and the cotangent of b the transposed one, by
    `transpose_solve(vecmat, ct)` with `vecmat` the transpose of `matvec` (`symmetric=True`
    reuses `solve`). With `has_aux`, the solvers return `(x, aux)` and so does this.

        >>> x = lax.custom_linear_solve(lambda v: a @ v, b, lambda mv, r: jnp.linalg.solve(a, r))
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_flat, b_tree = tree_util.tree_flatten(b)
    b_avals = [core.get_aval(x) for x in b_flat]
    matvec_jaxpr, matvec_consts, _ = _trace_like_b("matvec", matvec, b_tree, b_avals)
    solve_jaxpr, solve_consts, aux_tree = _trace_like_b("solve", lambda v: solve(matvec, v), b_tree,
                                                        b_avals, has_aux)
    vecmat_jaxpr = tr_jaxpr = None
    vecmat_consts = tr_consts = []
    if transpose_solve is not None:
        if symmetric:
            vecmat_jaxpr, vecmat_consts = matvec_jaxpr, matvec_consts
        else:
            vecmat_jaxpr, vecmat_consts = _transpose_jaxpr(matvec_jaxpr, matvec_consts, b_avals)
        vecmat = _as_function(vecmat_jaxpr, vecmat_consts, b_tree)
        tr_jaxpr, tr_consts, _ = _trace_like_b("transpose_solve", lambda v: transpose_solve(vecmat, v),
                                               b_tree, b_avals, has_aux)
    groups = _LinearSolveTuple(matvec_consts, vecmat_consts, solve_consts, tr_consts)
    jaxprs = _LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_jaxpr)
    out = linear_solve_p.bind(*_flatten(groups), *b_flat,
                              const_lengths=_LinearSolveTuple(*map(len, groups)), jaxprs=jaxprs)
    x = tree_util.tree_unflatten(b_tree, out[:len(b_flat)])
    return (x, tree_util.tree_unflatten(aux_tree, out[len(b_flat):])) if has_aux else x


# -- rules -------------------------------------------------------------------------------------


@linear_solve_p.def_abstract_eval
def _linear_solve_abstract_eval(*avals, const_lengths, jaxprs):
    return list(jaxprs.solve.out_avals)


def _linear_solve_impl(*args, const_lengths, jaxprs):
    consts, b = _split(args, const_lengths)
    return core.jaxpr_as_fun(jaxprs.solve)(*consts.solve, *b)


linear_solve_p.def_impl(_linear_solve_impl)


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    """A x = b  =>  A x' + A' x = b'  =>  x' = solve(b' - A' x); aux outputs get zero tangents."""
    params = dict(const_lengths=const_lengths, jaxprs=jaxprs)
    out = linear_solve_p.bind(*primals, **params)
    consts, b = _split(primals, const_lengths)
    consts_dot, b_dot = _split(tangents, const_lengths)
    x = out[:len(b)]
    rhs = [common.instantiate_zeros(t, core.get_aval(v)) for t, v in zip(b_dot, b, strict=True)]
    if any(type(t) is not ad.Zero for t in consts_dot.matvec):
        zeros = [ad.Zero(ad.tangent_aval(core.get_aval(v))) for v in x]
        _, a_dot_x = ad.jvp_flat(core.jaxpr_as_fun(jaxprs.matvec), consts.matvec + x,
                                 consts_dot.matvec + zeros)
        rhs = [r if type(t) is ad.Zero else lax_elem.sub(r, t) for r, t in zip(rhs, a_dot_x, strict=True)]
    x_dot = linear_solve_p.bind(*_flatten(consts), *rhs, **params)
    aux_dot = [ad.Zero(ad.tangent_aval(core.get_aval(a))) for a in out[len(b):]]
    return out, x_dot[:len(b)] + aux_dot


linear_solve_p.def_jvp(_linear_solve_jvp)


def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic differentiation "
                        "of custom_linear_solve")
    consts, b = _split(args, const_lengths)
    if any(ad.is_undefined_primal(c) for c in _flatten(consts)):
        raise NotImplementedError("custom_linear_solve: transposing with respect to the solvers' "
                                  "constants is not supported (as in JAX)")
    x_cts = [common.instantiate_zeros(ct, a.aval) for ct, a in zip(cts[:len(b)], b, strict=True)]
    b_cts = linear_solve_p.bind(*_flatten(consts.transpose()), *x_cts,
                                const_lengths=const_lengths.transpose(), jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + list(b_cts[:len(b)])


linear_solve_p.def_transpose(_linear_solve_transpose)


def _linear_solve_batch(axis_data, args, dims, *, const_lengths, jaxprs):
    """Batch every jaxpr with b and x batched (b broadcast if it was not): simpler than JAX's
    fixpoint over which parts are batched, and the same results. The batched jaxprs' new
    constants join their groups of operands."""
    if all(d is batching.not_mapped for d in dims):
        outs = linear_solve_p.bind(*args, const_lengths=const_lengths, jaxprs=jaxprs)
        return outs, [batching.not_mapped] * len(outs)
    consts, b = _split(args, const_lengths)
    const_dims, b_dims = _split(dims, const_lengths)
    size = axis_data.size
    b_at_front = [batching.bdim_at_front(v, d, size) for v, d in zip(b, b_dims, strict=True)]
    groups, new_jaxprs = [], []
    for jaxpr, cs, ds in zip(jaxprs, consts, const_dims, strict=True):
        if jaxpr is None:
            groups.append([])
            new_jaxprs.append(None)
            continue
        cs_front = [c if d is batching.not_mapped else batching.bdim_at_front(c, d, size) for c, d in zip(cs, ds)]
        in_dims = [batching.not_mapped if d is batching.not_mapped else 0 for d in ds] + [0] * len(b)
        bj, bconsts, _ = common.batch_jaxpr(jaxpr, axis_data, in_dims, [True] * len(jaxpr.out_avals))
        groups.append(list(bconsts) + cs_front)
        new_jaxprs.append(bj)
    outs = linear_solve_p.bind(*_flatten(groups), *b_at_front,
                               const_lengths=_LinearSolveTuple(*map(len, groups)),
                               jaxprs=_LinearSolveTuple(*new_jaxprs))
    return outs, [0] * len(outs)


linear_solve_p.def_batch(batching.AxisBatchRule(_linear_solve_batch))


@linear_solve_p.def_lowering
def _linear_solve_lowering(ctx, *args, const_lengths, jaxprs):
    consts, b = _split(args, const_lengths)
    return ctx.lower_jaxpr(jaxprs.solve.jaxpr, [], consts.solve + b)


# -- custom_root -------------------------------------------------------------------------------
#
# `root_p.bind(*f_consts, *solve_consts, *ls_consts, *guess, const_lengths, jaxprs)` runs the
# solver (`jaxprs[1]`, after its constants, on the guess). `jaxprs` also holds `f` and
# linearize_and_solve (`(x, b) -> tangent_solve(d_x f at x, b)`, traced when custom_root is
# called, as JAX's). The JVP is the implicit one, built from traceable operations (this
# primitive again for the root, `f` at the root, linearize_and_solve), so higher derivatives
# differentiate that rule, as JAX's custom_jvp does.
# NB: JAX stages custom_root as a custom_jvp_call; pyjax has a primitive of its own (the lax layer
# sits below custom_derivatives), printed `custom_root`.

root_p = Primitive("custom_root", multiple_results=True)


@api_boundary
def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """The root `x` of `f(x) == 0` that `solve(f, initial_guess)` finds, differentiated
    implicitly: with respect to what `f` closes over, dx = -J_x^{-1} (J_params dparams), the
    linear system solved by `tangent_solve(linear_f, rhs)`. `has_aux`: `solve` returns
    `(x, aux)`.

        >>> lax.custom_root(lambda x: x ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))
    """
    guess_flat, guess_tree = tree_util.tree_flatten(initial_guess)
    guess_avals = [core.get_aval(x) for x in guess_flat]
    unflat = lambda leaves: tree_util.tree_unflatten(guess_tree, leaves)  # noqa: E731

    def flat_f(*leaves):
        out_flat, out_tree = tree_util.tree_flatten(f(unflat(leaves)))
        if out_tree != guess_tree:
            raise TypeError(f"custom_root: f() output pytree structure must match initial_guess, "
                            f"got {out_tree} and {guess_tree}")
        return out_flat
    f_jaxpr, f_consts = common.trace_flat(flat_f, guess_avals)
    aux_trees = []

    def flat_solve(*leaves):
        out = solve(f, unflat(leaves))
        x, aux = out if has_aux else (out, None)
        x_flat, x_tree = tree_util.tree_flatten(x)
        if x_tree != guess_tree:
            raise TypeError(f"custom_root: solve() output pytree structure must match initial_guess, "
                            f"got {x_tree} and {guess_tree}")
        aux_flat, aux_tree = tree_util.tree_flatten(aux)
        aux_trees.append(aux_tree)
        return x_flat + (aux_flat if has_aux else [])
    solve_jaxpr, solve_consts = common.trace_flat(flat_solve, guess_avals)
    f_fun = core.jaxpr_as_fun(f_jaxpr)

    def linearize_and_solve(*x_and_b):  # tangent_solve(d_x f at x, b), traced now as JAX does
        x, b = list(x_and_b[:len(guess_flat)]), list(x_and_b[len(guess_flat):])

        def linear_f(v):
            _, out = ad.jvp_flat(lambda *xs: f_fun(*f_consts, *xs), x, tree_util.tree_leaves(v))
            return unflat([common.instantiate_zeros(t, core.get_aval(p))
                           for t, p in zip(out, x, strict=True)])
        dx_flat, dx_tree = tree_util.tree_flatten(tangent_solve(linear_f, unflat(b)))
        if dx_tree != guess_tree:
            raise TypeError(f"custom_root: tangent_solve() output pytree structure must match "
                            f"initial_guess, got {dx_tree} and {guess_tree}")
        return dx_flat
    ls_jaxpr, ls_consts = common.trace_flat(linearize_and_solve, guess_avals * 2)
    n = len(guess_flat)
    out = root_p.bind(*f_consts, *solve_consts, *ls_consts, *guess_flat,
                      const_lengths=(len(f_consts), len(solve_consts), len(ls_consts)),
                      jaxprs=(f_jaxpr, solve_jaxpr, ls_jaxpr))
    x = unflat(out[:n])
    return (x, tree_util.tree_unflatten(aux_trees[0], out[n:])) if has_aux else x


def _root_split(args, const_lengths):
    """(f's constants, the solver's, linearize_and_solve's, the guess) from the operands."""
    nf, ns, nl = const_lengths
    return (list(args[:nf]), list(args[nf:nf + ns]), list(args[nf + ns:nf + ns + nl]),
            list(args[nf + ns + nl:]))


@root_p.def_abstract_eval
def _root_abstract_eval(*avals, const_lengths, jaxprs):
    return list(jaxprs[1].out_avals)


def _root_impl(*args, const_lengths, jaxprs):
    _, solve_consts, _, guess = _root_split(args, const_lengths)
    return core.jaxpr_as_fun(jaxprs[1])(*solve_consts, *guess)


root_p.def_impl(_root_impl)


def _root_jvp(primals, tangents, *, const_lengths, jaxprs):
    """f(p, x*(p)) = 0  =>  dx* = -(d_x f)^{-1} (d_p f . dp), at the root, solved by
    linearize_and_solve; the tangents of the solver's constants and of the guess do not matter
    (as in JAX)."""
    out = root_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
    f_consts, _, ls_consts, guess = _root_split(primals, const_lengths)
    f_dots = tangents[:const_lengths[0]]
    x = out[:len(guess)]
    zeros = [ad.Zero(ad.tangent_aval(core.get_aval(v))) for v in out]
    if all(type(t) is ad.Zero for t in f_dots):
        return out, zeros
    f = core.jaxpr_as_fun(jaxprs[0])
    _, rhs = ad.jvp_flat(lambda *cs: f(*cs, *x), f_consts, f_dots)
    rhs = [common.instantiate_zeros(t, core.get_aval(v)) for t, v in zip(rhs, x, strict=True)]
    dx = core.jaxpr_as_fun(jaxprs[2])(*ls_consts, *x, *rhs)
    return out, [lax_elem.neg(d) for d in dx] + zeros[len(x):]


root_p.def_jvp(_root_jvp)


def _root_batch(axis_data, args, dims, *, const_lengths, jaxprs):
    """The jaxprs batched, with the guess, the root, f's values and linearize_and_solve's inputs
    and outputs batched (the guess broadcast if it was not); their new constants join their
    groups of operands."""
    if all(d is batching.not_mapped for d in dims):
        outs = root_p.bind(*args, const_lengths=const_lengths, jaxprs=jaxprs)
        return outs, [batching.not_mapped] * len(outs)
    size = axis_data.size
    *consts, guess = _root_split(args, const_lengths)
    *const_dims, guess_dims = _root_split(dims, const_lengths)
    guess = [batching.bdim_at_front(v, d, size) for v, d in zip(guess, guess_dims, strict=True)]
    groups, new_jaxprs = [], []
    for jaxpr, cs, ds in zip(jaxprs, consts, const_dims, strict=True):
        front = [c if d is batching.not_mapped else batching.bdim_at_front(c, d, size)
                 for c, d in zip(cs, ds, strict=True)]
        in_dims = [batching.not_mapped if d is batching.not_mapped else 0 for d in ds]
        n_vec = len(jaxpr.in_avals) - len(cs)  # the guess (x, and b for linearize_and_solve)
        bj, bconsts, _ = common.batch_jaxpr(jaxpr, axis_data, in_dims + [0] * n_vec,
                                            [True] * len(jaxpr.out_avals))
        groups.append(list(bconsts) + front)
        new_jaxprs.append(bj)
    outs = root_p.bind(*groups[0], *groups[1], *groups[2], *guess,
                       const_lengths=tuple(map(len, groups)), jaxprs=tuple(new_jaxprs))
    return outs, [0] * len(outs)


root_p.def_batch(batching.AxisBatchRule(_root_batch))


@root_p.def_lowering
def _root_lowering(ctx, *args, const_lengths, jaxprs):
    _, solve_consts, _, guess = _root_split(args, const_lengths)
    return ctx.lower_jaxpr(jaxprs[1].jaxpr, [], solve_consts + guess)
