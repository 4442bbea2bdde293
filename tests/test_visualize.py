"""pyjax.visualize: the DOT text of a jaxpr (parsed back here) has one node per equation with
its primitive, output types and XLA's cost, edges for data flow, clusters for bodies."""
import re
import sys
import stat

import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

_NODE = re.compile(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
_EDGE = re.compile(r"^\s*(\w+) -> (\w+)(?: \[(.*)\])?;$")


def parse(dot):
    """{node id: label lines}, [(src, dst, attrs)], [cluster labels]."""
    nodes, edges, clusters = {}, [], []
    lines = dot.splitlines()
    assert lines[0] == "digraph jaxpr {" and lines[-1] == "}"
    depth = 0
    for line in lines:
        if line.strip().startswith("subgraph cluster_"):
            depth += 1
        elif line.strip() == "}":
            depth -= 1
        elif (m := _NODE.match(line)):
            assert m.group(1) not in nodes, "node ids are unique"
            nodes[m.group(1)] = m.group(2).replace('\\"', '"').split("\\n")
        elif (m := _EDGE.match(line)):
            edges.append((m.group(1), m.group(2), m.group(3) or ""))
        elif line.strip().startswith("label="):
            clusters.append(line.strip()[len('label="'):-2])
    assert depth == -1  # every subgraph closed, then the graph
    return nodes, edges, clusters


def _loss(params, batch):
    x, y = batch
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


_PARAMS = {"w1": jnp.ones((4, 8)), "b1": jnp.zeros(8), "w2": jnp.ones((8, 1))}
_BATCH = (jnp.ones((16, 4)), jnp.ones((16, 1)))


@pytest.fixture(scope="module")
def mlp_graph():
    return pyjax.visualize(pyjax.grad(_loss), _PARAMS, _BATCH)


def test_mlp_grad_nodes_follow_the_jaxpr(mlp_graph):
    nodes, edges, _ = parse(mlp_graph.dot)
    eqns = mlp_graph.jaxpr.jaxpr.eqns
    eqn_nodes = [n for n in nodes if re.fullmatch(r"n\d+", n)]
    assert len(eqn_nodes) == len(eqns) == len(mlp_graph.costs)
    for i, eqn in enumerate(eqns):
        label = nodes[f"n{i}"]
        assert label[0] == eqn.primitive.name
        assert "-> " + ", ".join(v.aval.str_short() for v in eqn.outvars) in label
    # inputs named by their path in the arguments, outputs one per gradient leaf
    inputs = {nodes[n][0] for n in nodes if n.startswith("in")}
    assert inputs == {"params['b1']", "params['w1']", "params['w2']", "batch[0]", "batch[1]"}
    assert len([n for n in nodes if n.startswith("out")]) == 3


def test_mlp_grad_edges_are_the_data_flow(mlp_graph):
    nodes, edges, _ = parse(mlp_graph.dot)
    jaxpr = mlp_graph.jaxpr.jaxpr
    producer = {v: f"in{i}" for i, v in enumerate(jaxpr.invars)}
    expected = set()
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if v in producer:
                expected.add((producer[v], f"n{i}"))
        for v in eqn.outvars:
            producer[v] = f"n{i}"
    for i, v in enumerate(jaxpr.outvars):
        if v in producer:
            expected.add((producer[v], f"out{i}"))
    assert {(s, d) for s, d, _ in edges} == expected
    assert all(s in nodes and d in nodes for s, d, _ in edges)


def test_costs_are_xla_estimates(mlp_graph):
    costs = {c["node"]: c for c in mlp_graph.costs}
    eqns = mlp_graph.jaxpr.jaxpr.eqns
    dots = [f"n{i}" for i, e in enumerate(eqns) if e.primitive.name == "dot_general"]
    assert dots
    for nid in dots:
        eqn = eqns[int(nid[1:])]
        m = 1
        for d in eqn.outvars[0].aval.shape:
            m *= d
        (lhs_contract, _), _ = eqn.params["dimension_numbers"]
        k = 1
        for d in lhs_contract:
            k *= eqn.invars[0].aval.shape[d]
        assert costs[nid]["flops"] == 2 * m * k  # a matmul's multiply-adds
        assert costs[nid]["bytes accessed"] > 0
    nodes, _, _ = parse(mlp_graph.dot)
    assert any(line.startswith("flops ") for line in nodes[dots[0]])
    total = mlp_graph.total_cost["flops"]
    assert total >= sum(c["flops"] for c in mlp_graph.costs if c["primitive"] == "dot_general")


def test_bodies_are_clusters():
    def f(x):
        y = lax.scan(lambda c, xi: (c * xi, c), x, jnp.ones(3))[0]
        return lax.cond(y > 0, jnp.sin, jnp.cos, y)
    graph = pyjax.visualize(f, 1.0)
    nodes, edges, clusters = parse(graph.dot)
    assert "scan: jaxpr" in clusters
    assert sum(c.startswith("cond: branches[") for c in clusters) == 2
    labels = [v[0] for v in nodes.values()]
    assert "sin" in labels and "cos" in labels and "mul" in labels
    assert any("lhead=cluster_" in attrs for _, _, attrs in edges)


def test_svg_needs_graphviz(monkeypatch, tmp_path):
    graph = pyjax.visualize(jnp.sin, 1.0)
    monkeypatch.setenv("PATH", str(tmp_path))

    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(RuntimeError, match="needs Graphviz"):
        graph.svg()
    assert "needs Graphviz" in graph._repr_html_() and "digraph" in graph._repr_html_()
    # with a `dot` program on PATH, the DOT text is piped through it
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\nread -r first\necho \"<svg>$1 $first</svg>\"\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    assert graph.svg() == "<svg>-Tsvg digraph jaxpr {</svg>\n"
    assert graph._repr_html_().startswith("<svg>")


def test_docstring_examples():
    import doctest
    from pyjax._src import visualize as visualize_module
    failures, tried = doctest.testmod(visualize_module)[:2]
    assert tried >= 3 and failures == 0
