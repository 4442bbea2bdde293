"""pyjax.experimental.sparse.api: format-generic constructors and todense (re-exports only)."""
from pyjax._src.sparse.api import empty as empty, eye as eye
from pyjax._src.sparse.transform import todense as todense, todense_p as todense_p
