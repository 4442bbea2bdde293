"""`device_put` inside traced code (JAX's `device_put` primitive): values moved to another
memory of their devices, named by a MemorySpace (`MemorySpace.Host`: the devices' `pinned_host`
memory) or by a sharding's memory kind. The results are typed in the new memory space
(`f32<host>[4,4]`); gradients move the cotangents back where the values came from. The
checkpoint policies that offload residuals bind it (ad_checkpoint.py).

As in JAX the lowering is the identity: XLA places the module's arguments and results (their
`mhlo.memory_kind`, dispatch), and on CPU every memory is host memory anyway.

    >>> device_put_p.bind(x, devices=(core.MemorySpace.Host,), srcs=(None,),
    ...                   copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,))
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.array import ArrayImpl, put_named
from pyjax._src.backend import xla
from pyjax._src.interpreters.ad import Zero, instantiate, is_undefined_primal, tangent_aval
from pyjax._src.mesh import enable_typed_avals
from pyjax._src.sharding import NamedSharding, Sharding, SingleDeviceSharding, xla_memory_kind

ArrayCopySemantics = xla._jax.ArrayCopySemantics  # (jaxlib's enum, which JAX's params hold)

device_put_p = core.Primitive("device_put", multiple_results=True)


def _placed_aval(aval, d):
    """`aval` moved to `d`: a MemorySpace, or a sharding (its memory kind's space)."""
    if type(aval) is not core.ShapedArray:
        return aval
    if isinstance(d, Sharding) and getattr(d, "memory_kind", None) is not None:
        d = core.mem_kind_to_space(d.memory_kind)
    if not isinstance(d, core.MemorySpace):
        return aval
    if d is not core.MemorySpace.Device:  # the primitives' memory space rules apply from now
        enable_typed_avals()
    return aval.update(memory_space=d)


device_put_p.def_abstract_eval(
    lambda *avals, devices, srcs, copy_semantics: [_placed_aval(a, d)
                                                   for a, d in zip(avals, devices, strict=True)])


def _memory_kind(d):
    if isinstance(d, core.MemorySpace):
        return None if d is core.MemorySpace.Device else core.mem_space_to_kind(d)
    return getattr(d, "memory_kind", None)


def put_in_memory(x: ArrayImpl, d) -> ArrayImpl:
    """The array `x` on its own devices, in the memory `d` names (a MemorySpace or a sharding's
    memory kind), typed so."""
    aval = _placed_aval(core.get_aval(x), d)
    named = x._named_sharding
    if named is not None:
        return put_named(x, named.with_memory_kind(_memory_kind(d) or "device"))
    device = xla.buffer_devices(x)[0]
    kind = xla_memory_kind(_memory_kind(d), device)
    if kind == xla_memory_kind(xla.memory_kind_of(x), device):
        return x
    plain = core.ShapedArray(aval.shape, aval.dtype, aval.weak_type,
                             memory_space=aval.memory_space)
    return xla.put(x._value, device, plain, committed=x._committed, memory_kind=kind)


def _impl(*xs, devices, srcs, copy_semantics):
    out = []
    for x, d in zip(xs, devices, strict=True):
        if isinstance(d, (core.MemorySpace, SingleDeviceSharding, NamedSharding)) and \
                type(x) is ArrayImpl:
            out.append(put_in_memory(x, d))
        else:
            out.append(x)
    return out


device_put_p.def_impl(_impl)
device_put_p.np_impl = lambda *xs, devices, srcs, copy_semantics: [np.asarray(x) for x in xs]


def _jvp(primals, tangents, **params):
    outs = device_put_p.bind(*primals, **params)
    t_outs = [Zero(tangent_aval(core.get_aval(o))) for o in outs]
    nz = [i for i, t in enumerate(tangents) if type(t) is not Zero]
    if nz:  # the nonzero tangents move as their primals do
        moved = device_put_p.bind(*[tangents[i] for i in nz],
                                  **{k: tuple(v[i] for i in nz) for k, v in params.items()})
        for i, m in zip(nz, moved, strict=True):
            t_outs[i] = m
    return outs, t_outs


def _transpose(cts, *args, devices, srcs, copy_semantics):
    """Each cotangent goes back to the memory its primal came from (its src, else its type's
    memory space), as JAX's rule."""
    out = [None] * len(args)
    for i, (ct, a, d, s, cp) in enumerate(zip(cts, args, devices, srcs, copy_semantics,
                                              strict=True)):
        if not is_undefined_primal(a):
            continue
        if type(ct) is Zero:
            out[i] = Zero(a.aval)
            continue
        back = s if s is not None else a.aval.memory_space
        out[i] = device_put_p.bind(instantiate(ct), devices=(back,), srcs=(d,),
                                   copy_semantics=(cp,))[0]
    return out


device_put_p.def_jvp(_jvp)
device_put_p.def_transpose(_transpose)
device_put_p.def_batch(lambda axis_size, args, dims, **params: (
    device_put_p.bind(*args, **params), list(dims)))
device_put_p.def_lowering(lambda ctx, *xs, devices, srcs, copy_semantics: list(xs))
