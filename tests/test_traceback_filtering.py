"""Traceback filtering at pyjax's API boundaries (issue 15): an exception escaping jit, grad,
vmap, scan, ... shows the user's frames, not pyjax's internals, unless
jax_traceback_filtering="off"; the exception itself (class, message, cause, notes) is unchanged.
The oracle is the same call with filtering off."""
import os
import traceback

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.experimental import checkify
from pyjax.sharding import PartitionSpec as P
from pyjax._src import source_info
from pyjax._src import traceback_util as tbu
from pyjax._src.config import config

PYJAX_DIR = os.path.dirname(os.path.abspath(pyjax.__file__))
NOTE_START = "--------------------\n" + tbu.SIMPLIFIED_TB_MSG[:30]


@pytest.fixture
def filtering():
    """Set jax_traceback_filtering for the test; restored afterwards."""
    prev = config.jax_traceback_filtering
    yield lambda mode: config.update("jax_traceback_filtering", mode)
    config.update("jax_traceback_filtering", prev)


def files(exc):
    return [f.f_code.co_filename for f, _ in traceback.walk_tb(exc.__traceback__)]


def internal(exc):
    return [fn for fn in files(exc) if fn.startswith(PYJAX_DIR)]


def notes(exc):
    return [n for n in getattr(exc, "__notes__", ()) if n.startswith(NOTE_START)]


# -- user functions with a shape error in their body ---------------------------------------------

def bad_body(x):
    return x + jnp.ones(3)  # (2,) + (3,): a broadcasting TypeError


def scan_body(c, x):
    return bad_body(c), x


_custom_jvp = pyjax.custom_jvp(bad_body)
_custom_jvp.defjvp(lambda p, t: (bad_body(*p), t[0]))
_custom_vjp = pyjax.custom_vjp(bad_body)
_custom_vjp.defvjp(lambda x: (bad_body(x), None), lambda r, g: (g,))

CASES = {
    "jit": lambda: pyjax.jit(bad_body)(jnp.ones(2)),
    "grad": lambda: pyjax.grad(lambda x: bad_body(x).sum())(jnp.ones(2)),
    "value_and_grad": lambda: pyjax.value_and_grad(lambda x: bad_body(x).sum())(jnp.ones(2)),
    "vmap": lambda: pyjax.vmap(bad_body)(jnp.ones((4, 2))),
    "jacrev": lambda: pyjax.jacrev(bad_body)(jnp.ones(2)),
    "jacfwd": lambda: pyjax.jacfwd(bad_body)(jnp.ones(2)),
    "hessian": lambda: pyjax.hessian(lambda x: bad_body(x).sum())(jnp.ones(2)),
    "jvp": lambda: pyjax.jvp(bad_body, (jnp.ones(2),), (jnp.ones(2),)),
    "vjp": lambda: pyjax.vjp(bad_body, jnp.ones(2)),
    "scan": lambda: lax.scan(scan_body, jnp.ones(2), jnp.ones(4)),
    "fori_loop": lambda: lax.fori_loop(0, 3, lambda i, c: bad_body(c), jnp.ones(2)),
    "while_loop": lambda: lax.while_loop(lambda c: c.sum() < 9, bad_body, jnp.ones(2)),
    "cond": lambda: lax.cond(True, bad_body, lambda x: x, jnp.ones(2)),
    "make_jaxpr": lambda: pyjax.make_jaxpr(bad_body)(jnp.ones(2)),
    "eval_shape": lambda: pyjax.eval_shape(bad_body, jnp.ones(2)),
    "jit_lower": lambda: pyjax.jit(bad_body).lower(jnp.ones(2)),
    "linearize": lambda: pyjax.linearize(bad_body, jnp.ones(2)),
    "switch": lambda: lax.switch(1, [lambda x: x, bad_body], jnp.ones(2)),
    "lax_map": lambda: lax.map(bad_body, jnp.ones((4, 2))),
    "associative_scan": lambda: lax.associative_scan(lambda a, b: bad_body(a + b), jnp.ones((4, 2))),
    "checkpoint": lambda: pyjax.checkpoint(bad_body)(jnp.ones(2)),
    "named_call": lambda: pyjax.named_call(bad_body)(jnp.ones(2)),
    "closure_convert": lambda: pyjax.closure_convert(bad_body, jnp.ones(2)),
    "custom_jvp": lambda: _custom_jvp(jnp.ones(2)),
    "custom_vjp": lambda: _custom_vjp(jnp.ones(2)),
    "checkify": lambda: checkify.checkify(bad_body)(jnp.ones(2)),
    "pmap": lambda: pyjax.pmap(bad_body)(jnp.ones((1, 2))),
    "shard_map": lambda: pyjax.shard_map(bad_body, mesh=pyjax.make_mesh((1,), ("x",)),
                                         in_specs=P("x"), out_specs=P("x"))(jnp.ones(2)),
    "nested": lambda: pyjax.vmap(pyjax.grad(pyjax.jit(lambda x: bad_body(x).sum())))(jnp.ones((3, 2))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_user_frames_only_by_default(name, filtering):
    with pytest.raises((TypeError, ValueError)) as filtered:  # ValueError: eager broadcasting
        CASES[name]()
    e = filtered.value
    assert internal(e) == [], internal(e)
    # the test's frame, the case's lambda, ..., the line of the shape error in bad_body
    assert set(files(e)) == {__file__}
    assert traceback.extract_tb(e.__traceback__)[-1].name == "bad_body"
    assert len(notes(e)) == 1  # one note, however many boundaries it crossed

    # the oracle: the same call unfiltered has the same class and message, and pyjax's frames
    filtering("off")
    with pytest.raises((TypeError, ValueError)) as full:
        CASES[name]()
    assert type(full.value) is type(e) and str(full.value) == str(e)
    assert "incompatible shapes" in str(e).lower()
    assert internal(full.value) != []
    assert notes(full.value) == []
    assert traceback.extract_tb(full.value.__traceback__)[-1].filename.startswith(PYJAX_DIR)


def test_off_from_the_start_leaves_the_traceback_alone(filtering):
    filtering("off")
    with pytest.raises(TypeError) as info:
        pyjax.jit(bad_body)(jnp.ones(2))
    fns = files(info.value)
    assert any(fn.endswith(os.path.join("pyjax", "_src", "pjit.py")) for fn in fns)
    assert not hasattr(info.value, "__notes__") or notes(info.value) == []


def raising_with_cause(x):
    try:
        {}["missing"]
    except KeyError as k:
        err = ValueError("the user's own error")
        err.add_note("a note of the user's")
        raise err from k


def test_cause_and_notes_are_preserved(filtering):
    with pytest.raises(ValueError, match="the user's own error") as info:
        pyjax.jit(raising_with_cause)(1.0)
    e = info.value
    assert isinstance(e.__cause__, KeyError)
    assert e.__notes__[0] == "a note of the user's" and len(notes(e)) == 1
    assert internal(e) == []
    assert traceback.extract_tb(e.__traceback__)[-1].name == "raising_with_cause"


def test_remove_frames_chains_the_unfiltered_traceback(filtering):
    filtering("remove_frames")
    with pytest.raises(ValueError) as info:
        pyjax.grad(raising_with_cause)(1.0)
    e = info.value
    assert internal(e) == [] and notes(e) == []
    unfiltered = e.__cause__
    assert isinstance(unfiltered, tbu.UnfilteredStackTrace)
    assert "the user's own error" in str(unfiltered)
    assert internal(unfiltered) != []  # the full stack, pyjax's frames included
    assert isinstance(unfiltered.__cause__, KeyError)  # the user's cause is kept, one link down
    assert traceback.extract_tb(unfiltered.__traceback__)[-1].name == "raising_with_cause"


def test_tracebackhide_marks_internal_frames(filtering):
    filtering("tracebackhide")
    with pytest.raises(TypeError) as info:
        pyjax.jit(bad_body)(jnp.ones(2))
    hidden = {f.f_code.co_filename: f.f_locals.get("__tracebackhide__", False)
              for f, _ in traceback.walk_tb(info.value.__traceback__)}
    assert internal(info.value) != []  # frames kept ...
    assert all(hidden[fn] for fn in hidden if fn.startswith(PYJAX_DIR))  # ... marked hidden
    assert not hidden[__file__]


def test_error_raised_by_pyjax_itself_keeps_the_raise_site(filtering):
    # every frame below the boundary is pyjax's: the innermost one (the raise) stays
    with pytest.raises(TypeError) as info:
        pyjax.jit(lambda x: "not an array")(1.0)
    fns = files(info.value)
    assert fns[0] == __file__
    assert len(internal(info.value)) == 1 and fns[-1].startswith(PYJAX_DIR)


def test_success_path_unchanged_and_jit_is_still_the_cpp_dispatcher():
    f = pyjax.jit(lambda x: x * 2 + 1)
    assert type(f).__name__ == "PjitFunction"  # the C++ dispatcher, not a Python wrapper
    np.testing.assert_allclose(f(jnp.arange(3.0)), [1.0, 3.0, 5.0])
    np.testing.assert_allclose(f(jnp.arange(3.0)), [1.0, 3.0, 5.0])
    g = pyjax.grad(lambda x: (x ** 2).sum())
    assert g.__name__ == "<lambda>"
    np.testing.assert_allclose(g(jnp.arange(3.0)), [0.0, 2.0, 4.0])


def test_base_exceptions_are_not_filtered(filtering):
    def interrupted(x):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as info:
        pyjax.jit(interrupted)(1.0)
    assert internal(info.value) != []


LIB_SOURCE = """
import pyjax
from pyjax._src.traceback_util import api_boundary

def library_apply(f, x):  # calls jit: its own frame lies above jit's boundary
    return pyjax.jit(lambda y: f(y) * 2)(x)  # the lambda runs below it

library_entry = api_boundary(library_apply)  # a library entry point that is a boundary too
"""


def _library(tmp_path, name):
    path = str(tmp_path / f"{name}.py")
    with open(path, "w") as fh:
        fh.write(LIB_SOURCE)
    ns = {}
    exec(compile(LIB_SOURCE, path, "exec"), ns)
    return path, ns["library_apply"], ns["library_entry"]


@pytest.mark.parametrize("register", ["file", "directory"])
def test_library_registering_an_exclusion(tmp_path, register, filtering):
    path, library_apply, library_entry = _library(tmp_path, "mylib")

    def lib_frames(call):
        with pytest.raises(TypeError) as info:
            call(bad_body, jnp.ones(2))
        assert internal(info.value) == [] and len(notes(info.value)) == 1
        assert traceback.extract_tb(info.value.__traceback__)[-1].name == "bad_body"
        return files(info.value).count(path)

    # until it registers, a library's frames are the user's: both kept
    assert lib_frames(library_apply) == 2 and lib_frames(library_entry) == 2

    from pyjax._jax_compat.internal import traceback_util as compat
    target = path if register == "file" else str(tmp_path)
    compat.register_exclusion(target)
    try:
        assert not tbu.include_filename(path) and tbu.include_filename(__file__)
        # registered: frames below a boundary go; library_apply's own frame is above jit's
        # boundary (as in JAX), library_entry's is below its own
        assert lib_frames(library_apply) == 1
        assert lib_frames(library_entry) == 0
    finally:
        # as flax's show_flax_in_tracebacks: out of the list, the frames are shown again
        compat._exclude_paths.remove(target)
        source_info._excluded_files.discard(os.path.abspath(target))
    assert tbu.include_filename(path)
    assert lib_frames(library_entry) == 2


def test_library_boundary_through_the_compat_shim(filtering):
    from pyjax._jax_compat.internal import traceback_util as compat
    assert compat.api_boundary is tbu.api_boundary

    @compat.api_boundary
    def library_entry(f, x):  # as flax marks Module.apply
        return pyjax.vmap(pyjax.jit(f))(x)

    assert library_entry.__name__ == "library_entry"
    with pytest.raises(TypeError) as info:
        library_entry(bad_body, jnp.ones((3, 2)))
    assert len(notes(info.value)) == 1 and internal(info.value) == []


def test_quiet_note_opens_with_jax_words(filtering):
    """JAX 0.10.2's note under quiet_remove_frames starts "For simplicity" (its errors_test
    checks `any("For simplicity" in x for x in e.__notes__)`)."""
    filtering("quiet_remove_frames")
    with pytest.raises(TypeError) as e:
        pyjax.jit(lambda x: x.reshape(7))(jnp.ones(3))
    assert any("For simplicity" in note for note in e.value.__notes__)
