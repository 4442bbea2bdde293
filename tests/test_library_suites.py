"""tools/library_suites.py's pure parts: the sample is the same in every process, causes group by
their first error line with addresses and values' reprs blanked, and the comparison counts pyjax's
passes among JAX's (the suites themselves run outside the test suite)."""
import importlib.util
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parent.parent / "tools" / "library_suites.py"
_spec = importlib.util.spec_from_file_location("library_suites", _PATH)
ls = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("library_suites", ls)  # (dataclasses look their module up)
_spec.loader.exec_module(ls)


def test_sample_is_stable_and_ignores_addresses():
    ids = [f"tests/a_test.py::T::test_{i}[<function f at 0x{i:x}>]" for i in range(400)]
    kept = [t for t in ids if ls.in_sample(t, (1, 4))]
    assert 50 < len(kept) < 150
    moved = [t.replace("0x", "0xdead") for t in ids]
    assert [ls.in_sample(t, (1, 4)) for t in moved] == [ls.in_sample(t, (1, 4)) for t in ids]
    assert all(ls.in_sample(t, (1, 1)) for t in ids)


def test_first_error_line_groups_causes():
    text = "x = 1\n>   f(x)\nE   TypeError: jit: argument leaf of type tuple (((1, 2), {})) is " \
           "not a valid JAX type\nE   more\n"
    assert ls.first_error_line(text) == "TypeError: jit: argument leaf of type tuple (...) is " \
                                         "not a valid JAX type"
    assert ls.first_error_line("Failed\nValueError: at 0x7f00") == "ValueError: at 0x?"


def test_compare_counts_pyjax_passes_among_jax_passes():
    jax = {"tests": {"a.py::t1": {"outcome": "passed"}, "a.py::t2": {"outcome": "passed"},
                     "b.py::t3": {"outcome": "passed"}, "a.py::t4": {"outcome": "failed"}},
           "collect_errors": {}}
    pyjax = {"tests": {"a.py::t1": {"outcome": "passed"},
                       "a.py::t2": {"outcome": "failed", "error": "KeyError: 1"},
                       "a.py::t4": {"outcome": "passed"}},
             "collect_errors": {"b.py": "ModuleNotFoundError: No module named 'x'"}}
    c = ls.compare(jax, pyjax)
    assert (c["run"], c["jax_passes"], c["pyjax_passes"]) == (4, 3, 1)
    assert c["causes"] == {"KeyError: 1": 1,
                           "(does not import) ModuleNotFoundError: No module named 'x'": 1}
