"""Attention and block-scaled matmuls of `jax.nn`: `dot_product_attention` (JAX's "xla"
implementation: masks, bias, causal and local windows, padding by sequence lengths, grouped-query
heads), and `scaled_matmul` / `scaled_dot_general` / `get_scaled_dot_general_config`, which JAX
runs only as cuDNN custom calls on NVIDIA GPUs.
"""
from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.dot_general import dot_general
from pyjax._src.nn.functions import logsumexp, softmax
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import ufuncs as jnp
from pyjax._src.numpy.creation import arange, asarray
from pyjax._src.numpy.lax_numpy import where
from pyjax._src.numpy.linalg_ops import einsum


# -- dot_product_attention -----------------------------------------------------------------------
# Shapes, in JAX's letters: B batch, T query length, S key/value length, N query heads,
# K key/value heads, G = N // K query heads per key/value head, H head dimension.


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal=False,
                          query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual=False):
    """softmax(Q K^T * scale + bias) V per head, for (B, T, N, H) queries and (B, S, K, H) keys
    and values (the batch axis may be left out); K < N key/value heads are shared by groups of
    N // K query heads (GQA/MQA).

    `mask` (boolean, True = attend) and `bias` are 4-D, broadcastable to (B, N, T, S);
    `is_causal`, `local_window_size` (left, right) and the per-example sequence lengths add
    masks of their own. `return_residual` also returns the log-sum-exp of the logits, (B, T, N).

    Example:
        >>> q = jnp.ones((2, 3, 4, 8)); k = v = jnp.ones((2, 5, 2, 8))
        >>> nn.dot_product_attention(q, k, v, is_causal=True).shape
        (2, 3, 4, 8)
    """
    output_shape = core.get_aval(asarray(query)).shape
    query, key, value = (_as_4d(t) for t in (query, key, value))
    bias = None if bias is None else _as_4d(bias)
    mask = None if mask is None else _as_4d(mask)
    q_seqlen = None if query_seq_lengths is None else asarray(query_seq_lengths)
    kv_seqlen = None if key_value_seq_lengths is None else asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    _check_attention_args(query, key, value, bias, mask, q_seqlen, kv_seqlen)
    head_dim = _shape(key)[3]
    scale = 1.0 / np.sqrt(head_dim) if scale is None else scale
    if implementation == "cudnn":
        raise RuntimeError("dot_product_attention(implementation='cudnn'): cuDNN is not detected; "
                           "pyjax has no cuDNN fused attention (use implementation='xla' or None)")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation!r} "
                         f"(dot_product_attention accepts None, 'xla' or 'cudnn')")
    out = _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                         local_window_size, return_residual)
    if return_residual:
        encoded, residual = out
        return shape_ops.reshape(encoded, output_shape), shape_ops.reshape(residual, output_shape[:-1])
    return shape_ops.reshape(out, output_shape)


def _shape(x):
    return core.get_aval(x).shape


def _as_4d(t):
    t = asarray(t)
    missing = 4 - len(_shape(t))
    return shape_ops.expand_dims(t, tuple(range(missing))) if missing > 0 else t


def _check_attention_args(query, key, value, bias, mask, q_seqlen, kv_seqlen):
    B, S, K, H = _shape(key)
    key_dtype = core.get_aval(key).dtype
    _check_arg("value", value, (B, S, K, H), key_dtype)
    _check_arg("query", query, (B, -1, -1, H), key_dtype)
    _check_arg("mask", mask, (-1,) * 4, np.dtype(bool))
    _check_arg("bias", bias, (-1,) * 4, None)
    _check_arg("query_seq_lengths", q_seqlen, (B,), np.dtype(np.int32))
    _check_arg("key_value_seq_lengths", kv_seqlen, (B,), np.dtype(np.int32))
    num_heads = _shape(query)[2]
    if num_heads % K:
        raise ValueError(f"dot_product_attention: the number of query heads must be a multiple of "
                         f"the number of key/value heads, but got {num_heads} vs {K}")


def _check_arg(name, t, shape, dtype):
    """`t` has rank len(shape), the given dims (-1: any) and `dtype` (None: any)."""
    if t is None:
        return
    aval = core.get_aval(t)
    if aval.ndim != len(shape):
        raise ValueError(f"dot_product_attention: {name} ndim should be {len(shape)}, but got {aval.ndim}")
    if dtype is not None and aval.dtype != dtype:
        raise ValueError(f"dot_product_attention: {name} dtype should be {dtype}, but got {aval.dtype}")
    if any(want != -1 and got != want for got, want in zip(aval.shape, shape)):
        raise ValueError(f"dot_product_attention: {name} shape should be {tuple(shape)} (-1: any "
                         f"size), but got {aval.shape}")


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                   local_window_size, return_residual):
    """The attention of every query head, its group axis G explicit: queries (B, T, K, G, H)
    against keys (B, S, K, H). (JAX vmaps a per-group function over G; the dot products and
    reductions are the same.)"""
    B, T, N, H = _shape(query)
    K = _shape(key)[2]
    G = N // K
    query = shape_ops.reshape(query, (B, T, K, G, H))
    bias, mask = _grouped(bias, K, G), _grouped(mask, K, G)
    query_dtype, key_dtype = core.get_aval(query).dtype, core.get_aval(key).dtype
    # NB: JAX asks XLA for the BF16_BF16_F32 / F16_F16_F32 dot algorithm for half-precision
    # queries; preferred_element_type=float32 computes the same products and f32 sums.
    logits_dtype = dtypes.promote_types(query_dtype, np.float32)
    logits = einsum("BTKGH,BSKH->BKGTS", query, key, preferred_element_type=logits_dtype)
    logits = logits * np.array(scale, logits_dtype)
    if bias is not None:
        logits = lax.convert_element_type(logits + bias, logits_dtype)
    logits = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size)
    logits = lax.convert_element_type(logits, np.float32)
    probs = lax.convert_element_type(softmax(logits, axis=-1), key_dtype)
    encoded = einsum("BKGTS,BSKH->BTKGH", probs, value)
    if q_seqlen is not None:  # padded query rows give zeros
        rows = arange(T)[None, :] < q_seqlen[:, None]
        encoded = encoded * lax.convert_element_type(rows[:, :, None, None, None], core.get_aval(encoded).dtype)
    encoded = shape_ops.reshape(encoded, (B, T, N, H))
    if not return_residual:
        return encoded
    lse = lax.convert_element_type(logsumexp(logits, axis=-1), key_dtype)     # (B, K, G, T)
    lse = shape_ops.reshape(shape_ops.transpose(lse, (0, 3, 1, 2)), (B, T, N))
    return encoded, shape_ops.stop_gradient(lse)


def _grouped(t, K, G):
    """A (B|1, N|1, T|1, S|1) bias or mask as (B|1, K|1, G|1, T|1, S|1), heads split by group."""
    if t is None:
        return None
    tB, tN, tT, tS = _shape(t)
    if tN == 1:
        return shape_ops.expand_dims(t, (2,))
    return shape_ops.reshape(t, (tB, K, G, tT, tS))


def _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size):
    """Masked-out logits become a large negative number (not -inf: a fully masked row then
    averages its values instead of giving NaN, as in JAX)."""
    T, S = _shape(logits)[-2:]
    masks = [] if mask is None else [mask]
    if is_causal:
        masks.append(_causal_mask(T, S))
    if local_window_size is not None:
        masks.append(_window_mask(T, S, local_window_size))
    if q_seqlen is not None or kv_seqlen is not None:
        masks.append(_padding_mask(T, S, q_seqlen, kv_seqlen))
    if not masks:
        return logits
    combined = masks[0]
    for m in masks[1:]:
        combined = jnp.logical_and(combined, m)
    return where(combined, logits, _large_negative(core.get_aval(logits).dtype))


def _large_negative(dtype):
    top = min(float(dtypes.finfo(dtype).max), float(np.finfo(np.float32).max))
    return np.array(-0.7 * top, dtype)


def _causal_mask(T, S):
    """Query t attends to keys s <= t (the lower triangle of a T x S grid)."""
    return (arange(T)[:, None] >= arange(S)[None, :])[None, None, None]


def _window_mask(T, S, window):
    """Query t attends to keys s with t - left <= s <= t + right."""
    left, right = window
    t, s = arange(T)[:, None], arange(S)[None, :]
    return jnp.logical_and(t <= s + left, t >= s - right)[None, None, None]


def _padding_mask(T, S, q_seqlen, kv_seqlen):
    """Per example: queries and keys beyond their sequence lengths take no part."""
    m = np.ones((1, 1, 1), bool)
    if q_seqlen is not None:
        m = jnp.logical_and(m, arange(T)[None, :, None] < q_seqlen[:, None, None])
    if kv_seqlen is not None:
        m = jnp.logical_and(m, arange(S)[None, None, :] < kv_seqlen[:, None, None])
    return m[:, None, None]   # (B, 1, 1, T, S)


# -- block-scaled matmuls ------------------------------------------------------------------------


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
    """How `scaled_dot_general` quantizes an operand: blocks of `block_size` elements of
    `data_type` share one scale of `scale_type` (nvfp4 adds a global scale)."""
    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


_NO_BLOCK_SCALED_MATMUL = (
    "{fn}: block-scaled matmuls run as cuDNN custom calls on NVIDIA GPUs, which pyjax does not "
    "emit, so there is no lowering for this platform (JAX 0.10.2 raises NotImplementedError on "
    "CPU as well)")


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """Block-scaled matmul of (B, M, K) and (B, N, K) operands with (B, M, K/blk) and
    (B, N, K/blk) scales: einsum('BMK,BNK->BMN', lhs * scales, rhs * scales).

    The shapes are checked as JAX checks them; the computation itself needs cuDNN (see
    `_NO_BLOCK_SCALED_MATMUL`) and raises NotImplementedError.
    """
    shapes = [_shape(asarray(t)) for t in (lhs, rhs, lhs_scales, rhs_scales)]
    if any(len(s) != 3 for s in shapes):
        raise ValueError(f"scaled_matmul requires all inputs to be 3-dimensional arrays, got "
                         f"shapes {shapes}")
    (Ba, Ma, Ka), (Bb, Nb, Kb), (Bas, Mas, Kas), (Bbs, Nbs, Kbs) = shapes
    if Ka != Kb or Ba != Bb:
        raise ValueError(f"scaled_matmul requires inputs a and b to have matching batch (B) and "
                         f"contract (K) dimensions, but got shapes {shapes[0]} and {shapes[1]}")
    if Kas != Kbs or Bas != Bbs:
        raise ValueError(f"scaled_matmul requires scales to have matching batch (B) and contract "
                         f"(K) dimensions, but got shapes {shapes[2]} and {shapes[3]}")
    if Mas != Ma or Nbs != Nb:
        raise ValueError(f"scaled_matmul requires scales to match non-contract dimensions of "
                         f"inputs, but got shapes a: {shapes[0]}, b: {shapes[1]}, a_scales: "
                         f"{shapes[2]}, b_scales: {shapes[3]}")
    dtypes.check_and_canonicalize_user_dtype(preferred_element_type, "scaled_matmul")
    raise NotImplementedError(_NO_BLOCK_SCALED_MATMUL.format(fn="scaled_matmul"))


def get_scaled_dot_general_config(mode, global_scale=None):
    """The BlockScaleConfig of `mode`: 'mxfp8' (float8_e4m3fn data, float8_e8m0fnu scales per 32
    elements) or 'nvfp4' (float4_e2m1fn data, float8_e4m3fn scales per 16, a global scale)."""
    if mode == "nvfp4":
        return BlockScaleConfig(mode="nvfp4", block_size=16, data_type=dtypes.float4_e2m1fn,
                                scale_type=dtypes.float8_e4m3fn,
                                global_scale=asarray(np.ones((1,), np.float32)) if global_scale is None else global_scale,
                                infer_only=False)
    if mode == "mxfp8":
        return BlockScaleConfig(mode="mxfp8", block_size=32, data_type=dtypes.float8_e4m3fn,
                                scale_type=dtypes.float8_e8m0fnu, global_scale=None, infer_only=False)
    raise ValueError(f"Unsupported mode: {mode!r} (get_scaled_dot_general_config accepts 'nvfp4' "
                     f"or 'mxfp8')")


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """`lax.dot_general` with block-scaled quantization of both operands per `configs` (from
    `get_scaled_dot_general_config`); `configs=None` is a plain dot_general.

    The quantized form needs cuDNN and raises NotImplementedError (see `scaled_matmul`).
    """
    if implementation is not None:
        warnings.warn("scaled_dot_general: `implementation` is deprecated and ignored (the "
                      "backend is chosen automatically)", DeprecationWarning, stacklevel=2)
    if configs is None:
        return dot_general(lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type)
    raise NotImplementedError(_NO_BLOCK_SCALED_MATMUL.format(fn="scaled_dot_general"))
