"""`jax._src.hypothesis_test_util`: the Hypothesis profiles JAX's property tests run under
("deterministic": derandomized, no deadline, no example database; "interactive": one verbose
example), selected by $JAX_HYPOTHESIS_PROFILE. Needs the hypothesis package (pyjax's test
extra has it)."""
from __future__ import annotations

import os

import hypothesis as hp

from pyjax._jax_compat._unsupported import module_getattr


def hypothesis_is_thread_safe() -> bool:
    """Hypothesis is thread-safe from 6.136.9 on."""
    return tuple(int(x) for x in hp.__version__.split(".")[:3]) >= (6, 136, 9)


def setup_hypothesis(max_examples=30) -> None:
    """Register both profiles and load the one $JAX_HYPOTHESIS_PROFILE names."""
    suppressed = [hp.HealthCheck.differing_executors] if hasattr(
        hp.HealthCheck, "differing_executors") else []
    hp.settings.register_profile("deterministic", database=None, derandomize=True, deadline=None,
                                 max_examples=max_examples, print_blob=True,
                                 suppress_health_check=suppressed)
    hp.settings.register_profile(
        "interactive", parent=hp.settings.load_profile("deterministic"), max_examples=1,
        report_multiple_bugs=False, verbosity=hp.Verbosity.verbose,
        phases=(hp.Phase.explicit, hp.Phase.reuse, hp.Phase.generate, hp.Phase.target,
                hp.Phase.explain))
    hp.settings.load_profile(os.getenv("JAX_HYPOTHESIS_PROFILE", "deterministic"))


__getattr__ = module_getattr("jax._src.hypothesis_test_util")
