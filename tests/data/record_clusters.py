"""Record the coordinator addresses JAX 0.10.2 derives from Slurm and Open MPI environments
(tests/test_distributed.py checks pyjax's against them).

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    /path/to/jaxref/bin/python tests/data/record_clusters.py
writes tests/data/jax_clusters.json: {"slurm": {node list: address}, "ompi": {uri: address},
"slurm_override": address with $JAX_COORDINATOR_PORT's port, "order": detection order}.
"""
import json
import os
import pathlib

from jax._src import clusters

HERE = pathlib.Path(__file__).resolve().parent
NODE_LISTS = ["node001", "node001,host2", "node[001-0015],host2", "node[001,007-015],host2",
              "gpu-a[07-09]", "h1"]
URIS = ["1531576320.0;tcp://10.96.0.1,10.148.0.1,10.108.0.1:34911",
        "1314521088.0;tcp6://[fe80::b9b:ac5d:9cf0:b858,2620:10d:c083:150e::3000:2]:43370",
        "4096.0;tcp://127.0.0.1:5000"]

out = {"slurm": {}, "ompi": {}}
os.environ["SLURM_JOB_ID"] = "123456"
for nodes in NODE_LISTS:
    os.environ["SLURM_STEP_NODELIST"] = nodes
    out["slurm"][nodes] = clusters.SlurmCluster.get_coordinator_address(None, None)
out["slurm_override"] = clusters.SlurmCluster.get_coordinator_address(None, "1234")
for uri in URIS:
    os.environ["OMPI_MCA_orte_hnp_uri"] = uri
    out["ompi"][uri] = clusters.OmpiCluster.get_coordinator_address(None, None)
out["order"] = [c.name for c in clusters.ClusterEnv._cluster_types]
(HERE / "jax_clusters.json").write_text(json.dumps(out, indent=1) + "\n")
