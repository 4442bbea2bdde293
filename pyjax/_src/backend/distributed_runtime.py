"""Several processes (pyjax.distributed): XLA's distributed runtime. Process 0 runs the
coordination service; every process runs a client that connects to it, and the CPU client made
afterwards exchanges its devices with the other processes through it (global device ids) and
runs cross-process collectives with gloo over TCP.

backend/xla.py (the one module that imports jaxlib) hands this module jaxlib's `_jax` as
`jax_module` and re-exports these names."""

jax_module = None  # jaxlib._jax, set by backend/xla.py


class DistributedState:
    """What pyjax.distributed.initialize set up (one per process)."""

    process_id = 0
    num_processes = 1
    service = None  # the coordination service (process 0 only)
    client = None  # this process's connection to it
    preemption_sync_manager = None
    coordinator_address = None


distributed = DistributedState()


def start_distributed_service(bind_address, num_processes, *, heartbeat_timeout,
                              shutdown_timeout):
    """The coordination service, listening on `bind_address` ("[::]:port")."""
    return jax_module.get_distributed_runtime_service(
        bind_address, num_processes, heartbeat_timeout=int(heartbeat_timeout),
        shutdown_timeout=int(shutdown_timeout))


def connect_distributed_client(address, process_id, *, init_timeout, heartbeat_timeout,
                               shutdown_timeout, missed_heartbeat_callback=None):
    """A client of the coordination service at `address`, connected (blocks until every
    process has connected, or raises after `init_timeout` seconds)."""
    kwargs = {} if missed_heartbeat_callback is None else {
        "missed_heartbeat_callback": missed_heartbeat_callback}
    client = jax_module.get_distributed_runtime_client(
        address, process_id, init_timeout=int(init_timeout),
        heartbeat_timeout=int(heartbeat_timeout), shutdown_timeout=int(shutdown_timeout),
        use_compression=True, **kwargs)
    client.connect()
    return client


def start_preemption_sync_manager(client):
    """XLA's preemption sync manager on `client` (multihost_utils.reached_preemption_sync_point)."""
    manager = jax_module.create_preemption_sync_manager()
    manager.initialize(client)
    return manager


def shutdown_distributed():
    """Disconnect from the coordination service (a barrier with the other processes, bounded
    by the shutdown timeout) and stop it on process 0; nothing when not running."""
    dist = distributed
    client, service, manager = dist.client, dist.service, dist.preemption_sync_manager
    dist.client = dist.service = dist.preemption_sync_manager = None
    try:
        if manager is not None:
            manager.shutdown()
        if client is not None:
            client.shutdown()
    finally:
        if service is not None:
            service.shutdown()
