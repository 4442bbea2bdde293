"""What users see printed reads as JAX 0.10.2's: `make_jaxpr` printouts, `PyTreeDef` reprs and
`print_saved_residuals` lines, compared character for character with JAX's own output for the
same programs (tests/data/printing_corpus.py), recorded by tests/data/record_printing.py into
tests/data/jax_printing.json."""
import collections
import dataclasses
import importlib.util
import json
import os
import re

import numpy as np
import optree
import pytest

import pyjax
import pyjax.ad_checkpoint
import pyjax.numpy as jnp
from pyjax import lax
from pyjax import tree_util

DATA = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(DATA, "jax_printing.json")) as _fh:
    RECORD = json.load(_fh)


def _load_corpus():
    spec = importlib.util.spec_from_file_location("printing_corpus", os.path.join(DATA, "printing_corpus.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CORPUS = _load_corpus()
PROGRAMS = CORPUS.programs(pyjax, jnp, lax, np)

# Programs whose jaxprs differ from JAX's for reasons outside the printer; each flips to a
# failure (strict xfail) once the difference is gone, so the entry can be removed.
KNOWN_DIFFERENCES = {
    "select_where": "JAX's jnp.where is a jit-wrapped function (`jit[name=_where ...]`); pyjax's is inlined",
    "int_ops": "JAX's jnp.remainder is jit-wrapped and converts its divisor; pyjax's is inlined",
    "cumsum": "JAX's jnp.cumsum is a jit-wrapped function; pyjax's is inlined",
    "custom_vjp_grad": "JAX's jnp.clip is a jit-wrapped function; pyjax's is inlined",
    "checkpoint_grad": "JAX's grad of checkpoint keeps the primal outside remat2 and recomputes in a "
                       "differentiated=True remat2; pyjax's linearization differs",
}


def _normalize(name, text):
    if name == "vmap_in_axes":
        # JAX's broadcast_in_dim batching rule leaves NumPy integers in the param, whose repr
        # (`np.int64(1)`) shows up in its printout; pyjax's param holds Python ints
        text = re.sub(r"np\.int64\((\d+)\)", r"\1", text)
    return text


def _case(name):
    reason = KNOWN_DIFFERENCES.get(name)
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=reason)) if reason else name


def test_corpus_and_record_agree():
    """The record must be redone (tests/data/record_printing.py) when the corpus changes."""
    assert sorted(PROGRAMS) == sorted(RECORD["jaxprs"])
    assert set(KNOWN_DIFFERENCES) <= set(PROGRAMS)
    assert RECORD["jax_version"] == "0.10.2"


@pytest.mark.parametrize("name", [_case(n) for n in sorted(PROGRAMS)])
def test_make_jaxpr_prints_as_jax(name):
    fn, args = PROGRAMS[name]
    got = str(pyjax.make_jaxpr(fn)(*args))
    assert got == _normalize(name, RECORD["jaxprs"][name])


def test_most_printouts_match_without_normalizing():
    """The normalized and known-different cases stay a small minority of the corpus."""
    exact = [n for n in PROGRAMS if n not in KNOWN_DIFFERENCES and n != "vmap_in_axes"]
    assert len(exact) >= 3 * (len(PROGRAMS) - len(exact))


def test_width_is_a_parameter():
    """A narrower page breaks what fits in 80 columns (the same layout rules, another width)."""
    from pyjax._src.pretty_print import pp_jaxpr
    jaxpr = pyjax.make_jaxpr(jnp.sin)(np.ones(3, np.float32)).jaxpr
    assert pp_jaxpr(jaxpr) == "{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }"
    assert pp_jaxpr(jaxpr, width=40) == "{ lambda ; a:f32[3]. let\n    b:f32[3] = sin a\n  in (b,) }"


# -- PyTreeDef -----------------------------------------------------------------------------------

TREES = CORPUS.trees(tree_util, collections, dataclasses)


def test_tree_corpus_and_record_agree():
    assert sorted(TREES) == sorted(RECORD["treedefs"])


@pytest.mark.parametrize("name", sorted(TREES))
def test_treedef_repr_as_jax(name):
    treedef = tree_util.tree_structure(TREES[name])
    assert repr(treedef) == RECORD["treedefs"][name]
    assert str(treedef) == f"{treedef}" == RECORD["treedefs"][name]


def test_treedef_repr_inside_containers_and_messages():
    children = tree_util.treedef_children(tree_util.tree_structure({"a": 1, "b": (2, 3)}))
    assert repr(children) == "[PyTreeDef(*), PyTreeDef((*, *))]"
    with pytest.raises(ValueError, match=r"PyTreeDef\(\[\*, \*\]\) has 2 leaves"):
        tree_util.tree_unflatten(tree_util.tree_structure([1, 2]), [1, 2, 3])


def test_other_optree_structures_keep_optree_repr():
    """Only pyjax's own structures are respelled; an optree user's (None as a leaf, or their
    own namespace) still prints as optree prints it."""
    assert repr(optree.tree_structure([None, 1], none_is_leaf=True)).startswith("PyTreeSpec(")


# -- print_saved_residuals ---------------------------------------------------------------------

RESIDUAL_PROGRAMS = CORPUS.residual_programs(pyjax, jnp, np)


def _strip_dirs(text):
    """Source locations name the corpus file by its absolute path, which depends on where the
    checkout is; compare from the file name on."""
    return re.sub(r"\S*[/\\](printing_corpus\.py:)", r"\1", text)


def test_residual_corpus_and_record_agree():
    assert sorted(RESIDUAL_PROGRAMS) == sorted(RECORD["residuals"])


@pytest.mark.parametrize("name", sorted(RESIDUAL_PROGRAMS))
def test_print_saved_residuals_as_jax(name, capsys):
    fn, args = RESIDUAL_PROGRAMS[name]
    pyjax.ad_checkpoint.print_saved_residuals(fn, *args)
    assert _strip_dirs(capsys.readouterr().out) == _strip_dirs(RECORD["residuals"][name])


def test_tracer_reprs_read_as_jax_s():
    """Issue 23: tracers print as JAX 0.10.2's (strings recorded from it)."""
    seen = {}

    def show(tag):
        def f(x):
            seen[tag] = repr(x)
            assert str(x) == repr(x)
            return x
        return f
    pyjax.jit(show("jit"))(jnp.arange(2.))
    pyjax.make_jaxpr(show("make_jaxpr"))(1.0)
    pyjax.grad(show("grad"))(1.0)
    pyjax.jvp(show("jvp"), (jnp.ones(2),), (jnp.ones(2),))
    pyjax.vmap(show("vmap"))(jnp.arange(2.))
    pyjax.jit(pyjax.grad(show("jit_grad")))(1.0)
    pyjax.jit(show("jit_int"))(3)
    assert seen == {
        "jit": "JitTracer(float32[2])", "make_jaxpr": "JitTracer(~float32[])",
        "grad": "GradTracer(primal=1.0, typeof(tangent)=f32[])",
        "jvp": "JVPTracer(primal=[1. 1.], tangent=[1. 1.])",
        "vmap": "VmapTracer(aval=float32[], batched=float32[2])",
        "jit_grad": "GradTracer(primal=JitTracer(~float32[]), typeof(tangent)=f32[])",
        "jit_int": "JitTracer(~int32[])"}
