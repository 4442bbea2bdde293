"""The import guard: pyjax checks the jaxlib it drives, and refuses to share a process with the
real jax (the two attach their own methods to jaxlib's classes). A fake `jax` package on the
path stands in for the real one, so these tests need no jax installed."""
import subprocess
import sys
import textwrap

import pytest

from pyjax._src.backend import guard, xla


def _run(tmp_path, code):
    (tmp_path / "jax").mkdir(exist_ok=True)
    (tmp_path / "jax" / "__init__.py").write_text("FAKE = True\n")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})


def test_importing_jax_after_pyjax_is_refused(tmp_path):
    p = _run(tmp_path, """
        import pyjax
        try:
            import jax
        except ImportError as e:
            print("refused:", e)
        import pyjax.numpy as jnp
        print(float((jnp.ones(2) + 1).sum()))
    """)
    assert p.returncode == 0, p.stderr
    assert "refused: import jax: pyjax and the real jax cannot share a process" in p.stdout
    assert p.stdout.strip().endswith("4.0")


def test_importing_pyjax_after_jax_is_refused(tmp_path):
    p = _run(tmp_path, """
        import jax
        import pyjax
    """)
    assert p.returncode != 0
    assert "ImportError: jax is already imported: pyjax and the real jax cannot share" in p.stderr


def test_an_alias_of_jax_to_pyjax_still_imports(tmp_path):
    p = _run(tmp_path, """
        import sys, pyjax
        sys.modules["jax"] = pyjax       # what an import switch to pyjax does
        import jax
        print(jax is pyjax)
    """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "True"


def test_another_jaxlib_release_is_refused(monkeypatch):
    monkeypatch.setattr(xla.jaxlib, "__version__", "0.9.0")
    with pytest.raises(ImportError, match=r"pyjax needs jaxlib==0\.10\.2 exactly"):
        guard.check_jaxlib(xla.jaxlib, xla._jax)


def test_missing_jaxlib_entry_points_are_named(monkeypatch):
    monkeypatch.delattr(xla._jax, "batched_device_put")
    with pytest.raises(ImportError, match="lacks the entry points pyjax uses: batched_device_put"):
        guard.check_jaxlib(xla.jaxlib, xla._jax)
