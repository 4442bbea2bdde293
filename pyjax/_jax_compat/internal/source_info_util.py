"""`jax._src.source_info_util`: where an operation came from, as `jax.extend.source_info_util`
(pyjax's own is `pyjax._src.source_info`); other names import and raise when used."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.extend.source_info_util import NameStack as NameStack
from pyjax._jax_compat.extend.source_info_util import SourceInfo as SourceInfo
from pyjax._jax_compat.extend.source_info_util import current as current
from pyjax._jax_compat.extend.source_info_util import current_name_stack as current_name_stack
from pyjax._jax_compat.extend.source_info_util import extend_name_stack as extend_name_stack
from pyjax._jax_compat.extend.source_info_util import new_name_stack as new_name_stack
from pyjax._jax_compat.extend.source_info_util import new_source_info as new_source_info
from pyjax._jax_compat.extend.source_info_util import register_exclusion as register_exclusion
from pyjax._jax_compat.extend.source_info_util import reset_name_stack as reset_name_stack
from pyjax._jax_compat.extend.source_info_util import set_name_stack as set_name_stack
from pyjax._jax_compat.extend.source_info_util import summarize as summarize
from pyjax._jax_compat.extend.source_info_util import transform_name_stack as transform_name_stack
from pyjax._jax_compat.extend.source_info_util import user_context as user_context

__getattr__ = module_getattr("jax._src.source_info_util")
