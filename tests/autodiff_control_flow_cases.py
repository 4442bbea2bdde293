"""Python control flow on values under autodiff: the programs and what to evaluate.

Shared by `test_autodiff_control_flow.py` (run on pyjax) and `data/record_autodiff_control_flow.py`
(run once on real JAX 0.10.2 to record the expected values and exception classes). `PRELUDE` is
executed with `jax`, `jnp`, `lax` and `np` bound to the library under test; each case is an
expression evaluated in the resulting namespace. `FD` lists cases whose value is a derivative
and functions whose gradient the test also checks against central finite differences.
"""

PRELUDE = '''
def f(x):
    if x > 0:
        return x ** 2
    return -x

def cube(x):
    if x > 0:
        return x ** 3
    return -x

def doubling(x):
    while x < 10:
        x = x * 2
    return x

def power_sum(x):
    return sum(x ** i for i in range(int(x)))

def piecewise(x):
    if x < 1:
        return jnp.sin(x)
    elif x < 2:
        return x ** 3
    return jnp.exp(-x)

def vec(x):
    if jnp.sum(x) > 0:
        return jnp.sum(x ** 2)
    return jnp.sum(jnp.abs(x))

def pick(x):
    return [1.0, 2.0, 3.0][int(x)] * x

def shape_dep(x):
    return jnp.sum(jnp.ones(int(x)) * x)

def nested(x):
    return jax.grad(f)(x) * x if x > 1 else x

def with_aux(x):
    return f(x), ("pos" if x > 0 else "neg")

def two_args(x, y):
    if x > y:
        return x * y
    return x + y

def tree_fn(p):
    if p["a"] > p["b"]:
        return p["a"] ** 2 * p["b"]
    return p["a"] + p["b"]

def after_jit(x):
    y = jax.jit(lambda v: v * 2)(x)
    return y ** 2 if y > 0 else -y

def float_conv(x):
    return float(x) * x

def complex_conv(x):
    return complex(x).real * x

def tolist_conv(x):
    return x.tolist() * x

def item_conv(x):
    return x.item() * x

def numpy_conv(x):
    return jnp.sum(np.asarray(x)) * x

def ambiguous(x):
    return jnp.sum(x) if x > 0 else -jnp.sum(x)

def in_ckpt(x):
    return jax.checkpoint(f)(x)

def around_ckpt(x):
    y = jax.checkpoint(jnp.sin)(x)
    return y * x if x > 0 else -y

def scan_body(x):
    return lax.scan(lambda c, _: (c * 2 if c > 0 else c, None), x, None, length=2)[0]

def cond_then_if(x):
    y = lax.cond(x > 0, lambda v: v * 3, lambda v: -v, x)
    return y ** 2 if y > 1 else y

@jax.custom_jvp
def cj(x):
    return jnp.sin(x) if x > 0 else x

@cj.defjvp
def cj_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return cj(x), (jnp.cos(x) if x > 0 else 1.0) * t

@jax.custom_vjp
def cv(x):
    return jnp.sin(x)

def cv_fwd(x):
    return jnp.sin(x), (x if x > 0 else -x)

def cv_bwd(r, g):
    return (g * jnp.cos(r),)

cv.defvjp(cv_fwd, cv_bwd)
'''

# name -> expression
CASES = {
    # every differentiation API sees concrete primals outside jit
    "grad_pos": "jax.grad(f)(2.0)",
    "grad_neg": "jax.grad(f)(-2.0)",
    "jvp": "jax.jvp(f, (3.0,), (1.0,))",
    "vjp": "jax.vjp(f, 2.0)[1](1.0)",
    "value_and_grad": "jax.value_and_grad(f)(-2.0)",
    "linearize": "jax.linearize(f, 2.0)[1](1.0)",
    "jacfwd": "jax.jacfwd(f)(2.0)",
    "jacrev": "jax.jacrev(f)(2.0)",
    "hessian": "jax.hessian(cube)(2.0)",
    "grad_grad": "jax.grad(jax.grad(cube))(2.0)",
    "grad_grad_grad": "jax.grad(jax.grad(jax.grad(cube)))(2.0)",
    "jvp_of_grad": "jax.jvp(jax.grad(cube), (2.0,), (1.0,))",
    "grad_of_jvp": "jax.grad(lambda x: jax.jvp(cube, (x,), (1.0,))[1])(2.0)",
    "while_python": "jax.grad(doubling)(3.0)",
    "range_int": "jax.grad(power_sum)(3.0)",
    "piecewise_0": "jax.grad(piecewise)(0.5)",
    "piecewise_1": "jax.grad(piecewise)(1.5)",
    "piecewise_2": "jax.grad(piecewise)(2.5)",
    "vec_pos": "jax.grad(vec)(jnp.array([1.0, 2.0, -0.5]))",
    "vec_neg": "jax.grad(vec)(jnp.array([-1.0, 2.0, -3.0]))",
    "vec_jacfwd": "jax.jacfwd(vec)(jnp.array([1.0, 2.0, -0.5]))",
    "vec_hessian": "jax.hessian(vec)(jnp.array([1.0, 2.0, -0.5]))",
    "list_index": "jax.grad(pick)(1.0)",
    "shape_from_value": "jax.grad(shape_dep)(3.0)",
    "nested_grad": "jax.grad(nested)(2.0)",
    "has_aux": "jax.grad(with_aux, has_aux=True)(2.0)",
    "argnums": "jax.grad(two_args, argnums=(0, 1))(3.0, 2.0)",
    "pytree": "jax.grad(tree_fn)({'a': 3.0, 'b': 2.0})",
    "after_jit": "jax.grad(after_jit)(1.5)",
    "item": "jax.grad(item_conv)(2.0)",
    "around_checkpoint": "jax.grad(around_ckpt)(0.7)",
    "cond_then_if": "jax.grad(cond_then_if)(1.0)",
    "custom_jvp_grad": "jax.grad(cj)(0.5)",
    "custom_jvp_grad_neg": "jax.grad(cj)(-0.5)",
    "custom_jvp_jvp": "jax.jvp(cj, (0.5,), (2.0,))",
    "custom_vjp_grad": "jax.grad(cv)(0.5)",
    "custom_vjp_grad_neg": "jax.grad(cv)(-0.5)",
    "grad_of_jit_of_grad": "jax.grad(lambda x: jax.jit(jax.grad(jnp.sin))(x) * (x if x > 0 else 1.0))(0.3)",
    # the conversions JAX refuses even on concrete primals
    "float_conversion": "jax.grad(float_conv)(2.0)",
    "complex_conversion": "jax.grad(complex_conv)(2.0)",
    "tolist_conversion": "jax.grad(tolist_conv)(2.0)",
    "numpy_conversion": "jax.grad(numpy_conv)(2.0)",
    "ambiguous_truth": "jax.grad(ambiguous)(jnp.array([1.0, 2.0]))",
    # under staging transformations the values are abstract: the tracer errors
    "jit_grad": "jax.jit(jax.grad(f))(2.0)",
    "make_jaxpr_grad": "jax.make_jaxpr(jax.grad(f))(2.0)",
    "vmap_grad": "jax.vmap(jax.grad(f))(jnp.array([1.0, -1.0]))",
    "grad_vmap": "jax.grad(lambda x: jnp.sum(jax.vmap(f)(x)))(jnp.array([1.0, -1.0]))",
    "jit_int": "jax.jit(jax.grad(power_sum))(3.0)",
    "jit_index": "jax.jit(jax.grad(pick))(1.0)",
    "inside_checkpoint": "jax.grad(in_ckpt)(2.0)",
    "scan_body": "jax.grad(scan_body)(2.0)",
    "custom_jvp_under_jit": "jax.jit(jax.grad(cj))(0.5)",
    "custom_vjp_under_jit": "jax.jit(jax.grad(cv))(0.5)",
    "custom_vjp_under_vmap": "jax.vmap(jax.grad(cv))(jnp.ones(2))",
}

# grad(function)(point) is also checked against central finite differences (points away from
# the branch and int() boundaries)
FD = [
    ("f", 2.0), ("f", -2.0), ("doubling", 3.0), ("power_sum", 3.5), ("piecewise", 0.5),
    ("piecewise", 1.5), ("piecewise", 2.5), ("pick", 1.5), ("shape_dep", 3.5),
    ("after_jit", 1.5), ("around_ckpt", 0.7), ("cond_then_if", 1.0), ("cj", 0.5), ("cv", 0.5),
    ("nested", 2.0),
]
