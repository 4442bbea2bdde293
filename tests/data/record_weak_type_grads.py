"""Record the dtype, weak type and value of derivatives in JAX 0.10.2: grad, vjp, jacrev,
jacfwd, jvp, value_and_grad, linearize and hessian of small functions at Python scalars, weak
and strong arrays and integers, through custom_jvp/custom_vjp rules that return strong or weak
tangents, stop_gradient, where, scan/cond/while, convert_element_type, reductions, dot,
broadcasting with Python scalars, jit/checkpoint inside grad, and accumulation of cotangents of
different weak types.

Run with the reference JAX environment (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_weak_type_grads.py
It writes tests/data/weak_type_grads.json; tests/test_weak_type_grads.py evaluates the same
expressions with `jax`/`jnp`/`lax` bound to pyjax's.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from recorded_cases import evaluate_cases  # noqa: E402

PRELUDE = '''
XW = jnp.sin(1.0)                       # a weak float32 scalar array
XS = jnp.float32(1.5)                   # a strong float32 scalar
VW = jnp.sin(1.0) * jnp.ones(3, dtype=int)   # weak float32 vector (weak * int promotes weak)
VS = jnp.array([0.5, 1.0, 2.0])         # strong float32 vector
def strong(v):
    return lax.convert_element_type(v, jnp.float32)

@jax.custom_vjp
def cv_strong(x):
    return jnp.sin(x)
cv_strong.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (strong(g * jnp.cos(x)),))

@jax.custom_vjp
def cv_weak(x):
    return jnp.sin(x)
cv_weak.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * jnp.cos(x),))

@jax.custom_vjp
def cv_pyfloat(x):
    return 2.0 * x
cv_pyfloat.defvjp(lambda x: (2.0 * x, None), lambda _, g: (2.0,))

@jax.custom_jvp
def cj_strong(x):
    return jnp.sin(x)
cj_strong.defjvp(lambda p, t: (jnp.sin(p[0]), strong(jnp.cos(p[0]) * t[0])))

@jax.custom_jvp
def cj_weak(x):
    return jnp.sin(x)
cj_weak.defjvp(lambda p, t: (jnp.sin(p[0]), jnp.cos(p[0]) * t[0]))
'''

CASES = [
    # plain arithmetic at Python scalars, weak and strong arrays
    "jax.grad(jnp.sin)(1.0)",
    "jax.grad(jnp.sin)(XW)",
    "jax.grad(jnp.sin)(XS)",
    "jax.grad(lambda x: jnp.float32(2) * x)(1.0)",
    "jax.grad(lambda x: x * 2.0)(XS)",
    "jax.grad(lambda x: x * x)(1.0)",
    "jax.grad(lambda x: x ** 3)(2.0)",
    "jax.grad(lambda x: jnp.tanh(x) / 2)(0.5)",
    "jax.grad(lambda x: lax.mul(x, 2.0))(1.0)",
    "jax.grad(lambda x, y: x * y, argnums=(0, 1))(1.0, jnp.float32(2))",
    "jax.grad(lambda x, y: x * y, argnums=(0, 1))(1.0, 2.0)",
    "jax.grad(lambda x, y: x, argnums=1)(1.0, 2.0)",
    "jax.grad(lambda x, y: x, argnums=1)(1.0, XS)",
    "jax.grad(lambda x: jnp.float32(3.0))(1.0)",
    "jax.grad(lambda x: jnp.maximum(x, 0.5))(1.0)",
    "jax.grad(lambda x: jnp.abs(x))(-1.0)",
    "jax.grad(lambda p: p['a'] * p['b'].sum())({'a': 1.0, 'b': jnp.ones(2)})",
    # broadcasting a Python scalar against strong arrays, reductions, dot
    "jax.grad(lambda x: (x * jnp.ones(3)).sum())(1.0)",
    "jax.grad(lambda x: (x + jnp.arange(3.0)).sum())(1.0)",
    "jax.grad(lambda x: (x * VS).sum())(XS)",
    "jax.grad(jnp.sum)(VW)",
    "jax.grad(jnp.sum)(VS)",
    "jax.grad(lambda x: jnp.mean(x * 2.0))(VW)",
    "jax.grad(lambda x: jnp.dot(x, jnp.ones(3)))(VW)",
    "jax.grad(lambda x: x @ x)(VS)",
    "jax.grad(lambda x: x @ x)(VW)",
    "jax.grad(lambda x: (x[0] * 2.0))(VW)",
    "jax.grad(lambda x: jnp.stack([x, x]).sum())(1.0)",
    "jax.grad(lambda x: jnp.concatenate([x, jnp.ones(2)]).sum())(VW)",
    "jax.grad(lambda x: x.reshape(1, 3).sum())(VW)",
    "jax.grad(lambda x: jnp.max(x))(VW)",
    # conversions and integers
    "jax.grad(lambda x: lax.convert_element_type(x, jnp.float32))(1.0)",
    "jax.grad(lambda x: jnp.asarray(x, jnp.float32) * 2)(1.0)",
    "jax.grad(lambda x: x.astype(jnp.float16).astype(jnp.float32))(1.0)",
    "str(jax.grad(lambda x: x * 2.0, allow_int=True)(3).dtype)",
    "jax.grad(lambda x, y: x * y, argnums=(0, 1), allow_int=True)(2.0, 3)[0]",
    "jax.grad(lambda x, y: x * y, argnums=(0, 1), allow_int=True)(XS, 3)[0]",
    "jax.grad(lambda x: (x * jnp.arange(3)).sum())(1.0)",
    # stop_gradient, where, select
    "jax.grad(lambda x: lax.stop_gradient(x) * x)(1.0)",
    "jax.grad(lambda x: jnp.where(x > 0, x, 0.0))(1.0)",
    "jax.grad(lambda x: jnp.where(x > 0, x, 0.0).sum())(VS)",
    "jax.grad(lambda x: jnp.where(x > 0, 2.0 * x, jnp.zeros(3)).sum())(VW)",
    # custom rules
    "jax.grad(cv_strong)(1.0)",
    "jax.grad(cv_strong)(XS)",
    "jax.grad(cv_weak)(1.0)",
    "jax.grad(cv_weak)(XS)",
    "jax.grad(cv_pyfloat)(1.0)",
    "jax.grad(cv_pyfloat)(XS)",
    "jax.grad(lambda x: cv_strong(x) + x * x)(1.0)",
    "jax.grad(lambda x: x * x + cv_strong(x))(1.0)",
    "jax.grad(lambda x: cv_strong(x) * 2.0)(1.0)",
    "jax.grad(cj_strong)(1.0)",
    "jax.grad(cj_weak)(1.0)",
    "jax.jvp(cj_strong, (1.0,), (1.0,))",
    "jax.jvp(cv_strong, (1.0,), (1.0,))",
    "jax.value_and_grad(cv_strong)(1.0)",
    "jax.vjp(cv_strong, 1.0)[1](1.0)",
    # control flow
    "jax.grad(lambda x: lax.scan(lambda c, _: (c * 2.0, None), x, None, length=3)[0])(1.0)",
    "jax.grad(lambda x: lax.scan(lambda c, y: (c * y, None), x, VS)[0])(1.0)",
    "jax.grad(lambda x: lax.cond(x > 0, lambda y: y * 2.0, lambda y: -y, x))(1.0)",
    "jax.grad(lambda x: lax.cond(True, lambda y: y * VS[0], lambda y: y, x))(1.0)",
    "jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 1.5, x))(1.0)",
    "jax.jvp(lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1], (1.0,), (1.0,))",
    # transformations inside grad
    "jax.grad(jax.jit(jnp.sin))(1.0)",
    "jax.grad(jax.jit(lambda x: x * VS[0]))(1.0)",
    "jax.grad(jax.jit(cv_strong))(1.0)",
    "jax.grad(jax.checkpoint(jnp.sin))(1.0)",
    "jax.jit(jax.grad(jnp.sin))(1.0)",
    "jax.jit(jax.grad(cv_strong))(1.0)",
    "jax.vmap(jax.grad(jnp.sin))(VW)",
    "jax.grad(jax.grad(jnp.sin))(1.0)",
    "jax.hessian(lambda x: x ** 3)(1.0)",
    # the transposes of slices, pads and windows, products and reductions (whose weak types
    # follow JAX's programs: a reduction or product of a weak array is computed strong, ...)
    "jax.grad(lambda x: x[1:3].sum())(VW)",
    "jax.grad(lambda x: x[::2].sum())(VW)",
    "jax.grad(lambda x: lax.dynamic_slice(x, (1,), (2,)).sum())(VW)",
    "jax.grad(lambda x: x[jnp.array([0, 2])].sum())(VW)",
    "jax.grad(lambda x: jnp.pad(x, 1).sum())(VW)",
    "jax.grad(lambda x: lax.reduce_window(x, 0.0, lax.add, (2,), (1,), 'SAME').sum())(VW)",
    "jax.grad(lambda x: (x @ jnp.ones((3, 2))).sum())(VW)",
    "jax.grad(lambda x: jnp.dot(x, jnp.arange(3)))(VW)",
    "jax.grad(lambda x: jnp.einsum('i,i', x, VS))(VW)",
    "jax.grad(lambda x: jnp.tensordot(x, VS, 1))(VW)",
    "jax.grad(lambda x: jnp.vdot(x, VS))(VW)",
    "jax.grad(jnp.min)(VW)",
    "jax.grad(jnp.prod)(VW)",
    "jax.grad(jnp.max)(1.0)",
    "jax.grad(lambda x: jnp.max(x, initial=0.))(VW)",
    "jax.grad(lambda x: jnp.cumsum(x).sum())(VW)",
    "jax.grad(lambda x: jnp.linalg.norm(x))(VW)",
    "(jnp.max(VW), jnp.sum(VW), jnp.mean(VW), jnp.cumsum(VW), jnp.linalg.norm(VW))",
    "(jnp.pad(VW, 1), lax.pad(VW, np.float32(0), ((0, 2, 0),)), lax.pad(VW, 0.0, ((1, 0, 0),)), jnp.diag(VW))",
    "(jnp.dot(VW, VS), jnp.dot(VW, VW), jnp.dot(VW, 2), VW @ VW, jnp.dot(VW, jnp.arange(3)))",
    # JVP rules whose constant factor is strong for an array (weak only for a weak scalar)
    "jax.grad(lambda x: (x ** 2).sum())(VW)",
    "jax.grad(lambda x: (x ** 3).sum())(VW)",
    "jax.grad(lambda x: jnp.square(x).sum())(VW)",
    "jax.grad(lambda x: jnp.sqrt(x).sum())(VW)",
    "jax.grad(lambda x: lax.rsqrt(x).sum())(VW)",
    "jax.grad(lambda x: jnp.cbrt(x).sum())(VW)",
    "jax.grad(lambda x: jnp.exp2(x).sum())(VW)",
    "jax.grad(lambda x: jnp.tan(x).sum())(VW)",
    "jax.grad(lambda x: (jnp.arcsin(x * 0.5) + jnp.arccos(x * 0.5) + jnp.arctan(x)).sum())(VW)",
    "jax.grad(lambda x: (jnp.arcsinh(x) + jnp.arctanh(x * 0.5) + jnp.tanh(x) + jnp.expm1(x) + jnp.log1p(x)).sum())(VW)",
    "jax.grad(lambda x: jax.nn.sigmoid(x).sum())(VW)",
    "jax.grad(lambda x: (jax.scipy.special.erf(x) + jax.scipy.special.erfc(x)).sum())(VW)",
    "jax.grad(lambda x: jax.scipy.special.erfinv(x * 0.5).sum())(VW)",
    "jax.grad(lambda x: x ** 2 + jnp.sqrt(x) + jnp.tan(x) + jax.scipy.special.erf(x))(1.0)",
    "jax.jvp(lambda x: jnp.square(x), (VW,), (VW,))",
    "jax.grad(jax.nn.logsumexp)(VW)",
    "jax.grad(lambda x: jax.nn.logsumexp(x, b=VS))(VW)",
    "jax.grad(lambda x: jax.nn.softmax(x)[0])(VW)",
    "jax.grad(lambda x: jax.nn.log_softmax(x)[0])(VW)",
    # more control flow and transformations
    "jax.grad(lambda x: lax.scan(lambda c, y: (c + y, c * 2.0), x, VS)[1].sum())(1.0)",
    "jax.grad(lambda x: lax.cond(x > 0, lambda y: cv_strong(y), lambda y: y * 2.0, x))(1.0)",
    "jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * VS[i], x))(1.0)",
    "jax.vmap(jax.grad(cv_strong))(VW)",
    "jax.jacrev(lambda x: x * VS)(XS)",
    # other APIs
    "jax.vjp(jnp.sin, 1.0)[1](1.0)",
    "jax.vjp(jnp.sin, 1.0)[1](jnp.float32(1))",
    "jax.vjp(jnp.sin, XS)[1](1.0)",
    "jax.vjp(lambda x: x * VS, 1.0)[1](VS)",
    "jax.jvp(jnp.sin, (1.0,), (1.0,))",
    "jax.jvp(jnp.sin, (1.0,), (jnp.float32(1),))",
    "jax.jvp(lambda x: x * VS, (1.0,), (1.0,))",
    "jax.linearize(jnp.sin, 1.0)[1](1.0)",
    "jax.linearize(jnp.sin, 1.0)[1](jnp.float32(1))",
    "jax.linearize(lambda x: x * 2.0, XS)[1](1.0)",
    "jax.value_and_grad(lambda x: x ** 2)(1.0)",
    "jax.value_and_grad(lambda x: (x * VS).sum())(1.0)",
    "jax.jacrev(lambda x: x * 2.0)(1.0)",
    "jax.jacrev(jnp.sin)(VW)",
    "jax.jacrev(lambda x: x * VS)(1.0)",
    "jax.jacrev(cv_strong)(1.0)",
    "jax.jacfwd(lambda x: x * 2.0)(1.0)",
    "jax.jacfwd(jnp.sin)(VW)",
    "jax.jacfwd(lambda x: x * VS)(1.0)",
    "jax.jacfwd(cj_strong)(1.0)",
    "jax.jacfwd(lambda x, y: x * y, argnums=(0, 1))(1.0, jnp.float32(2))",
    "jax.jacrev(lambda x, y: x * y, argnums=(0, 1))(1.0, jnp.float32(2))",
    "jax.jacrev(lambda x: {'a': x * 2.0, 'b': x.sum()})(VW)",
    "jax.jacfwd(lambda x: x.astype(jnp.float16))(1.0)",
    "jax.jacrev(lambda x: x.astype(jnp.float16))(1.0)",
    "jax.hessian(lambda x: (x ** 3).sum())(VW)",
    # Jacobians of integer and complex outputs
    "jax.jacfwd(lambda x: (x * 2).astype(int))(1.0)",
    "jax.jacfwd(lambda x: (x, (x * 2).astype(int)))(jnp.ones(2))",
    "jax.jacrev(lambda x: x * 2, allow_int=True)(3)",
    "jax.jacrev(lambda x: x.astype(jnp.complex64))(jnp.ones(2))",
    "jax.jacrev(lambda x: x * (1 + 2j), holomorphic=True)(jnp.ones(2, jnp.complex64))",
    "jax.jacfwd(lambda x: x * 2.0, holomorphic=True)(jnp.ones(2, jnp.complex64))",
    "jax.jacfwd(lambda x: jnp.real(x), holomorphic=True)(jnp.ones(2, jnp.complex64))",
]

ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
out = {"jax_version": jax.__version__, "prelude": PRELUDE,
       "cases": evaluate_cases(PRELUDE, CASES, ns)}
(HERE / "weak_type_grads.json").write_text(json.dumps(out, indent=1) + "\n")
for k, v in out["cases"].items():
    print(k, "->", v.get("dtype"), v.get("weak_type"), v.get("error", ""),
          [(t.get("dtype"), t.get("weak_type")) for t in v.get("tuple", [])])
