"""Shims for modules of JAX's `jax._src.interpreters` package that pyjax's lacks."""
