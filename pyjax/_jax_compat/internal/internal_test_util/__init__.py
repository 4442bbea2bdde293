"""Shims for JAX's `jax._src.internal_test_util` package."""
