"""The programs whose `make_jaxpr` printouts tests/test_printing.py compares with JAX's.

One source for both sides: `programs(jax, jnp, lax, np)` is called with real JAX by
record_printing.py (which writes jax_printing.json) and with pyjax by the test, so the
two printouts come from the very same program text. Each entry is `name -> (fn, args)`;
args are NumPy arrays so neither side depends on the other's Array type.
"""
import functools


def programs(jax, jnp, lax, np):
    f32 = lambda *shape: np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7 + 0.5
    i32 = lambda *shape: np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    x3, x23, x34 = f32(3), f32(2, 3), f32(3, 4)
    s = np.float32(1.5)

    @jax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))

    @softplus.defjvp
    def _softplus_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t * jax.nn.sigmoid(x)

    @jax.custom_vjp
    def clip_grad(x):
        return jnp.sin(x)

    clip_grad.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)),
                     lambda res, g: (jnp.clip(g * res, -1.0, 1.0),))

    def scan_body(c, x):
        c = c + x
        return c, c * 2

    jit_sin = jax.jit(jnp.sin)

    @jax.jit
    def long_body(x):  # more than ten equations: printed once, up front, as `let long_body = ...`
        for _ in range(6):
            x = jnp.cos(x) * 2.0
        return x

    def long_chain(x):
        for _ in range(4):
            x = jnp.tanh(x) * 2.0 + jnp.exp(-x)
        return x

    return {
        "sin": (jnp.sin, (x3,)),
        "arith_literals": (lambda x: x * 2 + 1, (x3,)),
        "two_outputs": (lambda x, y: (x + y, x * y), (x3, x3)),
        "sum_axis": (lambda x: jnp.sum(x, axis=0), (x23,)),
        "mean": (jnp.mean, (x23,)),
        "reduce_max": (lambda x: lax.reduce_max(x, (1,)), (x23,)),
        "argmax": (lambda x: jnp.argmax(x, axis=1), (x23,)),
        "dot": (jnp.dot, (x23, x34)),
        "matmul": (lambda a, b: a @ b, (x23, x34)),
        "einsum": (lambda a, b: jnp.einsum("ij,jk->ik", a, b), (x23, x34)),
        "dot_general_batch": (lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
                              (f32(2, 3, 4), f32(2, 4, 5))),
        "reshape": (lambda x: x.reshape(6), (x23,)),
        "transpose": (lambda x: x.T, (x23,)),
        "slice": (lambda x: lax.slice(x, (0, 1), (2, 3)), (x23,)),
        "dynamic_slice": (lambda x, i: lax.dynamic_slice(x, (i, 0), (1, 3)), (x23, np.int32(1))),
        "concatenate": (lambda x: jnp.concatenate([x, x], axis=0), (x23,)),
        "convert_element_type": (lambda x: x.astype(jnp.int32), (x3,)),
        "integer_pow": (lambda x: x ** 3, (x3,)),
        "select_where": (lambda x: jnp.where(x > 1.0, x, 0.0), (x3,)),
        "iota": (lambda: lax.iota(np.int32, 5), ()),
        "broadcast_in_dim": (lambda x: jnp.broadcast_to(x, (4, 3)), (x3,)),
        "expand_squeeze": (lambda x: jnp.squeeze(jnp.expand_dims(x, 0), 0) + 1.0, (x3,)),
        "clamp": (lambda x: lax.clamp(0.0, x, 1.0), (x3,)),
        "int_ops": (lambda a, b: (a + b) * 3 % 5, (i32(3), i32(3))),
        "cumsum": (lambda x: jnp.cumsum(x), (x3,)),
        "long_chain": (long_chain, (x3,)),
        "jit": (jax.jit(lambda x: jnp.sin(x) * 2.0), (x3,)),
        "jit_nested": (lambda x: jax.jit(lambda y: jnp.cos(jax.jit(jnp.sin)(y)))(x) + 1.0, (x3,)),
        "cond": (lambda p, x: lax.cond(p > 0, jnp.sin, jnp.cos, x), (np.int32(1), x3)),
        "switch": (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda y: y * 2.0], x),
                   (np.int32(1), x3)),
        "while_loop": (lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0),
                                                (0, x))[1], (x3,)),
        "fori_loop": (lambda x: lax.fori_loop(0, 5, lambda i, c: c + i, x), (x3,)),
        "scan": (lambda c, xs: lax.scan(scan_body, c, xs), (x3, f32(4, 3))),
        "grad": (jax.grad(lambda x: jnp.sum(jnp.sin(x) * x)), (x3,)),
        "value_and_grad": (jax.value_and_grad(lambda x: jnp.sum(x ** 2)), (x3,)),
        "jvp": (lambda x, t: jax.jvp(jnp.sin, (x,), (t,)), (x3, x3)),
        "vmap": (jax.vmap(lambda a, b: jnp.dot(a, b)), (x23, x23)),
        "vmap_in_axes": (jax.vmap(lambda a, b: a * b, in_axes=(0, None)), (x23, x3)),
        "custom_jvp": (softplus, (x3,)),
        "custom_jvp_grad": (jax.grad(lambda x: jnp.sum(softplus(x))), (x3,)),
        "custom_vjp": (clip_grad, (x3,)),
        "custom_vjp_grad": (jax.grad(lambda x: jnp.sum(clip_grad(x))), (x3,)),
        "checkpoint": (jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))), (x3,)),
        "checkpoint_grad": (jax.grad(lambda x: jnp.sum(jax.checkpoint(lambda y: jnp.sin(jnp.sin(y)))(x))),
                            (x3,)),
        "scalar_float": (lambda x: x * 2.0 - jnp.float32(0.5), (s,)),
        "many_args": (lambda a, b, c, d, e, f: a + b + c + d + e + f,
                      tuple(f32(16, 16) for _ in range(6))),
        "dot_preferred": (lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                                        preferred_element_type=jnp.float32), (x23, x34)),
        "jit_shared": (lambda x: jit_sin(x) + jit_sin(x), (x3,)),
        "jit_long_body": (lambda x: long_body(x) - long_body(x * 2.0), (x3,)),
        "jit_unused_result": (lambda x: jax.jit(lambda y: (jnp.sin(y), jnp.cos(y)))(x)[1], (x3,)),
        "identity": (lambda x: x, (x3,)),
        "literal_outputs": (lambda x: (x, 1.0, True, 2), (x3,)),
        "dict_input": (lambda d: d["b"] * d["a"], ({"a": x3, "b": s},)),
        "many_outputs": (lambda x: tuple(x * i for i in range(1, 12)), (x3,)),
        "checkpoint_name": (lambda x: jax.ad_checkpoint.checkpoint_name(jnp.sin(x), "hidden") * 2.0, (x3,)),
        "pad_rev": (lambda x: lax.rev(lax.pad(x, 0.0, [(1, 2, 0)]), (0,)), (x3,)),
        "dynamic_update_slice": (lambda x, y: lax.dynamic_update_slice(x, y, (1,)), (f32(5), x3)),
        "stop_gradient": (lambda x: lax.stop_gradient(x) * x, (x3,)),
        "bfloat16": (lambda x: x.astype(jnp.bfloat16) * 2, (x3,)),
        "while_consts": (lambda x, n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x),
                                                     (0, x)), (x3, np.int32(4))),
        "scan_consts_reverse": (lambda w, xs: lax.scan(lambda c, x: (c * w + x, None), w, xs, reverse=True),
                                (x3, f32(4, 3))),
        "cond_in_scan": (lambda xs: lax.scan(lambda c, x: (lax.cond(x[0] > 1.0, lambda v: v + c, jnp.sin, x), c),
                                             x3, xs), (f32(4, 3),)),
        "grad_of_jit": (jax.grad(jax.jit(lambda x: jnp.sum(jnp.sin(x) * x))), (x3,)),
        "closure_const": (functools.partial(lambda c, x: x + c, np.arange(3, dtype=np.float32)), (x3,)),
    }


def residual_programs(jax, jnp, np):
    """`name -> (fn, args)` for `print_saved_residuals`: each line names a source location in
    this file, which both sides share."""
    checkpoint_name = jax.ad_checkpoint.checkpoint_name
    x3 = np.linspace(0.1, 0.9, 3, dtype=np.float32)
    w23 = np.ones((2, 3), np.float32)

    def sin_times(x, y):
        z = jnp.sin(x) * y
        return jnp.sum(jnp.cos(z) + x ** 2)

    def named_and_jit(x):
        a = checkpoint_name(jnp.sin(x), "a")
        return jax.jit(lambda v: jnp.exp(v) * 2.0)(a) + 1.0

    def pytree_args(params, x):
        return jnp.sum(jnp.sin(params["w"] @ x) * params["b"])

    return {
        "sin_times": (sin_times, (x3, x3)),
        "named_and_jit": (named_and_jit, (x3,)),
        "matmul": (lambda w, x: jnp.sin(w @ x), (w23, np.ones((3, 2), np.float32))),
        "pytree_args": (pytree_args, ({"w": w23, "b": np.float32(2.0)}, np.ones((3, 4), np.float32))),
        "checkpointed": (jax.checkpoint(sin_times), (x3, x3)),
        "closed_over_constant": (lambda x: jnp.sin(x * np.arange(3, dtype=np.float32)), (x3,)),
        "int_argument": (lambda x, n: jnp.sin(x) * n, (x3, np.int32(3))),
    }


def trees(tree_util, collections, dataclasses):
    """`name -> tree` whose `repr(tree_structure(tree))` the test compares. The classes are
    made (and registered) afresh by each call."""
    Point = collections.namedtuple("Point", "x y")

    class Layer:
        def __init__(self, w, act):
            self.w, self.act = w, act

    tree_util.register_pytree_node(Layer, lambda l: ((l.w,), (l.act,)), lambda aux, ch: Layer(ch[0], *aux))

    @tree_util.register_pytree_node_class
    class Box:
        def __init__(self, v):
            self.v = v

        def tree_flatten(self):
            return (self.v,), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    @dataclasses.dataclass
    class Params:
        a: object
        b: object
        n: int = 3

    tree_util.register_dataclass(Params, data_fields=["a", "b"], meta_fields=["n"])
    return {
        "leaf": 1, "none": None, "empty_tuple": (), "empty_list": [], "empty_dict": {},
        "one_tuple": (1,), "tuple": (1, 2), "nested": [1, (2, None)], "dict": {"b": 1, "a": [2, 3]},
        "int_keys": {3: 4, 1: 2}, "namedtuple": Point(1, (2, 3)), "registered": Layer(1.0, "relu"),
        "node_class": Box([1, 2]), "dataclass": Params(1, 2), "ordered_dict": collections.OrderedDict(b=1, a=2),
        "defaultdict": collections.defaultdict(list, a=1), "custom_in_list": [Layer((1, 2), ("x", 1)), None],
        "none_child": {"k": Box(None)},
    }
