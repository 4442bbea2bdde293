"""Pictures of shardings: which device holds which block of a 1-d or 2-d array, drawn as a
grid whose cells are sized like the blocks (`visualize_sharding`, `visualize_array_sharding`),
and `inspect_array_sharding`, which hands an array's sharding to a callback (inside `jit`, from
XLA's SPMD partitioner: the `InspectSharding` custom call).

The picture is drawn with `rich` when it is installed (as JAX does, in colour on a terminal
when matplotlib provides the palette), else as a plain box-drawing grid with the same cell
sizes.
"""
from __future__ import annotations

import importlib.util
import sys

import numpy as np

from pyjax._src import core, spmd, tree_util
from pyjax._src.backend import xla
from pyjax._src.callback import debug_effect
from pyjax._src.lowering import mlir
from pyjax._src.sharding import NamedSharding, PartitionSpec, SingleDeviceSharding, named_from_hlo

_HEIGHT_TO_WIDTH = 2.5  # terminal cells are about 2.5 times taller than wide


def _blocks(shape, sharding):
    """{(row, col): [device ids]} and the blocks' fractional (height or None, width)."""
    ids, sizes = {}, {}
    for dev, index in sharding.devices_indices_map(tuple(shape)).items():
        slices = [slice(i, i + 1) if isinstance(i, int) else i for i in index]
        starts, extents = [], []
        for n, s in zip(shape, slices, strict=True):
            start, stop, _ = s.indices(n)
            extents.append(stop - start)
            starts.append(start // (stop - start) if stop > start else 0)
        if len(shape) == 1:
            key, size = (0, starts[0]), (None, extents[0] / shape[0])
        else:
            key, size = tuple(starts), (extents[0] / shape[0], extents[1] / shape[1])
        ids.setdefault(key, []).append(dev.id)
        sizes[key] = size
    return ids, sizes


def _label(sharding):
    platform = next(iter(sharding.device_set)).platform
    return {"cuda": "GPU", "rocm": "GPU"}.get(platform, platform.upper())


def _cells(shape, sharding, scale, min_width, max_width):
    """The grid: rows of (text, (top, right, bottom, left) padding) cells."""
    ids, sizes = _blocks(shape, sharding)
    n_rows = max(r for r, _ in ids) + 1
    n_cols = max(c for _, c in ids) + 1
    base_height = int(10 * scale)
    base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
    kind = _label(sharding)
    grid = []
    for r in range(n_rows):
        row = []
        for c in range(n_cols):
            text = f"{kind} " + ",".join(str(i) for i in sorted(ids[r, c]))
            frac_h, frac_w = sizes[r, c]
            width = min(max(int(frac_w * base_width * _HEIGHT_TO_WIDTH), min_width), max_width)
            height = 1 if frac_h is None else int(frac_h * base_height)
            left, extra = divmod(width - len(text) - 2, 2)
            top, extra_v = divmod(height - 2, 2)
            row.append((text, (top, left + extra, top + extra_v, left)))
        grid.append(row)
    return grid


def visualize_sharding(shape, sharding, *, use_color: bool = True, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map=None):
    """Print which device holds which block of an array of `shape` laid out as `sharding`.

    >>> mesh = pyjax.make_mesh((2, 2), ("a", "b"))
    >>> visualize_sharding((4, 4), NamedSharding(mesh, P("a", "b")))   # doctest: +SKIP
    ┌───────┬───────┐
    │ CPU 0 │ CPU 1 │ ...
    """
    shape = tuple(int(n) for n in shape)
    if not 1 <= len(shape) <= 2:
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    grid = _cells(shape, sharding, scale, min_width, max_width)
    if _have_rich():
        _rich_picture(grid, use_color, max_width, color_map)
    else:  # NB: JAX raises ValueError without rich; pyjax draws the grid itself
        sys.stdout.write(_plain_picture(grid) + "\n")


def _have_rich() -> bool:
    return importlib.util.find_spec("rich") is not None


def _rich_picture(grid, use_color, max_width, color_map):
    import rich.align
    import rich.box
    import rich.console
    import rich.padding
    import rich.style
    import rich.table

    console = rich.console.Console(width=max_width)
    use_color = use_color and console.color_system is not None
    if use_color and color_map is None:
        try:
            import matplotlib
            color_map = matplotlib.colormaps["tab20b"]
        except ModuleNotFoundError:
            use_color = False
    colors = _colors(color_map, len(grid) * len(grid[0])) if use_color else None
    table = rich.table.Table(show_header=False, show_lines=not use_color, padding=0,
                             highlight=not use_color, pad_edge=False,
                             box=None if use_color else rich.box.SQUARE)
    for row in grid:
        cells = []
        for text, (top, right, bottom, left) in row:
            style = rich.style.Style()
            if use_color:
                bg = next(colors)
                style = rich.style.Style(bgcolor=bg, color=_text_color(bg))
                top, right, bottom, left = top + 1, right + 1, bottom + 1, left + 1
            pad = tuple(max(p, 0) for p in (top, right, bottom, left))
            cells.append(rich.padding.Padding(
                rich.align.Align(text, "center", vertical="middle"), pad, style=style))
        table.add_row(*cells)
    console.print(table, end="\n\n")


def _colors(color_map, n):
    """Colours for n cells, stepping half way round the map each time so neighbours differ."""
    values = np.linspace(0, 1, n)
    i = 0
    for _ in range(n):
        r, g, b = (int(v * 255) for v in color_map(values[i])[:3])
        yield f"#{r:02X}{g:02X}{b:02X}"
        i = (i + n // 2 + (n % 2 == 0)) % n


def _text_color(bg):
    r, g, b = (int(bg[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if r * 0.299 + g * 0.587 + b * 0.114 > 186 else "#ffffff"


def _plain_picture(grid):
    """The grid drawn with box characters: the picture rich draws when it fits in
    `max_width` (wider grids are not squeezed, unlike rich's)."""
    def size(cell):
        text, (top, right, bottom, left) = cell
        return (max(top, 0) + 1 + max(bottom, 0),
                max(left, 0) + len(text) + max(right, 0))

    widths = [max(size(row[c])[1] for row in grid) for c in range(len(grid[0]))]
    heights = [max(size(cell)[0] for cell in row) for row in grid]

    def rule(left, mid, right):
        return left + mid.join("─" * w for w in widths) + right

    lines = [rule("┌", "┬", "┐")]
    for r, row in enumerate(grid):
        columns = []
        for cell, w in zip(row, widths, strict=True):
            text, (top, right, _, left) = cell
            left, right, top = max(left, 0), max(right, 0), max(top, 0)
            inner = w - left - right
            offset = left + max(inner - len(text), 0) // 2
            body = [" " * w] * heights[r]
            body[top] = (" " * offset + text).ljust(w)
            columns.append(body)
        lines += ["│" + "│".join(col[i] for col in columns) + "│" for i in range(heights[r])]
        lines.append(rule("├", "┼", "┤") if r + 1 < len(grid) else rule("└", "┴", "┘"))
    return "\n".join(lines)


# -- inspect_sharding: an array's sharding, eagerly or as XLA's partitioner chose it ---------

inspect_sharding_p = core.Primitive("inspect_sharding", multiple_results=True)


def inspect_array_sharding(value, *, callback):
    """Call `callback(sharding)` for each array of the pytree `value`: at once for concrete
    arrays; inside `jit`, while the function compiles, with the layout XLA's SPMD partitioner
    chose for the value (a NamedSharding over the jit's mesh). A cached executable does not
    call back again.

    >>> inspect_array_sharding(x, callback=print)   # NamedSharding(mesh=..., spec=P('x',), ...)
    """
    for leaf in tree_util.tree_leaves(value):
        inspect_sharding_p.bind(leaf, callback=callback)


@inspect_sharding_p.def_impl
def _inspect_sharding_impl(x, *, callback):
    callback(x.sharding)
    return []


inspect_sharding_p.def_abstract_eval(lambda x, *, callback: [])
inspect_sharding_p.def_effects(lambda *, callback: frozenset({debug_effect}))  # never DCE'd
inspect_sharding_p.def_jvp(
    lambda primals, tangents, **params: (inspect_sharding_p.bind(*primals, **params), []))
inspect_sharding_p.def_batch(
    lambda axis_size, args, dims, **params: (inspect_sharding_p.bind(*args, **params), []))

_keepalive = []  # callbacks XLA's partitioner may still call (their address is in a module)


@inspect_sharding_p.def_lowering
def _inspect_sharding_lowering(ctx, x, *, callback):
    devices, mesh = spmd.lowering_target.get()
    ndim = ctx.avals_in[0].ndim
    if len(devices) <= 1:  # one device: the layout is known now
        callback(SingleDeviceSharding(devices[0]) if devices else None)
        return []

    def on_partitioned(hlo):
        if mesh is None:
            return callback(xla.gspmd_sharding(devices, hlo))
        if hlo.is_manual():  # inside shard_map: each device holds its own value
            return callback(NamedSharding(mesh, PartitionSpec()))
        named = named_from_hlo(mesh, hlo, ndim)
        return callback(named if named is not None else xla.gspmd_sharding(devices, hlo))

    _keepalive.append(on_partitioned)
    key = xla.encode_inspect_sharding_callback(on_partitioned)
    attrs = {"call_target_name": '"InspectSharding"', "has_side_effect": "true",
             "api_version": "1 : i32",
             "backend_config": '"' + "".join(f"\\{b:02X}" for b in key) + '"'}
    ctx.fb.op("stablehlo.custom_call", [x], [mlir.aval_type(ctx.avals_in[0])], attrs)
    return []


def visualize_array_sharding(arr, **kwargs):
    """Print the picture of `visualize_sharding` for the array `arr`'s own sharding.

    >>> visualize_array_sharding(pyjax.device_put(x, NamedSharding(mesh, P("a"))))  # doctest: +SKIP
    """
    inspect_array_sharding(arr, callback=lambda s: visualize_sharding(arr.shape, s, **kwargs))
