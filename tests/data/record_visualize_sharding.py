"""Record JAX 0.10.2's `jax.debug.visualize_sharding` pictures (rich, no colour) for several
meshes, specs and shapes, into visualize_sharding.json. Run with the reference venv (jax +
rich) from the repository root:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /root/scratch/jaxref/bin/python \
        tests/data/record_visualize_sharding.py
"""
import contextlib
import io
import json
import pathlib

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

# (mesh shape, axis names, device order or None, spec entries, array shape, kwargs)
CASES = [
    ((8,), ("x",), None, ["x"], [16], {}),
    ((8,), ("x",), None, [], [16], {}),
    ((8,), ("x",), None, ["x", None], [8, 4], {}),
    ((8,), ("x",), None, [None, "x"], [4, 16], {}),
    ((4, 2), ("a", "b"), None, ["a", "b"], [8, 8], {}),
    ((4, 2), ("a", "b"), None, ["b", "a"], [8, 8], {}),
    ((4, 2), ("a", "b"), None, ["a", None], [8, 8], {}),
    ((4, 2), ("a", "b"), None, [None, "b"], [8, 8], {}),
    ((4, 2), ("a", "b"), None, [("a", "b"), None], [16, 4], {}),
    ((4, 2), ("a", "b"), None, [None, ("b", "a")], [4, 32], {}),
    ((2, 2, 2), ("a", "b", "c"), None, ["a", "c"], [8, 8], {}),
    ((2, 4), ("a", "b"), [7, 6, 5, 4, 3, 2, 1, 0], ["a", "b"], [4, 8], {}),
    ((2, 4), ("a", "b"), None, ["a", "b"], [32, 8], {"scale": 0.5}),
    ((2, 4), ("a", "b"), None, ["b", None], [8, 200], {"max_width": 60}),
    ((4, 2), ("a", "b"), None, ["a"], [8, 2], {"min_width": 14}),
]


def picture(sharding, shape, kwargs):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        jax.debug.visualize_sharding(shape, sharding, use_color=False, **kwargs)
    return buf.getvalue()


def main():
    devices = np.array(jax.devices())
    out = []
    for mesh_shape, names, order, spec, shape, kwargs in CASES:
        devs = devices if order is None else devices[order]
        mesh = Mesh(devs.reshape(mesh_shape), names)
        sharding = NamedSharding(mesh, P(*spec))
        entry = {"mesh_shape": mesh_shape, "axis_names": names, "device_order": order,
                 "spec": spec, "shape": shape, "kwargs": kwargs,
                 "text": picture(sharding, tuple(shape), kwargs)}
        x = jax.device_put(np.zeros(shape, np.float32), sharding)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            jax.debug.visualize_array_sharding(x, use_color=False, **kwargs)
        assert buf.getvalue() == entry["text"]
        out.append(entry)
    errors = {}
    mesh = Mesh(devices.reshape(8), ("x",))
    for name, shape in (("rank0", ()), ("rank3", (8, 2, 2))):
        try:
            picture(NamedSharding(mesh, P()), shape, {})
        except Exception as e:  # noqa: BLE001
            errors[name] = [type(e).__name__, str(e)]
    path = pathlib.Path(__file__).with_name("visualize_sharding.json")
    path.write_text(json.dumps({"cases": out, "errors": errors}, indent=1) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()
