"""pyjax.profiler: a trace file of pyjax's stages and host annotations (Chrome trace-event
JSON, parsed back here), device memory profiles, the names that need TensorBoard's service;
and jax.log_compiles logging trace, lowering and compile times with the persistent cache's
answer."""
import glob
import gzip
import json
import logging
import os
import random
import threading

import pytest

import pyjax
from pyjax._src.backend import xla
import pyjax.numpy as jnp
from pyjax import profiler


def _events(log_dir):
    paths = glob.glob(os.path.join(log_dir, "plugins", "profile", "*", "*.trace.json.gz"))
    assert len(paths) == 1
    with gzip.open(paths[0]) as f:
        data = json.load(f)
    return [e for e in data["traceEvents"] if e["ph"] == "X"], data


def test_trace_records_stages_of_a_jitted_call(tmp_path):
    scale = random.random()  # a module never compiled before: every stage runs
    f = pyjax.jit(lambda x: jnp.sin(x) * scale)
    with profiler.trace(str(tmp_path)):
        f(1.0)
        f(2.0)
    events, data = _events(str(tmp_path))
    by_cat = {}
    for e in events:
        by_cat.setdefault(e["cat"], []).append(e)
        assert e["dur"] >= 0 and e["ts"] >= 0 and e["tid"] == threading.get_ident()
    assert [e["name"] for e in by_cat["trace"]].count("<lambda>") == 1
    assert "jit_<lambda>" in [e["name"] for e in by_cat["lower"]]
    compile_ev = [e for e in by_cat["compile"] if e["name"] == "jit_<lambda>"]
    assert len(compile_ev) == 1 and compile_ev[0]["args"]["cache"] in ("compiled", "disk")
    # both calls run through Python while the trace runs, so both executions are seen
    assert [e["name"] for e in by_cat["execute"]].count("jit_<lambda>") == 2
    # stages of one call are in order: trace, lower, compile, execute
    order = [e for e in events if e["name"] in ("<lambda>", "jit_<lambda>")]
    assert [e["cat"] for e in order] == ["trace", "lower", "compile", "execute", "execute"]
    starts = [e["ts"] for e in order]
    assert starts == sorted(starts)
    assert any(e.get("name") == "process_name" for e in data["traceEvents"])


def test_annotations_nest_and_carry_arguments(tmp_path):
    @profiler.annotate_function
    def load(i):
        return jnp.ones(3) * i

    profiler.start_trace(str(tmp_path), create_perfetto_trace=True)
    try:
        for step in range(2):
            with profiler.StepTraceAnnotation("train", step_num=step):
                with profiler.TraceAnnotation("inner", note="x"):
                    load(step)
    finally:
        profiler.stop_trace()
    events, _ = _events(str(tmp_path))
    steps = [e for e in events if e["name"] == "train"]
    assert [e["args"]["step_num"] for e in steps] == [0, 1]
    inner = [e for e in events if e["name"] == "inner"]
    assert inner[0]["args"] == {"note": "x"}
    loads = [e for e in events if e["cat"] == "annotation" and e["name"].endswith("load")]
    assert len(loads) == 2
    for outer, mid, leaf in zip(steps, inner, loads):
        assert outer["ts"] <= mid["ts"] <= leaf["ts"]
        assert leaf["ts"] + leaf["dur"] <= mid["ts"] + mid["dur"] <= outer["ts"] + outer["dur"] + 1e-3
    assert glob.glob(os.path.join(str(tmp_path), "plugins", "profile", "*", "perfetto_trace.json.gz"))


def test_no_events_and_fast_path_when_not_tracing(tmp_path):
    with profiler.TraceAnnotation("ignored"):
        pass
    with profiler.trace(str(tmp_path)):
        pass
    events, _ = _events(str(tmp_path))
    assert events == []
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()


def test_one_trace_at_a_time(tmp_path):
    with profiler.trace(str(tmp_path)):
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(str(tmp_path))


def test_device_memory_profile(tmp_path):
    keep = jnp.ones((1000,))  # noqa: F841 - a live buffer to profile
    data = profiler.device_memory_profile()
    assert isinstance(data, bytes) and data[:2] == b"\x1f\x8b"  # gzipped pprof protobuf
    path = tmp_path / "mem.prof"
    profiler.save_device_memory_profile(str(path))
    assert path.read_bytes()[:2] == b"\x1f\x8b"


@pytest.mark.parametrize("name", ["start_server", "stop_server", "register_subprocess"])
def test_service_names_say_what_is_missing(name):
    with pytest.raises(NotImplementedError, match="profiler service"):
        getattr(profiler, name)(9999)


def test_xplane_classes_say_what_is_missing():
    with pytest.raises(NotImplementedError, match="xplane"):
        profiler.ProfileData.from_file("x.pb")
    opts = profiler.ProfileOptions()
    assert opts.host_tracer_level == 2 and opts.python_tracer_level == 1


def test_log_compiles_reports_each_stage_and_the_cache(tmp_path, caplog):
    scale = random.random()
    pyjax.config.update("jax_compilation_cache_dir", str(tmp_path))
    try:
        with caplog.at_level(logging.WARNING, logger="pyjax"), pyjax.log_compiles():
            pyjax.jit(lambda x: jnp.cos(x) + scale)(1.0)
            first = caplog.text
            caplog.clear()
            pyjax.clear_caches()
            xla.wait_for_cache_writes()  # entries are written in the background since issue 25
            pyjax.jit(lambda x: jnp.cos(x) + scale)(1.0)
            second = caplog.text
    finally:
        pyjax.config.update("jax_compilation_cache_dir", None)
    for text in (first, second):
        assert "traced <lambda> in" in text
        assert "lowered jit_<lambda> in" in text and "; compile " in text
    assert "persistent cache miss" in first
    assert "persistent cache hit" in second


def test_docstring_examples():
    import doctest
    from pyjax._src import profiler as profiler_module
    failures, tried = doctest.testmod(profiler_module)[:2]
    assert tried >= 5 and failures == 0


def test_debug_nans_switched_during_a_trace_stays_on(tmp_path):
    f = pyjax.jit(lambda x: jnp.log(x))
    profiler.start_trace(str(tmp_path))
    try:
        pyjax.config.update("jax_debug_nans", True)
    finally:
        profiler.stop_trace()
    try:
        with pytest.raises(FloatingPointError):
            f(-1.0)
    finally:
        pyjax.config.update("jax_debug_nans", False)
    assert bool(jnp.isnan(f(-1.0)))
