"""pyjax.experimental.shard_alike: lay two values out alike (re-exports only; code in
pyjax._src.shard_alike)."""
from pyjax._src.shard_alike import shard_alike as shard_alike
