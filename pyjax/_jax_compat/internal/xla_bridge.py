"""`jax._src.xla_bridge`: the runtime clients and device queries (chex's `set_n_cpu_devices`
reads `_backends` to see whether the CPU client exists yet)."""
from pyjax._src.api import default_backend as default_backend
from pyjax._src.api import device_count as device_count
from pyjax._src.api import devices as devices
from pyjax._src.api import local_device_count as local_device_count
from pyjax._src.api import local_devices as local_devices
from pyjax._src.api import process_count as process_count
from pyjax._src.api import process_index as process_index
from pyjax._src.backend import xla as _xla
from pyjax._src.backend.xla import backends_are_initialized as backends_are_initialized
from pyjax._src.backend.xla import get_client as get_backend


def backends() -> dict:
    """Every platform's client, created on first use (as JAX: "cpu", plus "cuda" when its
    plugin is installed)."""
    get_backend()
    return dict(_xla._clients)


def canonicalize_platform(platform: str) -> str:
    """JAX's platform name for an alias ("gpu" stays "gpu"; "host" is "cpu")."""
    return "cpu" if platform.lower() == "host" else platform.lower()


def __getattr__(name):
    # `_backends` is a live view: {} until a client exists, then platform -> client (JAX's
    # dict is filled by backend initialization, so a module constant would go stale).
    if name == "_backends":
        return dict(_xla._clients)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
