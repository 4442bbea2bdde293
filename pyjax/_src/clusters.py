"""Cluster environments that `pyjax.distributed.initialize()` recognizes when it is called
without arguments: a launcher (Slurm's `srun`, Open MPI's `mpirun`, or mpi4py on request)
already knows how many processes there are, which one this is and where process 0 runs, and
says so in environment variables. Each environment is a `ClusterEnv` subclass; defining one
registers it (as in JAX, so a site can add its own).

Detection order and rules follow JAX 0.10.2: the first environment present among the
registered, non-opt-in ones answers the arguments the caller left unset; an opt-in one (mpi4py)
answers only when named by `cluster_detection_method`. The coordinator's port is derived from
the job's id (the same on every process of the job) in the ephemeral range 61440-65535, unless
$JAX_COORDINATOR_PORT gives it.

NB: JAX also detects Kubernetes (through the `kubernetes` package's API) and Cloud TPU VMs
(through TPU metadata servers); pyjax detects neither.
"""
from __future__ import annotations

import logging
import os
import re
import socket
from collections.abc import Sequence
from importlib.util import find_spec

logger = logging.getLogger("pyjax")

_PORT_BASE, _PORT_SPAN = 65536 - 2**12, 2**12  # ports 61440 .. 65535


class ClusterEnv:
    """One kind of cluster. Subclasses define `name` and the class methods below; defining a
    subclass registers it."""

    name: str = ""
    opt_in_only_method: bool = False  # detected only when named by cluster_detection_method
    _cluster_types: list = []

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        ClusterEnv._cluster_types.append(cls)

    @classmethod
    def auto_detect_unset_distributed_params(cls, coordinator_address: str | None,
                                             num_processes: int | None,
                                             process_id: int | None,
                                             local_device_ids: Sequence[int] | None,
                                             cluster_detection_method: str | None,
                                             initialization_timeout: int | None):
        """`(coordinator_address, num_processes, process_id, local_device_ids)` with the unset
        ones filled in from the environment found (unchanged when none is)."""
        if cluster_detection_method is not None:
            env = next((e for e in cls._cluster_types if e.name == cluster_detection_method), None)
            if env is None:
                logger.error("Automatic distributed initialization can not proceed: %s is not "
                             "supported.", cluster_detection_method)
            elif not env.is_env_present():
                logger.error("Automatic distributed initialization can not proceed: %s is "
                             "supported but not functional in this environment.",
                             cluster_detection_method)
                env = None
        else:
            env = next((e for e in cls._cluster_types
                        if not e.opt_in_only_method and e.is_env_present()), None)
        if env is None:
            logger.debug("No known cluster environment found (known: %s)",
                         ", ".join(e.__name__ for e in cls._cluster_types))
            return coordinator_address, num_processes, process_id, local_device_ids
        logger.debug("pyjax: initializing the distributed runtime from %s", env.__name__)
        if coordinator_address is None:
            coordinator_address = env.get_coordinator_address(
                timeout_secs=initialization_timeout,
                override_coordinator_port=os.environ.get("JAX_COORDINATOR_PORT"))
        if num_processes is None:
            num_processes = env.get_process_count()
        if process_id is None:
            process_id = env.get_process_id()
        if local_device_ids is None and (local := env.get_local_process_id()) is not None:
            local_device_ids = [local]  # one device per process, as launchers usually mean
        return coordinator_address, num_processes, process_id, local_device_ids

    @classmethod
    def is_env_present(cls) -> bool:
        raise NotImplementedError("ClusterEnv subclasses must implement is_env_present")

    @classmethod
    def get_coordinator_address(cls, timeout_secs: int | None,
                                override_coordinator_port: str | None) -> str:
        """'host:port' of process 0, the same on every process of the job."""
        raise NotImplementedError("ClusterEnv subclasses must implement get_coordinator_address")

    @classmethod
    def get_process_count(cls) -> int:
        raise NotImplementedError("ClusterEnv subclasses must implement get_process_count")

    @classmethod
    def get_process_id(cls) -> int:
        raise NotImplementedError("ClusterEnv subclasses must implement get_process_id")

    @classmethod
    def get_local_process_id(cls) -> int | None:
        """This process's index among those on its host (None: do not restrict the devices)."""
        return None


def _job_port(job_id: int) -> str:
    return str(job_id % _PORT_SPAN + _PORT_BASE)


class OmpiCluster(ClusterEnv):
    """Open MPI's `mpirun`: its launcher's URI names the job and the launcher's address."""

    name = "ompi"
    _URI = "OMPI_MCA_orte_hnp_uri"  # e.g. "1531576320.0;tcp://10.96.0.1,10.148.0.1:34911"

    @classmethod
    def is_env_present(cls) -> bool:
        return cls._URI in os.environ

    @classmethod
    def get_coordinator_address(cls, timeout_secs, override_coordinator_port) -> str:
        uri = os.environ[cls._URI]
        # Open MPI's job ids are multiples of 2**12: divide first so that jobs get other ports
        port = override_coordinator_port or _job_port(int(uri.split(".", 1)[0]) // _PORT_SPAN)
        m = re.search(r"tcp://(.+?)[,:]|tcp6://\[(.+?)[,\]]", uri)
        if m is None:
            raise RuntimeError("Could not parse coordinator IP address from Open MPI environment.")
        return f"{m.group(1) or m.group(2)}:{port}"

    @classmethod
    def get_process_count(cls) -> int:
        return int(os.environ["OMPI_COMM_WORLD_SIZE"])

    @classmethod
    def get_process_id(cls) -> int:
        return int(os.environ["OMPI_COMM_WORLD_RANK"])

    @classmethod
    def get_local_process_id(cls) -> int | None:
        return int(os.environ["OMPI_COMM_WORLD_LOCAL_RANK"])


class SlurmCluster(ClusterEnv):
    """Slurm's `srun`: process 0 runs on the first node of the step's node list."""

    name = "slurm"
    _VARS = ("SLURM_JOB_ID", "SLURM_STEP_NODELIST", "SLURM_NTASKS", "SLURM_PROCID",
             "SLURM_LOCALID")

    @classmethod
    def is_env_present(cls) -> bool:
        return all(v in os.environ for v in cls._VARS)

    @classmethod
    def get_coordinator_address(cls, timeout_secs, override_coordinator_port) -> str:
        port = override_coordinator_port or _job_port(int(os.environ["SLURM_JOB_ID"]))
        return f"{first_slurm_host(os.environ['SLURM_STEP_NODELIST'])}:{port}"

    @classmethod
    def get_process_count(cls) -> int:
        return int(os.environ["SLURM_NTASKS"])

    @classmethod
    def get_process_id(cls) -> int:
        return int(os.environ["SLURM_PROCID"])

    @classmethod
    def get_local_process_id(cls) -> int | None:
        return int(os.environ["SLURM_LOCALID"])


def first_slurm_host(node_list: str) -> str:
    """The first host of a Slurm node list: 'node001', 'node001,host2', 'node[001-015],host2'
    and 'node[001,007-015],host2' all give 'node001'."""
    m = re.match(r"([^,\[]*)(?:\[([^,\-\]]*))?", node_list)
    return m.group(1) + (m.group(2) or "")


class Mpi4pyCluster(ClusterEnv):
    """Any MPI launcher, through mpi4py (opt-in: `cluster_detection_method="mpi4py"`): rank 0
    broadcasts its host name; the local rank comes from a communicator split by shared memory."""

    name = "mpi4py"
    opt_in_only_method = True

    @classmethod
    def is_env_present(cls) -> bool:
        return find_spec("mpi4py") is not None

    @staticmethod
    def _world():
        from mpi4py import MPI  # an optional package, imported only when asked for
        return MPI, MPI.COMM_WORLD

    @classmethod
    def get_coordinator_address(cls, timeout_secs, override_coordinator_port) -> str:
        _, world = cls._world()
        address = None
        if world.Get_rank() == 0:
            host = socket.gethostname()
            port = override_coordinator_port or _job_port(sum(map(ord, host)))
            address = f"{host}:{port}"
        return world.bcast(address, root=0)

    @classmethod
    def get_process_count(cls) -> int:
        return int(cls._world()[1].Get_size())

    @classmethod
    def get_process_id(cls) -> int:
        return int(cls._world()[1].Get_rank())

    @classmethod
    def get_local_process_id(cls) -> int | None:
        mpi, world = cls._world()
        local = world.Split_type(mpi.COMM_TYPE_SHARED)
        try:
            return int(local.Get_rank())
        finally:
            local.Free()
