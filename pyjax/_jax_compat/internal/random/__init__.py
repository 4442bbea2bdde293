"""Shims for submodules of JAX's `jax._src.random` package that pyjax's lacks."""
