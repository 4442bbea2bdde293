"""Several processes, one program: `initialize` connects this process to XLA's distributed
runtime (a coordination service that process 0 runs, reached by every process over gRPC), so
that the CPU client created afterwards sees every process's devices (`pyjax.devices()` is
global, `pyjax.local_devices()` this process's) and runs cross-process collectives with gloo
over TCP. A `jit` over a mesh spanning processes then runs as one SPMD program, each process
feeding and reading its own devices' shards.

XLA does all of the work; this module only validates arguments, applies JAX's environment
fallbacks and keeps the state (`pyjax._src.backend.xla.distributed`).
"""
from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from pyjax._src import clusters
from pyjax._src.backend import xla
from pyjax._src.config import config

logger = logging.getLogger("pyjax")


def initialize(coordinator_address: str | None = None,
               num_processes: int | None = None,
               process_id: int | None = None,
               local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None,
               initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100,
               shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None,
               slice_index: int | None = None,
               partition_index: int | None = None):
    """Join this process to a multi-process program; call it before anything touches devices.

    Process 0 starts the coordination service on `coordinator_address`'s port; every process
    connects to it and waits (up to `initialization_timeout` seconds) for all `num_processes`.
    A process that stops sending heartbeats for `heartbeat_timeout_seconds` is declared dead
    and the others get an error instead of waiting for it forever.

    >>> pyjax.distributed.initialize("localhost:1234", num_processes=2, process_id=0)  # doctest: +SKIP
    >>> pyjax.process_count(), pyjax.devices()                                         # doctest: +SKIP

    Environment fallbacks (as JAX): $JAX_COORDINATOR_ADDRESS, $JAX_LOCAL_DEVICE_IDS,
    $JAX_COORDINATOR_BIND_ADDRESS, $JAX_PARTITION_INDEX.

    Arguments left unset come from the cluster environment the process runs in, when one is
    found (pyjax._src.clusters: Slurm, Open MPI; mpi4py with `cluster_detection_method=
    "mpi4py"`; "deactivate" turns detection off), as in JAX. NB: JAX also detects Kubernetes
    and Cloud TPU VMs; pyjax does not.
    """
    if xla.backends_are_initialized():
        raise RuntimeError("pyjax.distributed.initialize() must be called before any pyjax "
                           "calls that might initialise the XLA backend. This includes any "
                           "computation, but also calls to pyjax.devices, pyjax.device_put, "
                           "and others.")
    if partition_index is None:
        partition_index = slice_index
    state = xla.distributed
    coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
    if isinstance(local_device_ids, int):
        local_device_ids = [local_device_ids]
    if local_device_ids is None and (env_ids := os.environ.get("JAX_LOCAL_DEVICE_IDS")):
        local_device_ids = [int(i) for i in env_ids.split(",")]
    if (cluster_detection_method != "deactivate" and
            None in (coordinator_address, num_processes, process_id, local_device_ids)):
        coordinator_address, num_processes, process_id, local_device_ids = \
            clusters.ClusterEnv.auto_detect_unset_distributed_params(
                coordinator_address, num_processes, process_id, local_device_ids,
                cluster_detection_method, initialization_timeout)
    if coordinator_address is None:
        raise ValueError("coordinator_address should be defined.")
    if num_processes is None:
        raise ValueError("Number of processes must be defined.")
    if process_id is None:
        raise ValueError("The process id of the current process must be defined.")
    if not isinstance(process_id, int) or isinstance(process_id, bool):
        raise TypeError(f"process_id must be a nonnegative int. Got process_id={process_id} "
                        f"of type {type(process_id)}.")
    if not isinstance(num_processes, int) or isinstance(num_processes, bool):
        raise TypeError(f"num_processes must be a positive int. Got num_processes="
                        f"{num_processes} of type {type(num_processes)}.")
    if not 0 <= process_id < num_processes:
        raise ValueError(f"process_id and num_processes must be nonnegative, with process_id < "
                         f"num_processes. Got process_id={process_id}, "
                         f"num_processes={num_processes}.")
    if state.client is not None or state.service is not None:
        raise RuntimeError("distributed.initialize should only be called once.")

    port = coordinator_address.rsplit(":", 1)[-1]
    bind_address = (coordinator_bind_address or os.environ.get("JAX_COORDINATOR_BIND_ADDRESS")
                    or f"[::]:{port}")
    if local_device_ids:
        visible = ",".join(str(i) for i in local_device_ids)
        config.update("jax_cuda_visible_devices", visible)
    if process_id == 0:
        logger.info("pyjax: starting the distributed service on %s", bind_address)
        state.service = xla.start_distributed_service(
            bind_address, num_processes, heartbeat_timeout=heartbeat_timeout_seconds,
            shutdown_timeout=shutdown_timeout_seconds)
    try:
        logger.info("pyjax: connecting to the distributed service on %s", coordinator_address)
        state.client = xla.connect_distributed_client(
            coordinator_address, process_id, init_timeout=initialization_timeout,
            heartbeat_timeout=heartbeat_timeout_seconds,
            shutdown_timeout=shutdown_timeout_seconds)
    except BaseException:
        if state.service is not None:
            state.service.shutdown()
            state.service = None
        raise
    if config.read("jax_enable_preemption_service"):
        state.preemption_sync_manager = xla.start_preemption_sync_manager(state.client)
    state.process_id, state.num_processes = process_id, num_processes
    state.coordinator_address = coordinator_address
    if partition_index is None and os.environ.get("JAX_PARTITION_INDEX") is not None:
        partition_index = int(os.environ["JAX_PARTITION_INDEX"])
    state.partition_index = partition_index


def is_initialized() -> bool:
    """Whether `initialize` has connected this process (and `shutdown` not yet run)."""
    return xla.distributed.client is not None


def shutdown():
    """Leave the multi-process program: a barrier with the other processes (bounded by
    `shutdown_timeout_seconds`), then the service stops on process 0. Does nothing when not
    initialized.

    NB: JAX's clients stay usable afterwards until the process exits; so do pyjax's, but
    cross-process collectives can no longer run.
    """
    xla.shutdown_distributed()
    state = xla.distributed
    state.process_id, state.num_processes = 0, 1
    state.coordinator_address = None
