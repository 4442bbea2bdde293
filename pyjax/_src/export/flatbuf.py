"""JAX's serialization format for `Exported`: the flatbuffer of JAX 0.10.2's schema
`jax_export.serialization` (serialization.fbs), read and written here with the `flatbuffers`
package's generic builder and table reader (an optional dependency: the `export` extra).

The tables and their fields, by slot (a field's slot is its position in the schema):

    Exported       0 serialization_version u16, 1 function_name, 2 in_tree, 3 in_avals,
                   4 out_tree, 5 out_avals, 6 nr_devices_short i16, 7 in_shardings,
                   8 out_shardings, 9 platforms, 10 ordered_effects, 11 unordered_effects,
                   12 disabled_checks, 13 mlir_module_serialized [u8],
                   14 calling_convention_version u16, 15 module_kept_var_idx [u16],
                   16 uses_global_constants bool, 17 vjp (Exported), 18 nr_devices u32,
                   19 unique_avals, 20 unique_abstract_meshes, 21 unique_named_shardings,
                   22 in_avals_idxs [u32], 23 out_avals_idxs [u32],
                   24 in_shardings_idxs [u32], 25 out_shardings_idxs [u32] (1-based, 0: none)
    PyTreeDef      0 kind i8 (leaf, none, tuple, list, dict, custom), 1 children,
                   2 children_names, 3 custom_name, 4 custom_auxdata [i8]
    AbstractValue  0 kind i8 (0: shaped array), 1 shape [string], 2 dtype i8, 3 memory_space i8
    Sharding       0 kind i8 (deprecated), 1 hlo_sharding_proto [i8], 2 named_sharding
    NamedSharding  0 mesh, 1 spec, 2 memory_kind, 3 abstract_mesh_idx u32
    AbstractMesh   0 axis_sizes [u32], 1 axis_names, 2 axis_types [i8], 3 abstract_device
    AbstractDevice 0 device_kind, 1 num_cores u32 (optional), 2 platform
    PartitionSpec  0 partitions (PartitionSpecOneAxis: 0 axes [string]), 1 reduced, 2 unreduced
    Effect         0 type_name;  DisabledSafetyCheck 0 kind i8 (platform, custom_call), 1 target

Like JAX 0.10.2, the writer stores serialization_version 3 (older readers accept only 2 or 3),
both the per-argument avals/shardings and the deduplicated `unique_*` tables with their
indices; the reader prefers the indices and falls back to the per-argument tables.

This module decodes to and encodes from plain Python data (`dict`s), so that it depends on
nothing of pyjax's; `_export.py` turns those into an `Exported`.
"""
from __future__ import annotations

import numpy as np

try:
    import flatbuffers
    from flatbuffers import number_types as _nt
    from flatbuffers.table import Table
except ImportError:  # (an optional dependency: only serialize/deserialize need it)
    flatbuffers = None

WRITTEN_SERIALIZATION_VERSION = 3

# PyTreeDef kinds, dtypes (schema enum values), memory spaces, axis types
LEAF, NONE, TUPLE, LIST, DICT, CUSTOM = range(6)
DTYPES = {
    "bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5, "uint16": 6,
    "uint32": 7, "uint64": 8, "float16": 9, "float32": 10, "float64": 11, "complex64": 12,
    "complex128": 13, "bfloat16": 14, "int4": 15, "uint4": 16, "float8_e4m3b11fnuz": 17,
    "float8_e4m3fn": 18, "float8_e4m3fnuz": 19, "float8_e5m2": 20, "float8_e5m2fnuz": 21,
    "float0": 22, "float8_e4m3": 23, "float8_e3m4": 24, "float8_e8m0fnu": 25,
    "float4_e2m1fn": 26, "key<fry>": 27, "key<rbg>": 28, "key<unsafe_rbg>": 29,
}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
MEMORY_SPACES = {0: "device", 1: "device", 2: "host", 3: "any"}
AXIS_TYPES = {0: "Auto", 1: "Auto", 2: "Explicit", 3: "Manual"}
AXIS_TYPE_CODES = {"Auto": 1, "Explicit": 2, "Manual": 3}
CHECK_PLATFORM, CHECK_CUSTOM_CALL = 0, 1


def require_flatbuffers():
    if flatbuffers is None:
        raise ImportError("Please install 'flatbuffers' in order to use Exported serialization "
                          "(pip install 'pyjax[export]')")


# -- reading --------------------------------------------------------------------------------------


class _T:
    """A flatbuffer table with field access by slot."""

    def __init__(self, buf, pos):
        self.t = Table(buf, pos)

    def _off(self, slot):
        return self.t.Offset(4 + 2 * slot)

    def has(self, slot) -> bool:
        return self._off(slot) != 0

    def scalar(self, slot, flags, default):
        o = self._off(slot)
        return self.t.Get(flags, o + self.t.Pos) if o else default

    def string(self, slot):
        o = self._off(slot)
        return self.t.String(o + self.t.Pos).decode("utf-8") if o else None

    def table(self, slot):
        o = self._off(slot)
        return _T(self.t.Bytes, self.t.Indirect(o + self.t.Pos)) if o else None

    def tables(self, slot) -> list:
        o = self._off(slot)
        if not o:
            return []
        start = self.t.Vector(o)
        return [_T(self.t.Bytes, self.t.Indirect(start + 4 * i)) for i in range(self.t.VectorLen(o))]

    def strings(self, slot) -> list:
        o = self._off(slot)
        if not o:
            return []
        start = self.t.Vector(o)
        return [self.t.String(start + 4 * i).decode("utf-8") for i in range(self.t.VectorLen(o))]

    def numbers(self, slot, flags) -> np.ndarray:
        o = self._off(slot)
        if not o:
            return np.zeros((0,), np.int64)
        return self.t.GetVectorAsNumpy(flags, o)


def decode(blob) -> dict:
    """The Exported of a JAX-format blob as plain data (see `_exported_from`). Raises ValueError
    when the blob is not a flatbuffer of the schema."""
    require_flatbuffers()
    buf = bytearray(blob)
    if len(buf) < 8:
        raise ValueError("deserialize: the blob is too short to be a serialized Exported")
    try:
        root = flatbuffers.encode.Get(_nt.UOffsetTFlags.packer_type, buf, 0)
        return _exported_from(_T(buf, root))
    except (IndexError, ValueError, KeyError, UnicodeDecodeError, AssertionError, TypeError) as e:
        raise ValueError(f"deserialize: the blob is not a serialized Exported of JAX's format "
                         f"({type(e).__name__}: {e})") from None


def _exported_from(t: _T) -> dict:
    meshes = [_mesh_from(m) for m in t.tables(20)]
    avals = [_aval_from(a) for a in t.tables(19)]
    named = [_named_sharding_from(s, meshes) for s in t.tables(21)]

    def avals_of(idx_slot, slot):
        idxs = t.numbers(idx_slot, _nt.Uint32Flags)
        if len(idxs):
            return [avals[i] for i in idxs.tolist()]
        return [_aval_from(a) for a in t.tables(slot)]

    def shardings_of(idx_slot, slot):
        idxs = t.numbers(idx_slot, _nt.Uint32Flags)
        if len(idxs):
            return [None if i == 0 else named[i - 1] for i in idxs.tolist()]
        return [_sharding_from(s, meshes) for s in t.tables(slot)]

    vjp = t.table(17)
    return {
        "serialization_version": t.scalar(0, _nt.Uint16Flags, 0),
        "fun_name": t.string(1) or "",
        "in_tree": _tree_from(t.table(2)),
        "out_tree": _tree_from(t.table(4)),
        "in_avals": avals_of(22, 3),
        "out_avals": avals_of(23, 5),
        "in_shardings": shardings_of(24, 7),
        "out_shardings": shardings_of(25, 8),
        "nr_devices": t.scalar(18, _nt.Uint32Flags, 0) or t.scalar(6, _nt.Int16Flags, 0),
        "platforms": t.strings(9),
        "ordered_effects": [e.string(0) for e in t.tables(10)],
        "unordered_effects": [e.string(0) for e in t.tables(11)],
        "disabled_checks": [_check_from(c) for c in t.tables(12)],
        "module": t.numbers(13, _nt.Uint8Flags).tobytes(),
        "calling_convention_version": t.scalar(14, _nt.Uint16Flags, 0),
        "module_kept_var_idx": t.numbers(15, _nt.Uint16Flags).tolist(),
        "uses_global_constants": bool(t.scalar(16, _nt.BoolFlags, False)),
        "vjp": _exported_from(vjp) if vjp is not None else None,
    }


def _tree_from(t: _T | None):
    """A pytree structure as nested data: `"*"` a leaf, None, or {"node": kind, ...}."""
    if t is None:
        raise ValueError("missing PyTreeDef")
    kind = t.scalar(0, _nt.Int8Flags, LEAF)
    children = [_tree_from(c) for c in t.tables(1)]
    if kind == LEAF:
        return "*"
    if kind == NONE:
        return None
    if kind in (TUPLE, LIST):
        return {"node": "tuple" if kind == TUPLE else "list", "children": children}
    if kind == DICT:
        return {"node": "dict", "aux": t.strings(2), "children": children}
    if kind == CUSTOM:
        return {"node": "custom", "name": t.string(3), "children": children,
                "aux": t.numbers(4, _nt.Int8Flags).tobytes()}
    raise ValueError(f"Cannot deserialize PyTreeDef with unknown kind: {kind}")


def _aval_from(t: _T) -> dict:
    code = t.scalar(2, _nt.Int8Flags, 0)
    if code not in DTYPE_NAMES:
        raise ValueError(f"unknown dtype code {code}")
    return {"shape": t.strings(1), "dtype": DTYPE_NAMES[code],
            "memory_space": MEMORY_SPACES.get(t.scalar(3, _nt.Int8Flags, 0), "device")}


def _mesh_from(t: _T) -> dict:
    dev = t.table(3)
    device = None
    if dev is not None:
        device = {"device_kind": dev.string(0), "num_cores": dev.scalar(1, _nt.Uint32Flags, None),
                  "platform": dev.string(2)}
    return {"axis_sizes": t.numbers(0, _nt.Uint32Flags).tolist(), "axis_names": t.strings(1),
            "axis_types": [AXIS_TYPES[c] for c in t.numbers(2, _nt.Int8Flags).tolist()],
            "device": device}


def _named_sharding_from(t: _T, meshes) -> dict:
    if meshes:
        mesh = meshes[t.scalar(3, _nt.Uint32Flags, 0)]
    else:
        mesh = _mesh_from(t.table(0))
    spec = t.table(1)
    partitions = []
    for p in spec.tables(0):
        axes = p.strings(0)
        partitions.append(None if not axes else axes[0] if len(axes) == 1 else tuple(axes))
    return {"mesh": mesh, "spec": tuple(partitions), "reduced": spec.strings(1),
            "unreduced": spec.strings(2), "memory_kind": t.string(2)}


def _sharding_from(t: _T, meshes):
    named = t.table(2)
    if named is not None:
        return _named_sharding_from(named, meshes)
    if t.has(1):  # an HloSharding proto (exports before 3/2026): kept as bytes
        return {"hlo_sharding_proto": t.numbers(1, _nt.Int8Flags).tobytes()}
    return None


def _check_from(t: _T) -> str:
    kind = t.scalar(0, _nt.Int8Flags, CHECK_PLATFORM)
    if kind == CHECK_CUSTOM_CALL:
        return "custom_call:" + (t.string(1) or "")
    if kind == CHECK_PLATFORM:
        return "platform"
    raise ValueError(f"Cannot deserialize DisabledSafetyCheck with unknown kind: {kind}")


# -- writing --------------------------------------------------------------------------------------


def encode(d: dict) -> bytes:
    """The blob of an Exported given as plain data (the shape `decode` returns)."""
    require_flatbuffers()
    b = flatbuffers.Builder(65536)
    b.Finish(_write_exported(b, d))
    return bytes(b.Output())


def _offsets_vector(b, offsets) -> int:
    b.StartVector(4, len(offsets), 4)
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _strings(b, strings) -> int:
    return _offsets_vector(b, [b.CreateString(s) for s in strings])


def _numbers(b, values, dtype) -> int:
    return b.CreateNumpyVector(np.asarray(values, dtype=dtype).reshape(-1))


def _table(b, nfields, fields) -> int:
    """A table of `fields`: (slot, kind, value) with kind 'off' (an offset), or a scalar kind
    ('u16', 'i16', 'u32', 'i8', 'bool'); None values are left out."""
    prepend = {"u16": b.PrependUint16Slot, "i16": b.PrependInt16Slot, "u32": b.PrependUint32Slot,
               "i8": b.PrependInt8Slot, "bool": b.PrependBoolSlot,
               "off": b.PrependUOffsetTRelativeSlot}
    b.StartObject(nfields)
    for slot, kind, value in fields:
        if value is not None:
            prepend[kind](slot, value, 0 if kind != "bool" else False)
    return b.EndObject()


def _write_exported(b, d: dict) -> int:
    avals, aval_idx = [], {}
    for a in (*d["in_avals"], *d["out_avals"]):
        key = (tuple(a["shape"]), a["dtype"], a.get("memory_space", "device"))
        if key not in aval_idx:
            aval_idx[key] = len(avals)
            avals.append(a)
    shardings, sharding_idx, meshes, mesh_idx = [], {}, [], {}
    for s in (*d["in_shardings"], *d["out_shardings"]):
        if s is None:
            continue
        mkey = _mesh_key(s["mesh"])
        if mkey not in mesh_idx:
            mesh_idx[mkey] = len(meshes)
            meshes.append(s["mesh"])
        skey = _sharding_key(s)
        if skey not in sharding_idx:
            sharding_idx[skey] = len(shardings)
            shardings.append(s)

    fun_name = b.CreateString(d["fun_name"])
    in_tree = _write_tree(b, d["in_tree"])
    in_avals = _offsets_vector(b, [_write_aval(b, a) for a in d["in_avals"]])
    out_tree = _write_tree(b, d["out_tree"])
    out_avals = _offsets_vector(b, [_write_aval(b, a) for a in d["out_avals"]])
    in_sh = _offsets_vector(b, [_write_sharding(b, s, mesh_idx) for s in d["in_shardings"]])
    out_sh = _offsets_vector(b, [_write_sharding(b, s, mesh_idx) for s in d["out_shardings"]])
    ordered = _offsets_vector(b, [_write_effect(b, e) for e in d["ordered_effects"]])
    unordered = _offsets_vector(b, [_write_effect(b, e) for e in d["unordered_effects"]])
    checks = _offsets_vector(b, [_write_check(b, c) for c in d["disabled_checks"]])
    platforms = _strings(b, d["platforms"])
    module = b.CreateByteVector(bytes(d["module"]))
    kept = _numbers(b, d["module_kept_var_idx"], np.uint16)
    vjp = _write_exported(b, d["vjp"]) if d.get("vjp") is not None else None
    u_avals = _offsets_vector(b, [_write_aval(b, a) for a in avals])
    u_meshes = _offsets_vector(b, [_write_mesh(b, m) for m in meshes])
    u_named = _offsets_vector(b, [_write_named_sharding(b, s, mesh_idx) for s in shardings])

    def aval_idxs(avs):
        return _numbers(b, [aval_idx[(tuple(a["shape"]), a["dtype"], a.get("memory_space", "device"))]
                            for a in avs], np.uint32)

    def sharding_idxs(shs):
        return _numbers(b, [0 if s is None else 1 + sharding_idx[_sharding_key(s)] for s in shs],
                        np.uint32)
    in_aidx, out_aidx = aval_idxs(d["in_avals"]), aval_idxs(d["out_avals"])
    in_sidx, out_sidx = sharding_idxs(d["in_shardings"]), sharding_idxs(d["out_shardings"])
    return _table(b, 26, [
        (0, "u16", WRITTEN_SERIALIZATION_VERSION), (1, "off", fun_name), (2, "off", in_tree),
        (3, "off", in_avals), (4, "off", out_tree), (5, "off", out_avals),
        (18, "u32", d["nr_devices"]), (7, "off", in_sh), (8, "off", out_sh),
        (9, "off", platforms), (10, "off", ordered), (11, "off", unordered), (12, "off", checks),
        (13, "off", module), (14, "u16", d["calling_convention_version"]), (15, "off", kept),
        (16, "bool", bool(d["uses_global_constants"])), (17, "off", vjp),
        (19, "off", u_avals), (20, "off", u_meshes), (21, "off", u_named),
        (22, "off", in_aidx), (23, "off", out_aidx), (24, "off", in_sidx), (25, "off", out_sidx)])


def _write_tree(b, node) -> int:
    if node == "*":
        return _table(b, 5, [(0, "i8", LEAF)])
    if node is None:
        return _table(b, 5, [(0, "i8", NONE)])
    kids = [_write_tree(b, c) for c in node["children"]]
    children = _offsets_vector(b, kids) if kids else None
    kind = node["node"]
    if kind in ("tuple", "list"):
        return _table(b, 5, [(0, "i8", TUPLE if kind == "tuple" else LIST), (1, "off", children)])
    if kind == "dict":
        names = _strings(b, node["aux"]) if node["aux"] else None
        return _table(b, 5, [(0, "i8", DICT), (1, "off", children), (2, "off", names)])
    name = b.CreateString(node["name"])
    aux = b.CreateByteVector(bytes(node["aux"]))
    return _table(b, 5, [(0, "i8", CUSTOM), (1, "off", children), (3, "off", name),
                         (4, "off", aux)])


def _write_aval(b, a) -> int:
    shape = _strings(b, a["shape"])
    space = {"device": 1, "host": 2, "any": 3}[a.get("memory_space", "device")]
    return _table(b, 4, [(0, "i8", 0), (1, "off", shape), (2, "i8", DTYPES[a["dtype"]]),
                         (3, "i8", space)])


def _mesh_key(m):
    dev = m.get("device")
    return (tuple(m["axis_sizes"]), tuple(m["axis_names"]), tuple(m["axis_types"]),
            None if dev is None else tuple(sorted(dev.items())))


def _sharding_key(s):
    return (_mesh_key(s["mesh"]), repr(s["spec"]), tuple(s["reduced"]), tuple(s["unreduced"]),
            s["memory_kind"])


def _write_mesh(b, m) -> int:
    b.StartVector(4, len(m["axis_sizes"]), 4)
    for n in reversed(m["axis_sizes"]):
        b.PrependUint32(n)
    sizes = b.EndVector()
    names = _strings(b, m["axis_names"])
    b.StartVector(1, len(m["axis_types"]), 1)
    for t in reversed(m["axis_types"]):
        b.PrependByte(AXIS_TYPE_CODES[t])
    types = b.EndVector()
    device = None
    if m.get("device") is not None:
        dev = m["device"]
        kind, platform = b.CreateString(dev["device_kind"]), b.CreateString(dev["platform"])
        b.StartObject(3)
        b.PrependUOffsetTRelativeSlot(0, kind, 0)
        if dev["num_cores"] is not None:
            b.PrependUint32Slot(1, dev["num_cores"], None)
        b.PrependUOffsetTRelativeSlot(2, platform, 0)
        device = b.EndObject()
    return _table(b, 4, [(0, "off", sizes), (1, "off", names), (2, "off", types),
                         (3, "off", device)])


def _write_named_sharding(b, s, mesh_idx) -> int:
    mesh = _write_mesh(b, s["mesh"])
    parts = []
    for p in s["spec"]:
        axes = () if p is None else (p,) if isinstance(p, str) else tuple(p)
        parts.append(_table(b, 1, [(0, "off", _strings(b, axes))]))
    spec = _table(b, 3, [(0, "off", _offsets_vector(b, parts)),
                         (1, "off", _strings(b, s["reduced"])),
                         (2, "off", _strings(b, s["unreduced"]))])
    memory_kind = b.CreateString(s["memory_kind"]) if s["memory_kind"] is not None else None
    b.StartObject(4)
    b.PrependUOffsetTRelativeSlot(0, mesh, 0)
    b.PrependUOffsetTRelativeSlot(1, spec, 0)
    if memory_kind is not None:
        b.PrependUOffsetTRelativeSlot(2, memory_kind, 0)
    b.PrependUint32Slot(3, mesh_idx[_mesh_key(s["mesh"])], 0)
    return b.EndObject()


def _write_sharding(b, s, mesh_idx) -> int:
    named = _write_named_sharding(b, s, mesh_idx) if s is not None else None
    return _table(b, 3, [(2, "off", named)])


def _write_effect(b, type_name: str) -> int:
    return _table(b, 1, [(0, "off", b.CreateString(type_name))])


def _write_check(b, check: str) -> int:
    if check.startswith("custom_call:"):
        target = b.CreateString(check[len("custom_call:"):])
        return _table(b, 2, [(0, "i8", CHECK_CUSTOM_CALL), (1, "off", target)])
    if check == "platform":
        return _table(b, 2, [(0, "i8", CHECK_PLATFORM)])
    raise NotImplementedError(f"serializing DisabledSafetyCheck: {check}")

