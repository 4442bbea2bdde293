"""Pallas and Ref expressions evaluated on JAX 0.10.2 (tests/data/record_pallas.py) and on pyjax
(tests/test_pallas.py). The prelude defines kernels with `jax`, `jnp`, `pl`, `plgpu`, `pltpu`."""

PRELUDE = '''
import numpy as np
rng = np.random.default_rng(0)
X = rng.standard_normal((16, 32)).astype(np.float32)
Y = rng.standard_normal((32, 8)).astype(np.float32)
Z = rng.standard_normal((6, 16)).astype(np.float32)
f32 = jnp.float32

def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]

def add(x, y, rows=4):
    n, m = x.shape
    spec = pl.BlockSpec((rows, m), lambda i: (i, 0))
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(pl.cdiv(n, rows),), in_specs=[spec, spec], out_specs=spec,
                          interpret=True)(x, y)

def mm_kernel(x_ref, y_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += x_ref[...] @ y_ref[...]

def matmul(x, y, bm, bn, bk):
    (m, k), (_, n) = x.shape, y.shape
    return pl.pallas_call(mm_kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
                  pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)), interpret=True)(x, y)

def mm_loop_kernel(x_ref, y_ref, o_ref):
    def body(k, acc):
        return acc + x_ref[:, pl.ds(k * 8, 8)] @ y_ref[pl.ds(k * 8, 8), :]
    o_ref[...] = jax.lax.fori_loop(0, x_ref.shape[1] // 8, body, jnp.zeros(o_ref.shape, f32))

mm_loop = pl.pallas_call(mm_loop_kernel, out_shape=jax.ShapeDtypeStruct((16, 8), f32), grid=(2,),
    in_specs=[pl.BlockSpec((8, 32), lambda i: (i, 0)), pl.BlockSpec((32, 8), lambda i: (0, 0))],
    out_specs=pl.BlockSpec((8, 8), lambda i: (i, 0)), interpret=True)

def softmax_kernel(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - x.max(axis=-1, keepdims=True))
    o_ref[...] = e / e.sum(axis=-1, keepdims=True)

softmax = pl.pallas_call(softmax_kernel, out_shape=jax.ShapeDtypeStruct((6, 16), f32), grid=(3,),
    in_specs=[pl.BlockSpec((2, 16), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((2, 16), lambda i: (i, 0)), interpret=True)

def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2

def ragged(kernel, n=10, b=4, dtype=f32):
    spec = pl.BlockSpec((b,), lambda i: (i,))
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((n,), dtype),
                          grid=(pl.cdiv(n, b),), in_specs=[spec], out_specs=spec, interpret=True)

def block_sum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...]) * jnp.ones(o_ref.shape, o_ref.dtype)

def masked_kernel(x_ref, o_ref):
    offs = pl.program_id(0) * 4 + jnp.arange(4)
    v = plgpu.load(x_ref.at[pl.ds(0, 4)], mask=offs < 10, other=-1.0)
    plgpu.store(o_ref.at[pl.ds(0, 4)], v * 2 + 1, mask=offs < 9)

def atomic_sum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)
    plgpu.atomic_add(o_ref, pl.ds(0, 1), jnp.sum(x_ref[...], keepdims=True))

atomic_sum = pl.pallas_call(atomic_sum_kernel, out_shape=jax.ShapeDtypeStruct((1,), f32), grid=(4,),
    in_specs=[pl.BlockSpec((5,), lambda i: (i,))], out_specs=pl.BlockSpec((1,), lambda i: (0,)),
    interpret=True)

def pid_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + pl.program_id(0).astype(f32) * 100 + pl.num_programs(0)

pid = pl.pallas_call(pid_kernel, out_shape=jax.ShapeDtypeStruct((3, 4), f32), grid=(3,),
    in_specs=[pl.BlockSpec((None, 4), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((None, 4), lambda i: (i, 0)), interpret=True)

def grid2_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * (pl.program_id(0) * 10 + pl.program_id(1)).astype(f32)

grid2 = pl.pallas_call(grid2_kernel, out_shape=jax.ShapeDtypeStruct((4, 6), f32), grid=(2, 3),
    in_specs=[pl.BlockSpec((2, 2), lambda i, j: (i, j))],
    out_specs=pl.BlockSpec((2, 2), lambda i, j: (i, j)), interpret=True)

def half_kernel(x_ref, o_ref):
    o_ref[0:2] = x_ref[0:2] + 1

def atomic_ops_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]
    plgpu.atomic_max(o_ref, pl.ds(0, 4), jnp.full((4,), 2, jnp.int32))
    b = plgpu.atomic_add(o_ref, pl.ds(1, 1), jnp.full((1,), 8, jnp.int32))
    plgpu.atomic_min(o_ref, pl.ds(3, 1), b)
    plgpu.atomic_add(o_ref, pl.ds(0, 4), jnp.full((4,), 100, jnp.int32), mask=jnp.arange(4) > 1)

def view_kernel(x_ref, o_ref):
    v = o_ref.at[1:3]
    o_ref[...] = jnp.zeros_like(o_ref)
    v[0] = x_ref.at[2:][1] * 10
    v.at[1:][...] += x_ref[1:2]

def loop_kernel(x_ref, o_ref):
    @pl.loop(0, 4)
    def _(i):
        o_ref[i] = x_ref[3 - i]
    o_ref[4] = pl.loop(0, 4, init_carry=jnp.float32(0))(lambda i, c: c + x_ref[i])

def scratch_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)
    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]

running = pl.pallas_call(scratch_kernel, out_shape=jax.ShapeDtypeStruct((12,), f32), grid=(3,),
    in_specs=[pl.BlockSpec((4,), lambda i: (i,))], out_specs=pl.BlockSpec((4,), lambda i: (i,)),
    scratch_shapes=[pltpu.VMEM((4,), f32)], interpret=True)

def scoped_kernel(x_ref, o_ref):
    def body(tmp_ref):
        tmp_ref[...] = x_ref[...] * 2
        def step(i, c):
            tmp_ref[i] += c
            return c + tmp_ref[i]
        return jax.lax.fori_loop(0, 4, step, jnp.float32(0))
    total = pl.run_scoped(body, pltpu.VMEM((4,), f32))
    o_ref[...] = x_ref[...] + total

def window_kernel(x_ref, o_ref):
    w = x_ref[...]
    o_ref[...] = w[0:4] + w[1:5] + w[2:6]

window_sum = pl.pallas_call(window_kernel, out_shape=jax.ShapeDtypeStruct((8,), f32), grid=(2,),
    in_specs=[pl.BlockSpec((pl.Element(6),), lambda i: (i * 4,))],
    out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)

window_pad = pl.pallas_call(window_kernel, out_shape=jax.ShapeDtypeStruct((8,), f32), grid=(2,),
    in_specs=[pl.BlockSpec((pl.Element(6, (1, 1)),), lambda i: (i * 4,))],
    out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)

def gather_rows_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * (idx_ref[pl.program_id(0)] + 1).astype(f32)

gather_rows = pl.pallas_call(gather_rows_kernel, out_shape=jax.ShapeDtypeStruct((3, 8), f32),
    grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(3,),
        in_specs=[pl.BlockSpec((1, 8), lambda i, idx_ref: (idx_ref[i], 0))],
        out_specs=pl.BlockSpec((1, 8), lambda i, idx_ref: (i, 0))), interpret=True)

def write_ref(x):
    r = jax.new_ref(x)
    r[0] = r[1] * 3
    r[1:] += 1.0
    return jax.freeze(r)

def state_add(refs):
    x_ref, y_ref = refs
    y_ref[...] = x_ref[...] * 2
    y_ref[0] = 7.0
    y_ref[1:3] += 1.0
'''

CASES = [
    "add(X, 2 * X)",
    "add(X, X, rows=8)",
    "add(X[:10], X[:10])",
    "matmul(X, Y, 8, 4, 8)",
    "matmul(X, Y, 16, 8, 32)",
    "matmul(X, Y, 4, 2, 16)",
    "mm_loop(X, Y)",
    "softmax(Z)",
    "ragged(double_kernel)(jnp.arange(10.0))",
    "ragged(block_sum_kernel)(jnp.arange(10.0))",
    "ragged(block_sum_kernel, dtype=jnp.int32)(jnp.arange(10, dtype=jnp.int32))",
    "ragged(masked_kernel)(jnp.arange(10.0))",
    "atomic_sum(jnp.arange(20.0))",
    "pid(jnp.ones((3, 4)))",
    "grid2(jnp.ones((4, 6)))",
    "running(jnp.arange(12.0))",
    "pl.pallas_call(half_kernel, out_shape=jax.ShapeDtypeStruct((4,), f32), interpret=True)(jnp.arange(4.0))",
    "pl.pallas_call(half_kernel, out_shape=jax.ShapeDtypeStruct((4,), f32), input_output_aliases={0: 0}, interpret=True)(jnp.arange(4.0))",
    "pl.pallas_call(view_kernel, out_shape=jax.ShapeDtypeStruct((4,), f32), interpret=True)(jnp.arange(4.0))",
    "pl.pallas_call(loop_kernel, out_shape=jax.ShapeDtypeStruct((5,), f32), interpret=True)(jnp.arange(4.0))",
    "pl.pallas_call(scoped_kernel, out_shape=jax.ShapeDtypeStruct((4,), f32), interpret=True)(jnp.arange(4.0))",
    "window_sum(jnp.arange(10.0))",
    "window_pad(jnp.arange(8.0))",
    "pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct((4, 6), f32), grid=(2, 3), in_specs=[pl.BlockSpec((2, 2), lambda i, j: (i, j))], out_specs=pl.BlockSpec((2, 2), lambda i, j: (i, j)), interpret=True)(jnp.arange(24.0).reshape(4, 6))",
    "pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct((4,), f32), interpret=True)(jnp.arange(4))",
    "pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.int32), interpret=True)(jnp.arange(4))",
    "gather_rows(jnp.array([4, 0, 2], jnp.int32), jnp.arange(40.0).reshape(5, 8))",
    "jax.jit(gather_rows)(jnp.array([1, 1, 3], jnp.int32), jnp.arange(40.0).reshape(5, 8))",
    "jax.jit(softmax)(Z)",
    "jax.vmap(softmax)(np.stack([Z, 2 * Z]))",
    "jax.vmap(lambda x: add(x, x), in_axes=1, out_axes=1)(np.stack([X, -X], 1))",
    "jax.vmap(add, in_axes=(0, None))(np.stack([X, -X]), X)",
    "jax.jvp(softmax, (Z,), (Z,))",
    "jax.jvp(lambda x: matmul(x, Y, 8, 4, 8), (X,), (X,))[1]",
    "jax.grad(lambda z: (softmax(z) ** 2).sum())(Z)",
    "pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), f32), grid=(2,), in_specs=[pl.BlockSpec((4, 128), lambda i: (i, 0))] * 2, out_specs=pl.BlockSpec((4, 128), lambda i: (i, 0)))(jnp.ones((8, 128)), jnp.ones((8, 128)))",
    "pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), f32), grid=(2,), in_specs=[pl.BlockSpec((4,), lambda i: (i,))] * 2, out_specs=pl.BlockSpec((4, 128), lambda i: (i, 0)), interpret=True)(jnp.ones((8, 128)), jnp.ones((8, 128)))",
    "pl.cdiv(10, 4), pl.next_power_of_2(5), pl.strides_from_shape((3, 4))",
    "write_ref(jnp.arange(4.0))",
    "jax.jit(write_ref)(jnp.arange(4.0))",
    "jax.vmap(write_ref)(jnp.arange(8.0).reshape(2, 4))",
    "jax.grad(lambda x: write_ref(x).sum())(jnp.arange(4.0))",
    "pl.run_state(state_add)((jnp.ones(4), jnp.zeros(4)))",
    "jax.jit(pl.run_state(state_add))((jnp.ones(4), jnp.zeros(4)))",
    "jax.new_ref(jnp.zeros(3)).__setitem__(0, jnp.ones(2))",
    "jax.new_ref(jnp.zeros(3)).__setitem__(Ellipsis, jnp.ones(3, jnp.int32))",
    "jax.new_ref(jnp.zeros(3, jnp.int32)).__setitem__(0, 1.5)",
    "jax.new_ref(jnp.zeros(3)) + 1",
    "jax.ref.swap(jax.new_ref(jnp.arange(3.0)), (slice(0, 2),), jnp.array([7.0, 8.0]))",
    "jax.typeof(jax.new_ref(jnp.zeros((2, 3)))).shape",
]

NAME_MODULES = ["jax.experimental.pallas", "jax.experimental.pallas.triton",
                "jax.experimental.pallas.tpu", "jax.ref"]
