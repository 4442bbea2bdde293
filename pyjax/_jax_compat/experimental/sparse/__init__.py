"""Shims for submodules of `jax.experimental.sparse` that pyjax's package lacks."""
