"""`jax.scipy.stats.gaussian_kde`: a kernel density estimate with Gaussian kernels whose
covariance is the data's (weighted) covariance scaled by a bandwidth factor (Scott's or
Silverman's rule, a scalar or a callable), as SciPy's; a pytree, so it passes through jit."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pyjax._src import dtypes
from pyjax._src.api_vmap import vmap
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.numpy import creation, reductions as jred, ufuncs as jnp
from pyjax._src.numpy import linalg as jnp_linalg
from pyjax._src.numpy.lax_numpy import diagonal, isscalar
from pyjax._src.numpy.linalg_ops import dot
from pyjax._src.numpy.shape import atleast_1d, atleast_2d, reshape, squeeze
from pyjax._src.numpy.statistics import cov as jnp_cov
from pyjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from pyjax._src.pjit import jit
from pyjax._src.random import keys as random_keys
from pyjax._src.random import samplers as random
from pyjax._src.scipy import special
from pyjax._src.tree_util import register_pytree_node_class


@register_pytree_node_class
@dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
    """A Gaussian kernel density estimate of `dataset` (shape (d, n): n points in d dimensions,
    or (n,) for d = 1), optionally weighted.

    >>> import pyjax.numpy as jnp, pyjax.scipy.stats as stats
    >>> kde = stats.gaussian_kde(jnp.array([0., 1., 3.]))
    >>> kde.d, kde.n
    (1, 3)
    """
    neff: Any
    dataset: Any
    weights: Any
    covariance: Any
    inv_cov: Any

    def __init__(self, dataset, bw_method=None, weights=None):
        check_arraylike("gaussian_kde", dataset)
        dataset = atleast_2d(dataset)
        if dtypes.issubdtype(dataset.dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact(dataset, weights)
            weights = atleast_1d(weights)
            weights = weights / jred.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            dataset, = promote_dtypes_inexact(dataset)
            weights = creation.full(n, 1.0 / n, dtype=dataset.dtype)
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", 1 / jred.sum(weights ** 2))
        factor = self._bandwidth_factor("scott" if bw_method is None else bw_method, neff, d)
        data_cov = atleast_2d(jnp_cov(dataset, rowvar=1, bias=False, aweights=weights))
        self._set("covariance", data_cov * factor ** 2)
        self._set("inv_cov", jnp_linalg.inv(data_cov) / factor ** 2)

    def _bandwidth_factor(self, bw_method, neff, d):
        if isinstance(bw_method, str) and bw_method == "scott":
            return jnp.power(neff, -1.0 / (d + 4))
        if isinstance(bw_method, str) and bw_method == "silverman":
            return jnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        if isscalar(bw_method) and not isinstance(bw_method, str):
            return bw_method
        if callable(bw_method):
            return bw_method(self)
        raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")

    def _set(self, name, value):
        object.__setattr__(self, name, value)  # (frozen: fields are set once, here)
        return value

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"), children,
                               strict=True):
            kde._set(name, value)
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The density at `points` (shape (d, m), or (m,) when d = 1)."""
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _kernel_sum(False, self.dataset.T, self.weights[:, None], points.T, self.inv_cov)[:, 0]

    __call__ = evaluate
    pdf = evaluate

    def logpdf(self, x):
        """The log-density at `x`, summed in log space (accurate far from the data)."""
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _kernel_sum(True, self.dataset.T, self.weights[:, None], x.T, self.inv_cov)[:, 0]

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the Gaussian N(mean, cov)."""
        mean = atleast_1d(squeeze(mean))
        cov = atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = lax_linalg.cholesky(self.covariance + cov)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jred.prod(diagonal(chol)))
        return _gaussian_convolve(chol, norm, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low, high):
        """The probability mass in [low, high] (one-dimensional estimates only)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        return _integrate_box_1d(self, low, high)

    def integrate_kde(self, other):
        """The integral of the product of two estimates' densities."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = lax_linalg.cholesky(self.covariance + other.covariance)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jred.prod(diagonal(chol)))
        small, large = (self, other) if self.n < other.n else (other, self)
        per_point = vmap(lambda m: _gaussian_convolve(chol, norm, large.dataset, large.weights, m),
                         in_axes=1)(small.dataset)
        return jred.sum(per_point * small.weights)

    def resample(self, key, shape=()):
        """Samples of shape (d, *shape): a data point drawn by weight, plus kernel noise."""
        return _resample(self, key, tuple(shape))

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points):
        if dtypes.issubdtype(dtypes.dtype_of(points), np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


@jit
def _integrate_box_1d(kde, low, high):
    sigma = squeeze(jnp.sqrt(kde.covariance))
    low = squeeze((low - kde.dataset) / sigma)
    high = squeeze((high - kde.dataset) / sigma)
    return jred.sum(kde.weights * (special.ndtr(high) - special.ndtr(low)))


def _resample_impl(kde, key, shape):
    ind_key, eps_key = random_keys.split(key)
    ind = random.choice(ind_key, kde.n, shape=shape, p=kde.weights)
    eps = random.multivariate_normal(eps_key, creation.zeros(kde.d, kde.covariance.dtype),
                                     kde.covariance, shape=shape, dtype=kde.dataset.dtype).T
    return kde.dataset[:, ind] + eps


_resample = jit(_resample_impl, static_argnums=(2,))


def _cho_solve(chol, b):
    """(L L^T)^-1 b for the lower Cholesky factor L."""
    y = lax_linalg.triangular_solve(chol, b, left_side=True, lower=True)
    return lax_linalg.triangular_solve(chol, y, left_side=True, lower=True, transpose_a=True)


def _gaussian_convolve(chol, norm, target, weights, mean):
    diff = target - mean[:, None]
    arg = 0.5 * jred.sum(diff * _cho_solve(chol, diff), axis=0)
    return norm * jred.sum(jnp.exp(-arg) * weights)


def _kernel_sum_impl(in_log, points, values, xi, precision):
    """sum_j values_j N(xi_i; points_j, precision^-1), or its log, for each row xi_i."""
    points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = lax_linalg.cholesky(precision)  # (lower): distances become Euclidean
    points, xi = dot(points, whitening), dot(xi, whitening)
    log_norm = jred.sum(jnp.log(diagonal(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

    def kernel(x_test, x_train, y_train):
        arg = log_norm - 0.5 * jred.sum(jnp.square(x_train - x_test))
        return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)

    reduce = special.logsumexp if in_log else jred.sum
    return vmap(lambda x: reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values), axis=0))(xi)


_kernel_sum = jit(_kernel_sum_impl, static_argnums=0)
