"""The switch (issue 13, part 1): `pyjax.as_jax()` and `python -m pyjax run` make `import jax`
resolve to pyjax's own module objects, keep the program's argv, exit code and traceback, and
refuse to mix with a real jax already imported. Each case runs in a fresh interpreter."""
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import sys
    import jax, jax.numpy as jnp
    from jax import lax, random
    import jax.tree_util as tu
    import pyjax
    assert jax is pyjax and jnp is pyjax.numpy and lax is pyjax.lax and random is pyjax.random
    assert tu is pyjax.tree_util and sys.modules["jax.numpy"] is pyjax.numpy
    assert jnp.__spec__.name == "pyjax.numpy"   # pyjax's modules keep their own identity
    print("argv", sys.argv[1:], jax.__version__, int(jnp.sum(jnp.arange(4))))
    try:
        import jax.no_such_module
    except ModuleNotFoundError as e:
        print("missing:", e.name)
    if "--fail" in sys.argv:
        raise ValueError("raised by the user's program")
    sys.exit(int(sys.argv[-1]) if sys.argv[-1].isdigit() else 0)
""")


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


def test_launcher_runs_a_script_with_its_argv_and_exit_code(program):
    proc = _run("-m", "pyjax", "run", str(program), "--lr", "3e-4", "7")
    assert proc.returncode == 7, proc.stderr
    assert "argv ['--lr', '3e-4', '7'] 0.10.2 6" in proc.stdout
    assert "missing: jax.no_such_module" in proc.stdout


def test_launcher_runs_a_module_and_keeps_the_users_traceback(program):
    proc = _run("-m", "pyjax", "run", "-m", "prog", "--fail", cwd=program.parent)
    assert proc.returncode == 1
    assert "ValueError: raised by the user's program" in proc.stderr
    assert f'File "{program}", line' in proc.stderr


def test_bfloat16_arrays_convert_to_numpy_under_the_switch(tmp_path):
    """Issue 23: with `jax` standing for pyjax, jaxlib's C++ converts a bfloat16 array to NumPy
    through jax's make_single_device_sharding(device, memory_kind=...); it raised a TypeError, so
    every bfloat16 comparison in JAX's test files failed."""
    path = tmp_path / "bf16.py"
    path.write_text("import numpy as np\nimport jax.numpy as jnp\n"
                    "print(np.asarray(jnp.arange(3, dtype=jnp.bfloat16)).tolist())\n")
    proc = _run("-m", "pyjax", "run", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[0.0, 1.0, 2.0]"


def test_launcher_usage():
    proc = _run("-m", "pyjax")
    assert proc.returncode == 2 and "usage" in proc.stdout
    assert _run("-m", "pyjax", "frobnicate").returncode == 2


def test_as_jax_in_process(program):
    proc = _run("-c", "import pyjax; pyjax.as_jax(); pyjax.as_jax(); exec(open(%r).read())" % str(program))
    assert proc.returncode == 0, proc.stderr
    assert "argv [] 0.10.2 6" in proc.stdout


def test_as_jax_refuses_a_real_jax_already_imported():
    # (importing pyjax after the real jax is refused by the import guard; here jax comes second)
    code = ("import sys, types, pyjax; sys.modules['jax'] = types.ModuleType('jax')\n"
            "try:\n    pyjax.as_jax()\nexcept ImportError as e:\n    print(type(e).__name__, e)")
    proc = _run("-c", code)
    assert "JaxAliasError" in proc.stdout and "already imported" in proc.stdout, proc.stdout + proc.stderr
