"""pyjax.debug.visualize_sharding / visualize_array_sharding draw the same pictures as JAX
0.10.2 (recorded with rich by data/record_visualize_sharding.py: 15 layouts over 1-d, 2-d and
3-d meshes, a permuted device order, and the scale/min_width/max_width options); without rich,
pyjax's own grid is the same picture whenever it fits the width. inspect_array_sharding hands
the callback the array's sharding: eagerly, and inside jit the layout XLA's partitioner chose
(20 intermediate values over 2 meshes, recorded from JAX by data/record_inspect_sharding.py)."""
import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import pyjax
from pyjax._src import sharding_viz
from pyjax.sharding import Mesh, NamedSharding, PartitionSpec as P

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "visualize_sharding.json").read_text())
CASES = DATA["cases"]
ROOT = pathlib.Path(__file__).parent.parent


class FakeDevice:
    """Enough of a device for a Mesh and its NamedShardings' block maps (no XLA involved)."""

    platform = "cpu"
    process_index = 0

    def __init__(self, i):
        self.id = i

    def __repr__(self):
        return f"FakeDevice({self.id})"


def _spec(entries):
    return P(*[tuple(e) if isinstance(e, list) else e for e in entries])


def _sharding(case, devices):
    devices = np.array(devices, dtype=object)
    if case["device_order"] is not None:
        devices = devices[case["device_order"]]
    return NamedSharding(Mesh(devices.reshape(case["mesh_shape"]), case["axis_names"]),
                         _spec(case["spec"]))


def _picture(fn, *args, **kwargs):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*args, **kwargs)
    return buf.getvalue()


def _fits(case):
    """Whether rich drew the grid at its natural size (it squeezes grids wider than max_width,
    wrapping or dropping the labels: cases 3 and 9)."""
    return "CPU" in case["text"] and "│CPU│" not in case["text"].replace(" ", "")


@pytest.mark.libraries  # rich: in the library group (tests/libraries/requirements.txt)
@pytest.mark.parametrize("i", range(len(CASES)))
def test_picture_matches_jax(i):
    pytest.importorskip("rich")  # JAX draws with rich; without it pyjax's own grid (below)
    case = CASES[i]
    sharding = _sharding(case, [FakeDevice(k) for k in range(8)])
    text = _picture(pyjax.debug.visualize_sharding, case["shape"], sharding, use_color=False,
                    **case["kwargs"])
    assert text == case["text"]


@pytest.mark.parametrize("i", [i for i, c in enumerate(CASES) if _fits(c)])
def test_plain_picture_without_rich_matches_jax(i, monkeypatch):
    monkeypatch.setattr(sharding_viz, "_have_rich", lambda: False)
    case = CASES[i]
    sharding = _sharding(case, [FakeDevice(k) for k in range(8)])
    text = _picture(pyjax.debug.visualize_sharding, case["shape"], sharding, **case["kwargs"])
    assert text == case["text"]


def test_plain_picture_draws_blocks_sized_like_the_data(monkeypatch):
    monkeypatch.setattr(sharding_viz, "_have_rich", lambda: False)
    mesh = Mesh(np.array([FakeDevice(k) for k in range(4)], dtype=object), ("x",))
    text = _picture(pyjax.debug.visualize_sharding, (8, 8), NamedSharding(mesh, P(None, "x")))
    lines = text.splitlines()
    assert lines[0].count("┬") == 3 and lines[-1].count("┴") == 3
    # 4 columns of min_width 9 (two border characters included), 10 rows high (9 + a rule)
    assert lines[0][1:-1].split("┬") == ["─" * 7] * 4
    assert len(lines) == 1 + 9 + 1
    assert sum("CPU 2" in ln for ln in lines) == 1 and lines[5] == "│" + "│".join(
        f" CPU {k} " for k in range(4)) + "│"


@pytest.mark.parametrize("shape", [(), (8, 2, 2)])
def test_only_rank_1_and_2_are_drawn(shape):
    cls, msg = DATA["errors"]["rank0" if shape == () else "rank3"]
    mesh = Mesh(np.array([FakeDevice(k) for k in range(8)], dtype=object), ("x",))
    assert cls == "ValueError"
    with pytest.raises(ValueError) as e:
        pyjax.debug.visualize_sharding(shape, NamedSharding(mesh, P()))
    assert str(e.value) == msg


def test_single_device_array_and_inspect():
    x = pyjax.numpy.arange(6.0)
    text = _picture(pyjax.debug.visualize_array_sharding, x)
    dev = pyjax.devices()[0].id
    assert f"CPU {dev}" in text and text.count("│") == 2
    seen = []
    pyjax.debug.inspect_array_sharding({"a": x, "b": [x]}, callback=seen.append)
    assert seen == [x.sharding, x.sharding]
    seen.clear()
    f = pyjax.jit(lambda y: pyjax.debug.inspect_array_sharding(y * 2, callback=seen.append) or y)
    f(x)
    assert seen == [x.sharding]  # one device: known while lowering
    f(x)
    assert len(seen) == 1  # a cached executable does not call back (as JAX)


_ARRAYS = """
import contextlib, io, json, sys
import numpy as np, pyjax
from pyjax.sharding import Mesh, NamedSharding, PartitionSpec as P
cases = json.loads(sys.argv[1])
out = []
devices = np.array(pyjax.devices(), dtype=object)
for c in cases:
    devs = devices if c["device_order"] is None else devices[c["device_order"]]
    spec = P(*[tuple(e) if isinstance(e, list) else e for e in c["spec"]])
    s = NamedSharding(Mesh(devs.reshape(c["mesh_shape"]), c["axis_names"]), spec)
    x = pyjax.device_put(np.zeros(c["shape"], np.float32), s)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        pyjax.debug.visualize_array_sharding(x, use_color=False, **c["kwargs"])
    out.append(buf.getvalue())
print(json.dumps(out))
"""


@pytest.mark.libraries
def test_array_pictures_on_eight_devices_match_jax():
    pytest.importorskip("rich")
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", _ARRAYS, json.dumps(CASES)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.splitlines()[-1])
    assert got == [c["text"] for c in CASES]


def test_inspect_inside_jit_reports_what_xla_chose_as_jax():
    data = json.loads((pathlib.Path(__file__).parent / "data" / "inspect_sharding.json").read_text())
    script = ("import json, sys, pyjax\nscope = {'jax': pyjax}\n"
              "exec(sys.argv[1], scope)\nprint(json.dumps(scope['out']))")
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", script, data["program"]], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.splitlines()[-1])
    assert got == data["results"]
    assert sum(k.endswith("eager") for k in got) == 5 and len(got) == 25
