"""Imports flow one way (STYLE rule 9; issue 9, part 1).

The layers, lowest first: base (config, dtypes, tree_util, source_info, errors, the backend) →
core → interpreters → runtime (lowering, Array, dispatch) → lax → numpy → api modules → nn → the
public package. Each layer is imported in a fresh interpreter with every module of the layers
above it blocked, so a module that reaches upward fails here. Static checks (ast) forbid the
other ways around the order: import cycles, `_src` modules importing the public package, and
imports hidden inside functions or in the middle of a module.
"""
import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "pyjax"

# NB: nn sits above the api modules (the brief's order puts it beside numpy): its activations are
# custom_jvp functions, as in JAX, whose nn also imports custom_derivatives and api. scipy sits
# beside nn (its special functions reuse nn's softmax family, as JAX's do).
LAYERS = [
    ("base", ["pyjax._src", "pyjax._src.config", "pyjax._src.dtypes", "pyjax._src.tree_types", "pyjax._src.tree_util", "pyjax._src.tree_api",
              "pyjax._src.source_info", "pyjax._src.errors", "pyjax._src.backend",
              "pyjax._src.mesh", "pyjax._src.mesh_utils", "pyjax._src.sharding",
              "pyjax._src.sharding_gspmd", "pyjax._src.sharding_in_types", "pyjax._src.topologies",
              "pyjax._src.layout",
              "pyjax._src.distributed",
              "pyjax._src.profiler", "pyjax._src.traceback_util"]),
    ("core", ["pyjax._src.avals", "pyjax._src.core", "pyjax._src.tracer_leaks",
              "pyjax._src.pretty_print", "pyjax._src.indexing"]),
    ("interpreters", ["pyjax._src.interpreters", "pyjax._src.state",
                      "pyjax._src.state.types"]),  # the Ref aval: interpreters' rules see it
    ("runtime", ["pyjax._src.lowering", "pyjax._src.array", "pyjax._src.dispatch",
                 "pyjax._src.spmd",
                 "pyjax._src.typing"]),
    ("lax", ["pyjax._src.lax"]),
    ("numpy", ["pyjax._src.numpy",
               "pyjax._src.state.primitives",  # ref[idx] reads/writes index as jnp does
               "pyjax._src.ops"]),  # jax.ops' segment reductions: scatters, as jnp's .at[]
    ("api", ["pyjax._src.api", "pyjax._src.api_vmap", "pyjax._src.shard_map_specs", "pyjax._src.shard_map", "pyjax._src.shard_alike", "pyjax._src.smap", "pyjax._src.pmap", "pyjax._src.pjit", "pyjax._src.ad_api",
             "pyjax._src.reshard",
             "pyjax._src.custom_derivatives", "pyjax._src.custom_batching", "pyjax._src.ad_checkpoint",
             "pyjax._src.remat_opt",  # custom_vjp's optimize_remat (its fwd rule's primitive)
             "pyjax._src.test_util",
             "pyjax._src.public_test_util", "pyjax._src.test_cases",  # jax._src.test_util (jtu)
             "pyjax._src.jitted_numpy", "pyjax._src.numpy_placement",  # jnp's device= (device_put)
             "pyjax._src.flatten_util", "pyjax._src.random",
             "pyjax._src.numpy.linalg", "pyjax._src.callback",  # jnp.linalg: custom_jvp (det, slogdet, pinv) and jit
             # i0's custom_jvp; roots/polyfit on jnp.linalg; vectorize and apply_along_axis on vmap
             "pyjax._src.numpy.windows", "pyjax._src.numpy.polynomial", "pyjax._src.numpy.functional",
             "pyjax._src.numpy.float_parts",  # frexp's custom_jvp
             # the AOT stages and state discharge sit beside jit (it calls them); export,
             # ffi, checkify and the debugging/multi-host tools are built on jit and the AD api
             "pyjax._src.stages", "pyjax._src.state.discharge", "pyjax._src.export", "pyjax._src.ffi",
             "pyjax._src.checkify", "pyjax._src.checkify_rules", "pyjax._src.multihost_utils",
             "pyjax._src.sharding_viz", "pyjax._src.visualize"]),
    ("nn", ["pyjax._src.nn", "pyjax._src.scipy", "pyjax._src.image", "pyjax._src.example_libraries",
            "pyjax._src.ode", "pyjax._src.sparse", "pyjax._src.pallas"]),
    ("public", ["pyjax"]),
]
LAYER_NAMES = [name for name, _ in LAYERS]

# Function-level imports left in the package: each says why on its line (a comment).
MAX_FUNCTION_LEVEL_IMPORTS = 15

# Files exempt from the mid-file import check while someone reorganises them (none now).
PENDING: set = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _matches(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str):
    """The index of the layer holding `module` (the most specific prefix wins)."""
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if _matches(module, prefix) and (best is None or len(prefix) > len(best[1])):
                best = (i, prefix)
    return None if best is None else best[0]


def test_every_module_is_in_a_layer():
    assert all(layer_of(m) is not None for m in MODULES)
    assert layer_of("pyjax._src.lax.control_flow.scan") == LAYER_NAMES.index("lax")
    assert layer_of("pyjax.numpy") == LAYER_NAMES.index("public")


# -- each layer imports with the layers above it blocked -----------------------------------------

_CHILD = r"""
import importlib, json, sys, types
spec = json.loads(sys.argv[1])
blocked = spec["blocked"]

class Blocker:
    # A meta-path finder refusing the modules of the layers above the one being imported.
    def find_spec(self, name, path=None, target=None):
        if name in blocked:
            raise ImportError(f"layer test: {name} belongs to a higher layer")
        return None

sys.meta_path.insert(0, Blocker())
if spec["stub_package"]:
    # Below the public layer, `pyjax/__init__.py` (which imports everything) must not run:
    # an empty package object stands in for it, so `pyjax._src...` resolves on its own.
    pkg = types.ModuleType("pyjax")
    pkg.__path__ = [spec["pkg_dir"]]
    sys.modules["pyjax"] = pkg
for name in spec["modules"]:
    importlib.import_module(name)
if spec["probe"]:  # the blocker works: a module of the layer above is refused
    try:
        importlib.import_module(spec["probe"])
    except ImportError:
        pass
    else:
        raise SystemExit(f"{spec['probe']} imported although it was blocked")
"""


def _layer_spec(i):
    modules = sorted(m for m in MODULES if layer_of(m) == i)
    above = sorted(m for m in MODULES if layer_of(m) > i)
    next_layer = [m for m in above if layer_of(m) == i + 1 and m != "pyjax"]  # (pyjax: the stub)
    public = i == LAYER_NAMES.index("public")
    return {"modules": modules, "blocked": above, "stub_package": not public,
            "pkg_dir": str(PKG), "probe": next_layer[0] if next_layer else None}


@pytest.mark.parametrize("layer", LAYER_NAMES)
def test_layer_imports_without_the_layers_above(layer):
    spec = _layer_spec(LAYER_NAMES.index(layer))
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(spec)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"layer {layer!r}:\n{proc.stderr[-3000:]}"


# -- static checks -------------------------------------------------------------------------------

def _imports(tree):
    """(node, names imported, inside a function?) for every import statement, and for
    `importlib.import_module("...")` / `__import__("...")` calls with a literal name."""
    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.append((child, [a.name for a in child.names], in_function))
            elif isinstance(child, ast.ImportFrom):
                base = "." * child.level + (child.module or "")
                out.append((child, [base] + [f"{base}.{a.name}" for a in child.names], in_function))
            elif (isinstance(child, ast.Call) and child.args and isinstance(child.args[0], ast.Constant)
                  and isinstance(child.args[0].value, str)
                  and ast.unparse(child.func) in ("importlib.import_module", "import_module", "__import__")):
                out.append((child, [child.args[0].value], in_function))
            visit(child, nested)
    visit(tree, False)
    return out


def _is_pyjax(name: str) -> bool:
    return name.startswith(".") or name == "pyjax" or name.startswith("pyjax.")


def _resolve(name: str):
    """The pyjax module a dotted name refers to (a module, or a name inside one)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


_PARSED = {m: (p, ast.parse(p.read_text()), p.read_text().splitlines()) for m, p in MODULES.items()}


def _where(module, node):
    return f"{MODULES[module].relative_to(ROOT)}:{node.lineno}"


def test_no_src_module_imports_the_public_package():
    offenders = []
    for module, (path, tree, _) in _PARSED.items():
        if not _matches(module, "pyjax._src"):
            continue
        for node, names, _ in _imports(tree):
            public = [n for n in names if (n == "pyjax" or n.startswith("pyjax."))
                      and not _matches(n, "pyjax._src")]
            # `from pyjax import _src` names the private package; anything else is public
            if public and not (isinstance(node, ast.ImportFrom) and node.module == "pyjax"
                               and all(a.name == "_src" for a in node.names)):
                offenders.append(f"{_where(module, node)}: {ast.unparse(node)}")
    assert not offenders, "\n".join(offenders)


def _module_level_graph():
    graph = {m: set() for m in MODULES}
    for module, (_, tree, _) in _PARSED.items():
        for node, names, in_function in _imports(tree):
            if in_function:
                continue
            for n in names:
                target = _resolve(n) if _is_pyjax(n) else None
                if target and target != module and not _matches(module, target):
                    graph[module].add(target)  # (a package's own __init__ is not a cycle)
    return graph


def _cycles(graph):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def strongconnect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in graph:
        if v not in index:
            strongconnect(v)
    return out


def test_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_module_level_imports_have_no_cycles():
    graph = _module_level_graph()
    assert not _cycles(graph)
    # and no module imports one of a higher layer (the subprocess test checks this at runtime)
    upward = [f"{m} -> {t}" for m, ts in graph.items() for t in ts if layer_of(t) > layer_of(m)]
    assert not upward, upward


def _function_level_imports():
    out = []
    for module, (_, tree, lines) in _PARSED.items():
        for node, names, in_function in _imports(tree):
            if in_function and any(_is_pyjax(n) for n in names):
                out.append((module, node, "#" in lines[node.lineno - 1]))
    return out


def test_function_level_imports_are_few_and_say_why():
    found = _function_level_imports()
    listing = "\n".join(f"{_where(m, n)}: {ast.unparse(n)}" for m, n, _ in found)
    assert len(found) < MAX_FUNCTION_LEVEL_IMPORTS, f"{len(found)} function-level imports:\n{listing}"
    silent = [f"{_where(m, n)}: {ast.unparse(n)}" for m, n, commented in found if not commented]
    assert not silent, "function-level imports without a comment saying why:\n" + "\n".join(silent)


def _is_literal(node) -> bool:
    if isinstance(node, ast.Tuple):
        return all(_is_literal(e) for e in node.elts)
    return isinstance(node, ast.Constant)


def _mid_file_imports():
    """pyjax imports below module code (E402): they usually dodge a cycle."""
    offenders = []
    for module, (_, tree, _) in _PARSED.items():
        seen_code = False
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else [stmt.module or "."]
                if seen_code and any(_is_pyjax(n) for n in names):
                    offenders.append(f"{_where(module, stmt)}: {ast.unparse(stmt)}")
            elif not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)  # docstring
                      or isinstance(stmt, (ast.Try, ast.If))  # guarded imports
                      or isinstance(stmt, ast.Assign) and _is_literal(stmt.value)):  # __version__ = ...
                seen_code = True
    return offenders


def test_no_mid_file_imports_outside_pending_files():
    new = [o for o in _mid_file_imports() if o.partition(":")[0] not in PENDING]
    assert not new, "\n".join(new)


def test_no_pyjax_imports_after_module_code():
    offenders = _mid_file_imports()
    assert not offenders, "\n".join(offenders)


# -- what `import pyjax` loads (issue 25: pay for what you use) -----------------------------------

# The modules `import pyjax` loads: the core (tracing, jit, autodiff, vmap, the Array type, lowering,
# the backend), pyjax.numpy and pyjax.lax. Everything else is imported on first use through the
# lazy tables of pyjax/__init__.py. A module added here makes every program start slower: say why.
# (random.philox, random.threefry4x32: key implementations the registry lists beside threefry2x32
# in JAX's order, so jax.random.key(..., impl=name) finds them; small, no compilation at import.)
EAGER_MODULES = {
    "pyjax": """custom_derivatives dtypes errors jax_alias lax lax.linalg numpy numpy.fft
        numpy.linalg tree tree_util _src""",
    "pyjax._src": """ad_api ad_checkpoint api api_vmap array avals backend backend.cache backend.cuda
        backend.distributed_runtime backend.executable_cache backend.guard backend.xla config
        core custom_derivatives
        dispatch dtypes errors indexing interpreters interpreters.ad interpreters.array_ops
        interpreters.batching interpreters.partial_eval interpreters.rule_tables jitted_numpy
        numpy_placement lax remat_opt reshard
        lowering lowering.lower lowering.mlir lowering.sdy mesh numpy pjit pretty_print profiler random
        random.keys random.philox random.prng random.rbg random.threefry4x32 sharding sharding_gspmd sharding_in_types layout source_info spmd stages state state.types
        traceback_util tracer_leaks tree_api tree_types tree_util""",
    "pyjax._src.lax": """barriers control_flow control_flow.common control_flow.conditionals
        control_flow.cumulative control_flow.platform_dependent control_flow.scan
        control_flow.solves control_flow.while_loop convert convolution dot_general
        dynamic_slicing elementwise fft helpers interpreter_ops linalg linalg_common
        linalg_structured parallel placement random_bits reduce_precision reductions shape_ops sharding_rules slicing
        sorting special stacking utils windowed_reductions""",
    "pyjax._src.numpy": """array_api_metadata array_methods arrays calculus convolve creation fft float_parts
        functional index_checks index_tricks indexing lax_numpy linalg linalg_ops pad polynomial reductions
        scalar_types setops shape sorting statistics ufunc_api ufuncs util windows""",
}

_LOADED = r"""
import json, sys
import pyjax
print(json.dumps(sorted(m for m in sys.modules if m == "pyjax" or m.startswith("pyjax."))))
"""


def _loaded_after(code):
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_import_pyjax_loads_only_the_core():
    expected = {"pyjax"} | {f"{package}.{name}" for package, names in EAGER_MODULES.items()
                            for name in names.split()}
    loaded = _loaded_after(_LOADED)
    assert not loaded - expected, f"`import pyjax` now also loads {sorted(loaded - expected)}"
    assert not expected - loaded, f"no longer loaded (update EAGER_MODULES): {sorted(expected - loaded)}"


def test_lazy_names_load_on_first_use():
    import pyjax

    lazy = set(pyjax._LAZY_SUBMODULES) | set(pyjax._LAZY_ATTRIBUTES)
    assert lazy <= set(dir(pyjax))
    # right after `import pyjax` (a fresh process: tests in this one may have loaded them)
    bound = _loaded_after("import json, pyjax\nprint(json.dumps(sorted(vars(pyjax))))")
    assert not lazy & bound - set(pyjax._LAZY_SUBMODULES)
    code = _LOADED.replace("import pyjax\n", "import pyjax\nimport pyjax.scipy.special\n"
                           "pyjax.nn.relu; pyjax.shard_map; from pyjax import Ref\n")
    loaded = _loaded_after(code)
    assert {"pyjax.scipy.special", "pyjax.nn", "pyjax._src.shard_map", "pyjax.ref",
            "pyjax._src.state.discharge"} <= loaded
    for name in pyjax._LAZY_SUBMODULES:
        assert getattr(pyjax, name).__name__ == f"pyjax.{name}"
    for name, module in pyjax._LAZY_ATTRIBUTES.items():
        assert getattr(pyjax, name) is getattr(sys.modules[module], name)


def test_checkify_rules_are_installed_when_checkify_is_imported():
    code = _LOADED.replace("import pyjax\n", "from pyjax.experimental import checkify\n")
    assert "pyjax._src.checkify_rules" in _loaded_after(code)
