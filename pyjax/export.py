"""`jax.export`: export jitted functions (with symbolic shapes) to a serializable form that can
be called again, here or in another process. See `pyjax._src.export`."""
from pyjax._src.export._export import DisabledSafetyCheck as DisabledSafetyCheck
from pyjax._src.export._export import Exported as Exported
from pyjax._src.export._export import default_export_platform as default_export_platform
from pyjax._src.export._export import deserialize as deserialize
from pyjax._src.export._export import export as export
from pyjax._src.export._export import (
    maximum_supported_calling_convention_version as maximum_supported_calling_convention_version)
from pyjax._src.export._export import (
    minimum_supported_calling_convention_version as minimum_supported_calling_convention_version)
from pyjax._src.export.serialization import (
    register_namedtuple_serialization as register_namedtuple_serialization)
from pyjax._src.export.serialization import (
    register_pytree_node_serialization as register_pytree_node_serialization)
from pyjax._src.export.shape_poly import SymbolicScope as SymbolicScope
from pyjax._src.export.shape_poly import is_symbolic_dim as is_symbolic_dim
from pyjax._src.export.shape_poly import symbolic_args_specs as symbolic_args_specs
from pyjax._src.export.shape_poly import symbolic_shape as symbolic_shape
