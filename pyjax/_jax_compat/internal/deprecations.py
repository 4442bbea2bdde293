"""`jax._src.deprecations`: JAX's registry of deprecations. pyjax accelerates none: `warn`
issues a DeprecationWarning, `is_accelerated` is False unless `accelerate` was called."""
from __future__ import annotations

import warnings

_registered: set = set()
_accelerated: set = set()


def register(deprecation_id: str) -> None:
    _registered.add(deprecation_id)


def accelerate(deprecation_id: str) -> None:
    _accelerated.add(deprecation_id)


def unaccelerate(deprecation_id: str) -> None:
    _accelerated.discard(deprecation_id)


def is_accelerated(deprecation_id: str) -> bool:
    return deprecation_id in _accelerated


def warn(deprecation_id: str, message: str, stacklevel: int) -> None:
    if is_accelerated(deprecation_id):
        raise ValueError(message)
    warnings.warn(message, DeprecationWarning, stacklevel=stacklevel + 1)
