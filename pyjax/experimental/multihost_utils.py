"""pyjax.experimental.multihost_utils: gathering, broadcasting and barriers across the
processes of a `pyjax.distributed` program, and host-local <-> global arrays (re-exports only;
code in pyjax._src.multihost_utils)."""
from pyjax._src.multihost_utils import (
    ProcessFailureError as ProcessFailureError,
    assert_equal as assert_equal,
    broadcast_one_to_all as broadcast_one_to_all,
    global_array_to_host_local_array as global_array_to_host_local_array,
    host_local_array_to_global_array as host_local_array_to_global_array,
    process_allgather as process_allgather,
    reached_preemption_sync_point as reached_preemption_sync_point,
    sync_global_devices as sync_global_devices,
)
