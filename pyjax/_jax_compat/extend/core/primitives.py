"""`jax.extend.core.primitives`: pyjax's primitive objects under JAX's names (numpyro's
provenance tracking keys rules on `jit_p`, `call_p`, `closed_call_p`).

NB: pyjax's jaxprs have no call equations (they call through `jit` only): binding `call_p` /
`closed_call_p` runs the called function (or jaxpr) in line, under whatever trace is current,
which is what a call means. There are no effect tokens, state primitives or key-typed random
primitives: those names are Primitives that no pyjax jaxpr holds."""
from pyjax._src.core import Primitive, eval_jaxpr
from pyjax._src.ad_checkpoint import checkpoint_p as remat_p
from pyjax._src.interpreters.ad import add_any_p as add_jaxvals_p
from pyjax._src.pjit import pjit_p as jit_p
from pyjax._src.ad_checkpoint import name_p as name_p
from pyjax._src.custom_derivatives import custom_jvp_call_p as custom_jvp_call_p
from pyjax._src.custom_derivatives import custom_lin_p as custom_lin_p
from pyjax._src.custom_derivatives import custom_vjp_call_p as custom_vjp_call_p
from pyjax._src.lax.barriers import sharding_constraint_p as sharding_constraint_p
from pyjax._src.lax.control_flow.conditionals import cond_p as cond_p
from pyjax._src.lax.control_flow.cumulative import cumlogsumexp_p as cumlogsumexp_p
from pyjax._src.lax.control_flow.cumulative import cummax_p as cummax_p
from pyjax._src.lax.control_flow.cumulative import cummin_p as cummin_p
from pyjax._src.lax.control_flow.cumulative import cumprod_p as cumprod_p
from pyjax._src.lax.control_flow.cumulative import cumsum_p as cumsum_p
from pyjax._src.lax.control_flow.scan import dynamic_slice_p as dynamic_slice_p
from pyjax._src.lax.control_flow.scan import dynamic_update_slice_p as dynamic_update_slice_p
from pyjax._src.lax.control_flow.scan import scan_p as scan_p
from pyjax._src.lax.control_flow.solves import linear_solve_p as linear_solve_p
from pyjax._src.lax.control_flow.while_loop import while_p as while_p
from pyjax._src.lax.convert import bitcast_convert_type_p as bitcast_convert_type_p
from pyjax._src.lax.convert import convert_element_type_p as convert_element_type_p
from pyjax._src.lax.convolution import conv_general_dilated_p as conv_general_dilated_p
from pyjax._src.lax.dot_general import dot_general_p as dot_general_p
from pyjax._src.lax.dynamic_slicing import slice_p as slice_p
from pyjax._src.lax.elementwise import abs_p as abs_p
from pyjax._src.lax.elementwise import acos_p as acos_p
from pyjax._src.lax.elementwise import acosh_p as acosh_p
from pyjax._src.lax.elementwise import add_p as add_p
from pyjax._src.lax.elementwise import and_p as and_p
from pyjax._src.lax.elementwise import asin_p as asin_p
from pyjax._src.lax.elementwise import asinh_p as asinh_p
from pyjax._src.lax.elementwise import atan2_p as atan2_p
from pyjax._src.lax.elementwise import atan_p as atan_p
from pyjax._src.lax.elementwise import atanh_p as atanh_p
from pyjax._src.lax.elementwise import cbrt_p as cbrt_p
from pyjax._src.lax.elementwise import ceil_p as ceil_p
from pyjax._src.lax.elementwise import clamp_p as clamp_p
from pyjax._src.lax.elementwise import clz_p as clz_p
from pyjax._src.lax.elementwise import complex_p as complex_p
from pyjax._src.lax.elementwise import conj_p as conj_p
from pyjax._src.lax.elementwise import cos_p as cos_p
from pyjax._src.lax.elementwise import cosh_p as cosh_p
from pyjax._src.lax.elementwise import digamma_p as digamma_p
from pyjax._src.lax.elementwise import div_p as div_p
from pyjax._src.lax.elementwise import eq_p as eq_p
from pyjax._src.lax.elementwise import eq_to_p as eq_to_p
from pyjax._src.lax.elementwise import erf_inv_p as erf_inv_p
from pyjax._src.lax.elementwise import erf_p as erf_p
from pyjax._src.lax.elementwise import erfc_p as erfc_p
from pyjax._src.lax.elementwise import exp2_p as exp2_p
from pyjax._src.lax.elementwise import exp_p as exp_p
from pyjax._src.lax.elementwise import expm1_p as expm1_p
from pyjax._src.lax.elementwise import floor_p as floor_p
from pyjax._src.lax.elementwise import ge_p as ge_p
from pyjax._src.lax.elementwise import gt_p as gt_p
from pyjax._src.lax.elementwise import imag_p as imag_p
from pyjax._src.lax.elementwise import integer_pow_p as integer_pow_p
from pyjax._src.lax.elementwise import is_finite_p as is_finite_p
from pyjax._src.lax.elementwise import le_p as le_p
from pyjax._src.lax.elementwise import le_to_p as le_to_p
from pyjax._src.lax.elementwise import lgamma_p as lgamma_p
from pyjax._src.lax.elementwise import log1p_p as log1p_p
from pyjax._src.lax.elementwise import log_p as log_p
from pyjax._src.lax.elementwise import logistic_p as logistic_p
from pyjax._src.lax.elementwise import lt_p as lt_p
from pyjax._src.lax.elementwise import lt_to_p as lt_to_p
from pyjax._src.lax.elementwise import max_p as max_p
from pyjax._src.lax.elementwise import min_p as min_p
from pyjax._src.lax.elementwise import mul_p as mul_p
from pyjax._src.lax.elementwise import ne_p as ne_p
from pyjax._src.lax.elementwise import neg_p as neg_p
from pyjax._src.lax.elementwise import nextafter_p as nextafter_p
from pyjax._src.lax.elementwise import not_p as not_p
from pyjax._src.lax.elementwise import or_p as or_p
from pyjax._src.lax.elementwise import population_count_p as population_count_p
from pyjax._src.lax.elementwise import pow_p as pow_p
from pyjax._src.lax.elementwise import real_p as real_p
from pyjax._src.lax.elementwise import rem_p as rem_p
from pyjax._src.lax.elementwise import round_p as round_p
from pyjax._src.lax.elementwise import rsqrt_p as rsqrt_p
from pyjax._src.lax.elementwise import select_n_p as select_n_p
from pyjax._src.lax.elementwise import shift_left_p as shift_left_p
from pyjax._src.lax.elementwise import shift_right_arithmetic_p as shift_right_arithmetic_p
from pyjax._src.lax.elementwise import shift_right_logical_p as shift_right_logical_p
from pyjax._src.lax.elementwise import sign_p as sign_p
from pyjax._src.lax.elementwise import sin_p as sin_p
from pyjax._src.lax.elementwise import sinh_p as sinh_p
from pyjax._src.lax.elementwise import sqrt_p as sqrt_p
from pyjax._src.lax.elementwise import square_p as square_p
from pyjax._src.lax.elementwise import sub_p as sub_p
from pyjax._src.lax.elementwise import tan_p as tan_p
from pyjax._src.lax.elementwise import tanh_p as tanh_p
from pyjax._src.lax.elementwise import xor_p as xor_p
from pyjax._src.lax.fft import fft_p as fft_p
from pyjax._src.lax.linalg import cholesky_p as cholesky_p
from pyjax._src.lax.linalg import eig_p as eig_p
from pyjax._src.lax.linalg import eigh_p as eigh_p
from pyjax._src.lax.linalg import householder_product_p as householder_product_p
from pyjax._src.lax.linalg import lu_p as lu_p
from pyjax._src.lax.linalg import qr_p as qr_p
from pyjax._src.lax.linalg import svd_p as svd_p
from pyjax._src.lax.linalg import triangular_solve_p as triangular_solve_p
from pyjax._src.lax.linalg_structured import hessenberg_p as hessenberg_p
from pyjax._src.lax.linalg_structured import schur_p as schur_p
from pyjax._src.lax.linalg_structured import tridiagonal_p as tridiagonal_p
from pyjax._src.lax.linalg_structured import tridiagonal_solve_p as tridiagonal_solve_p
from pyjax._src.lax.parallel import all_gather_p as all_gather_p
from pyjax._src.lax.parallel import all_to_all_p as all_to_all_p
from pyjax._src.lax.parallel import axis_index_p as axis_index_p
from pyjax._src.lax.parallel import pmax_p as pmax_p
from pyjax._src.lax.parallel import pmin_p as pmin_p
from pyjax._src.lax.parallel import ppermute_p as ppermute_p
from pyjax._src.lax.parallel import psum_p as psum_p
from pyjax._src.lax.random_bits import rng_bit_generator_p as rng_bit_generator_p
from pyjax._src.lax.random_bits import rng_uniform_p as rng_uniform_p
from pyjax._src.lax.reduce_precision import reduce_precision_p as reduce_precision_p
from pyjax._src.lax.reductions import argmax_p as argmax_p
from pyjax._src.lax.reductions import argmin_p as argmin_p
from pyjax._src.lax.reductions import reduce_and_p as reduce_and_p
from pyjax._src.lax.reductions import reduce_max_p as reduce_max_p
from pyjax._src.lax.reductions import reduce_min_p as reduce_min_p
from pyjax._src.lax.reductions import reduce_or_p as reduce_or_p
from pyjax._src.lax.reductions import reduce_prod_p as reduce_prod_p
from pyjax._src.lax.reductions import reduce_sum_p as reduce_sum_p
from pyjax._src.lax.reductions import reduce_xor_p as reduce_xor_p
from pyjax._src.lax.shape_ops import broadcast_in_dim_p as broadcast_in_dim_p
from pyjax._src.lax.shape_ops import concatenate_p as concatenate_p
from pyjax._src.lax.shape_ops import copy_p as copy_p
from pyjax._src.lax.shape_ops import iota_p as iota_p
from pyjax._src.lax.shape_ops import pad_p as pad_p
from pyjax._src.lax.shape_ops import reshape_p as reshape_p
from pyjax._src.lax.shape_ops import rev_p as rev_p
from pyjax._src.lax.shape_ops import squeeze_p as squeeze_p
from pyjax._src.lax.shape_ops import stop_gradient_p as stop_gradient_p
from pyjax._src.lax.shape_ops import transpose_p as transpose_p
from pyjax._src.lax.slicing import gather_p as gather_p
from pyjax._src.lax.slicing import scatter_add_p as scatter_add_p
from pyjax._src.lax.slicing import scatter_max_p as scatter_max_p
from pyjax._src.lax.slicing import scatter_min_p as scatter_min_p
from pyjax._src.lax.slicing import scatter_mul_p as scatter_mul_p
from pyjax._src.lax.slicing import scatter_p as scatter_p
from pyjax._src.lax.sorting import approx_top_k_p as approx_top_k_p
from pyjax._src.lax.sorting import sort_p as sort_p
from pyjax._src.lax.sorting import top_k_p as top_k_p
from pyjax._src.lax.special import bessel_i0e_p as bessel_i0e_p
from pyjax._src.lax.special import bessel_i1e_p as bessel_i1e_p
from pyjax._src.lax.special import igamma_grad_a_p as igamma_grad_a_p
from pyjax._src.lax.special import igamma_p as igamma_p
from pyjax._src.lax.special import igammac_p as igammac_p
from pyjax._src.lax.special import polygamma_p as polygamma_p
from pyjax._src.lax.special import regularized_incomplete_beta_p as regularized_incomplete_beta_p
from pyjax._src.lax.special import zeta_p as zeta_p
from pyjax._src.lax.windowed_reductions import reduce_p as reduce_p
from pyjax._src.lax.windowed_reductions import reduce_window_max_p as reduce_window_max_p
from pyjax._src.lax.windowed_reductions import reduce_window_min_p as reduce_window_min_p
from pyjax._src.lax.windowed_reductions import reduce_window_p as reduce_window_p
from pyjax._src.lax.windowed_reductions import reduce_window_sum_p as reduce_window_sum_p
from pyjax._src.lax.windowed_reductions import select_and_gather_add_p as select_and_gather_add_p
from pyjax._src.lax.windowed_reductions import select_and_scatter_add_p as select_and_scatter_add_p
from pyjax._src.lax.windowed_reductions import select_and_scatter_p as select_and_scatter_p
from pyjax._src.random.gamma import random_gamma_p as random_gamma_p
from pyjax._src.random.prng import threefry2x32_p as threefry2x32_p


after_all_p = Primitive("after_all")


class _InlineCall(Primitive):
    """`call_p.bind(*args, subfuns=(f,))` (f a `lu.WrappedFun` or a function) and
    `closed_call_p.bind(*args, call_jaxpr=closed)`: the call, traced in line."""

    def bind(self, *args, subfuns=(), call_jaxpr=None, **params):
        if call_jaxpr is not None:
            return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)
        fun, = subfuns
        return list(getattr(fun, "call_wrapped", fun)(*args))


call_p = _InlineCall("call", multiple_results=True)
closed_call_p = _InlineCall("closed_call", multiple_results=True)
create_token_p = Primitive("create_token")
device_put_p = Primitive("device_put")
empty2_p = Primitive("empty2")
get_p = Primitive("get")
ragged_all_to_all_p = Primitive("ragged_all_to_all")
random_bits_p = Primitive("random_bits")
random_fold_in_p = Primitive("random_fold_in")
random_seed_p = Primitive("random_seed")
random_split_p = Primitive("random_split")
swap_p = Primitive("swap")
