"""`jax.scipy.spatial.transform`: 3-D rotations stored as unit quaternions (x, y, z, w) and
spherical linear interpolation between them (SciPy's `Rotation` and `Slerp`, as JAX 0.10.2
has them: NamedTuples, hence pytrees).

NB: JAX writes the quaternion helpers per rotation and maps them with jnp.vectorize; here they
work on the last axis of (..., 4) arrays directly (the same formulas, batched by broadcasting).
"""
from __future__ import annotations

import re
import typing

import numpy as np

from pyjax._src.numpy import array_methods  # noqa: F401  (the code below uses Array operators)
from pyjax._src.numpy import creation, reductions as jred, ufuncs as jnp
from pyjax._src.numpy import linalg as jnp_linalg
from pyjax._src.numpy.lax_numpy import where
from pyjax._src.numpy.linalg_ops import dot, matmul
from pyjax._src.numpy.shape import atleast_1d, concatenate, stack, swapaxes
from pyjax._src.numpy.sorting import searchsorted

_AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


def _axis_index(axis):
    if axis not in _AXIS_INDEX:
        raise ValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")
    return _AXIS_INDEX[axis]


def _check_seq(seq):
    """Whether `seq` is intrinsic (upper case) after checking it names valid axes."""
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError(f"Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], got {seq}")
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic


# -- quaternion arithmetic on (..., 4) arrays ----------------------------------------------------

def _norm(v):
    return jnp.sqrt(jred.sum(v * v, axis=-1))


def _normalize(quat):
    return quat / _norm(quat)[..., None]


def _compose(p, q):
    """The quaternion product p q (rotation q, then p)."""
    px, py, pz, pw = (p[..., i] for i in range(4))
    qx, qy, qz, qw = (q[..., i] for i in range(4))
    cross = (py * qz - pz * qy, pz * qx - px * qz, px * qy - py * qx)
    return stack([pw * qx + qw * px + cross[0], pw * qy + qw * py + cross[1],
                  pw * qz + qw * pz + cross[2], pw * qw - px * qx - py * qy - pz * qz], axis=-1)


def _as_matrix(quat):
    x, y, z, w = (quat[..., i] for i in range(4))
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    rows = [[x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2]]
    return stack([stack(r, axis=-1) for r in rows], axis=-2)


def _as_mrp(quat):
    sign = where(quat[..., 3] < 0, -1.0, 1.0)
    return sign[..., None] * quat[..., :3] / (1.0 + sign * quat[..., 3])[..., None]


def _as_rotvec(quat, degrees):
    quat = where((quat[..., 3] < 0)[..., None], -quat, quat)
    angle = 2.0 * jnp.arctan2(_norm(quat[..., :3]), quat[..., 3])
    angle2 = angle * angle
    small = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880  # (Taylor series near the identity)
    scale = where(angle <= 1e-3, small, angle / jnp.sin(angle / 2))
    if degrees:
        scale = jnp.rad2deg(scale)
    return scale[..., None] * quat[..., :3]


def _from_rotvec(rotvec, degrees):
    if degrees:
        rotvec = jnp.deg2rad(rotvec)
    angle = _norm(rotvec)
    angle2 = angle * angle
    small = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
    scale = where(angle <= 1e-3, small, jnp.sin(angle / 2) / angle)
    return concatenate([scale[..., None] * rotvec, jnp.cos(angle / 2)[..., None]], axis=-1)


def _from_matrix(matrix):
    """Shepperd's method: build the quaternion from its largest component for accuracy."""
    diag = [matrix[..., i, i] for i in range(3)]
    trace = diag[0] + diag[1] + diag[2]
    decision = stack(diag + [trace], axis=-1)
    choice = jred.argmax(decision, axis=-1)
    m = lambda r, c: matrix[..., r, c]  # noqa: E731
    candidates = []
    for i in range(3):  # the quaternion when the i-th diagonal entry is the largest
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [None] * 4
        q[i] = 1 - trace + 2 * m(i, i)
        q[j] = m(j, i) + m(i, j)
        q[k] = m(k, i) + m(i, k)
        q[3] = m(k, j) - m(j, k)
        candidates.append(stack(q, axis=-1))
    candidates.append(stack([m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1), 1 + trace], axis=-1))
    quat = candidates[3]
    for i in range(3):
        quat = where((choice == i)[..., None], candidates[i], quat)
    return _normalize(quat)


def _from_mrp(mrp):
    sq_plus_1 = jred.sum(mrp * mrp, axis=-1) + 1
    return concatenate([2 * mrp[..., :3], (2 - sq_plus_1)[..., None]], axis=-1) / sq_plus_1[..., None]


def _elementary(axis, angle):
    """The quaternion of a rotation by `angle` about the basis `axis` (0, 1 or 2)."""
    # (zeros of the angle's dtype, strongly typed: a Python-number angle gives a float32 rotation)
    parts = [creation.zeros(np.shape(angle), dtype=angle.dtype)] * 3 + [jnp.cos(angle / 2.0)]
    parts[axis] = jnp.sin(angle / 2.0)
    return stack(parts, axis=-1)


def _make_canonical(quat):
    """-quat when its first nonzero component among (w, x, y, z) is negative."""
    neg, zero = quat < 0, quat == 0
    flip = (neg[..., 3] | (zero[..., 3] & neg[..., 0]) | (zero[..., 3] & zero[..., 0] & neg[..., 1])
            | (zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2]))
    return where(flip[..., None], -quat, quat)


def _euler_from_quat(quat, axes, extrinsic, degrees):
    """Euler angles for the axis sequence `axes` (three of 0, 1, 2), by Bernardes and Viollet's
    quaternion method (as SciPy)."""
    first, third = (0, 2) if extrinsic else (2, 0)
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    q = [quat[..., n] for n in range(4)]
    if symmetric:
        a, b, c, d = q[3], q[i], q[j], q[k] * sign
    else:
        a, b, c, d = q[3] - q[j], q[i] + q[k] * sign, q[j] + q[3], q[k] * sign - q[i]
    eps = 1e-7
    angles = [None] * 3
    angles[1] = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
    case = where(jnp.abs(angles[1] - np.pi) <= eps, 2, 0)
    case = where(jnp.abs(angles[1]) <= eps, 1, case)
    half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
    # degenerate cases (gimbal lock) put the whole rotation in angle 0; JAX then overwrites
    # the first/third angle in the regular case, and angle 0 keeps its value otherwise
    angles[0] = where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    regular = case == 0
    if first == 0:
        angles[0] = where(regular, half_sum - half_diff, angles[0])
        angles[2] = where(regular, half_sum + half_diff, creation.zeros_like(angles[1]))
    else:
        angles[2] = where(regular, half_sum - half_diff, creation.zeros_like(angles[1]))
        angles[0] = where(regular, half_sum + half_diff, angles[0])
    if not symmetric:
        angles[third] = angles[third] * sign
        angles[1] = angles[1] - np.pi / 2
    out = (stack(angles, axis=-1) + np.pi) % (2 * np.pi) - np.pi
    return jnp.rad2deg(out) if degrees else out


class Rotation(typing.NamedTuple):
    """A rotation, or a batch of rotations (quat of shape (4,) or (n, 4)).

    >>> import pyjax.numpy as jnp
    >>> r = Rotation.from_euler("z", jnp.pi / 2)
    >>> jnp.round(r.apply(jnp.array([1., 0., 0.])), 6)
    Array([0., 1., 0.], dtype=float32)
    """
    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations):
        return cls(concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq, angles, degrees=False):
        if not 1 <= len(seq) <= 3:
            raise ValueError(f"Expected axis specification to be a non-empty string of upto 3 "
                             f"characters, got {seq}")
        intrinsic = _check_seq(seq)
        angles = atleast_1d(creation.asarray(angles))
        if angles.shape[-1] != len(seq):
            raise ValueError(f"Rotation.from_euler: inconsistent size for core dimension 'm': "
                             f"{len(seq)} axes vs angles of shape {angles.shape}")
        if degrees:
            angles = jnp.deg2rad(angles)
        axes = [_axis_index(a) for a in seq.lower()]
        result = _elementary(axes[0], angles[..., 0])
        for n in range(1, len(axes)):
            q = _elementary(axes[n], angles[..., n])
            result = _compose(result, q) if intrinsic else _compose(q, result)
        return cls(result)

    @classmethod
    def from_matrix(cls, matrix):
        return cls(_from_matrix(creation.asarray(matrix)))

    @classmethod
    def from_mrp(cls, mrp):
        return cls(_from_mrp(creation.asarray(mrp)))

    @classmethod
    def from_quat(cls, quat):
        return cls(_normalize(creation.asarray(quat)))

    @classmethod
    def from_rotvec(cls, rotvec, degrees=False):
        return cls(_from_rotvec(creation.asarray(rotvec), degrees))

    @classmethod
    def identity(cls, num=None, dtype=float):
        if num is not None:
            raise ValueError("Rotation.identity: num is not supported (one rotation only, as JAX)")
        return cls(creation.array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key, num=None):
        raise NotImplementedError("Rotation.random is not implemented (as in JAX)")

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other):
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors, inverse=False):
        """The rotated vectors (shape (..., 3)); inverse=True applies the inverse rotation."""
        matrix = self.as_matrix()
        if inverse:
            matrix = swapaxes(matrix, -1, -2)
        return matmul(matrix, creation.asarray(vectors)[..., None])[..., 0]

    def as_euler(self, seq, degrees=False):
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        intrinsic = _check_seq(seq)
        return _euler_from_quat(self.quat, [_axis_index(a) for a in seq.lower()], not intrinsic, degrees)

    def as_matrix(self):
        return _as_matrix(self.quat)

    def as_mrp(self):
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees=False):
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical=False, scalar_first=False):
        quat = _make_canonical(self.quat) if canonical else self.quat
        if scalar_first:
            return concatenate([quat[..., 3:], quat[..., :3]], axis=-1)
        return quat

    def inv(self):
        # (the vector part negated without broadcasting a sign vector: no rank promotion, which
        # jax_numpy_rank_promotion='raise' would refuse)
        return Rotation(concatenate([-self.quat[..., :3], self.quat[..., 3:]], axis=-1))

    def magnitude(self):
        return 2.0 * jnp.arctan2(_norm(self.quat[..., :3]), jnp.abs(self.quat[..., 3]))

    def mean(self, weights=None):
        """The weighted mean rotation: the top eigenvector of sum_i w_i q_i q_i^T."""
        w = (creation.ones(self.quat.shape[0], dtype=self.quat.dtype) if weights is None
             else creation.asarray(weights, dtype=self.quat.dtype))
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError(f"Expected `weights` to have number of values equal to number of "
                             f"rotations, got {w.shape[0]} values and {len(self)} rotations.")
        _, v = jnp_linalg.eigh(dot(w[None, :] * self.quat.T, self.quat))
        return Rotation(v[:, -1])

    @property
    def single(self):
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation of rotations at increasing `times` (build with
    Slerp.init(times, rotations))."""
    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations):
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = creation.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError(f"Expected times to be specified in a 1 dimensional array, got "
                             f"{times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError(f"Expected number of rotations to be equal to number of timestamps "
                             f"given, got {len(rotations)} rotations and {times.shape[0]} timestamps.")
        starts = Rotation(rotations.as_quat()[:-1])
        steps = (starts.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec()
        return cls(times=times, timedelta=times[1:] - times[:-1], rotations=starts, rotvecs=steps)

    def __call__(self, times):
        t = creation.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single = t.ndim == 0
        t = atleast_1d(t)
        ind = jnp.maximum(searchsorted(self.times, t) - 1, 0)
        alpha = (t - self.times[ind]) / self.timedelta[ind]
        result = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return result[0] if single else result
