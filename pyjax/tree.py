"""Public `jax.tree`: the short names of the pytree utilities (`jax.tree.map` is `tree_map`)."""

from pyjax._src.tree_util import static as static
from pyjax._src.tree_api import tree_all as all
from pyjax._src.tree_api import tree_broadcast as broadcast
from pyjax._src.tree_api import tree_flatten as flatten
from pyjax._src.tree_api import tree_flatten_with_path as flatten_with_path
from pyjax._src.tree_api import tree_leaves as leaves
from pyjax._src.tree_api import tree_leaves_with_path as leaves_with_path
from pyjax._src.tree_api import tree_map as map
from pyjax._src.tree_api import tree_map_with_path as map_with_path
from pyjax._src.tree_api import tree_reduce as reduce
from pyjax._src.tree_api import tree_reduce_associative as reduce_associative
from pyjax._src.tree_api import tree_structure as structure
from pyjax._src.tree_util import tree_transpose as transpose
from pyjax._src.tree_util import tree_unflatten as unflatten
