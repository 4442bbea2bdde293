"""Shims for modules of JAX's `jax._src.lax` package that pyjax's lax lacks."""
