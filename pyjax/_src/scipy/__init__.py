"""The implementations behind `pyjax.scipy` (one module per SciPy submodule)."""
