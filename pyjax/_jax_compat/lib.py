"""`jax.lib`: what JAX keeps public of its runtime library, the jaxlib version (equinox's tests
read `jax.lib.__version__`)."""
from pyjax._src.backend.guard import JAXLIB_VERSION as __version__  # noqa: F401
