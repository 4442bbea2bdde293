"""Device-local layouts (JAX's jax.experimental.layout: Layout, Format) on CPU: expressions
evaluated on JAX 0.10.2 (tests/data/record_layout.py, 4 CPU devices) and on pyjax
(tests/test_layout.py). The CPU compiler honours a layout asked for an argument or a result
(`mhlo.layout_mode`) and chooses one for `Layout.AUTO`; arrays report theirs (`x.format`)."""

PRELUDE = r'''
import numpy as np
from jax.experimental.layout import Format, Layout
from jax.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

d0 = SingleDeviceSharding(jax.devices()[0])
mesh = jax.make_mesh((2, 2), ("x", "y"))
X = np.arange(32, dtype=np.float32).reshape(8, 4)
Z = np.arange(16, dtype=np.float32).reshape(4, 2, 2)

def m2m(fmt):
    return fmt.layout.major_to_minor

auto_t = jax.jit(lambda x: x.T, out_shardings=Format(Layout.AUTO)).lower(X).compile()
col = jax.device_put(X, Format(Layout((1, 0)), d0))
col_sharded = jax.device_put(X, Format(Layout((1, 0)), NamedSharding(mesh, P("x", "y"))))
'''

CASES = [
    "[m2m(auto_t.input_formats[0][0]), m2m(auto_t.output_formats)]",
    "[np.asarray(auto_t(X)), m2m(auto_t(X).format)]",
    "repr(auto_t.output_formats.sharding)",
    "[m2m(col.format), np.asarray(col), col.format == Format(Layout((1, 0)), d0)]",
    "[m2m(col_sharded.format), np.asarray(col_sharded), [m2m(s.data.format) for s in col_sharded.addressable_shards]]",
    # computations on arrays in another layout, and given host values for such layouts
    "np.asarray(jax.jit(lambda x: x @ x.T)(col))",
    "np.asarray(jax.jit(lambda x: x @ x.T)(col_sharded))",
    "[np.asarray(jax.jit(lambda x: x * 2 - 1)(col_sharded)), m2m(jax.jit(lambda x: x * 2 - 1)(col_sharded).format)]",
    "np.asarray(jax.jit(lambda x: x * 2, in_shardings=Format(Layout((1, 0)), d0)).lower(X).compile()(X))",
    "np.asarray(jax.jit(lambda x: x + 1, in_shardings=Format(Layout((1, 0)), d0))(X))",
    "[m2m(f) for f in jax.jit(lambda x: x * 2, in_shardings=Format(Layout((2, 0, 1)), d0), out_shardings=Format(Layout.AUTO)).lower(Z).compile().input_formats[0]]",
    "np.asarray(jax.jit(lambda x: x.sum(0), in_shardings=Format(Layout((2, 0, 1)), d0))(Z))",
    # a ShapeDtypeStruct's Format: its layout is the argument's
    "m2m(jax.jit(lambda x: x * 2).lower(jax.ShapeDtypeStruct((8, 4), np.float32, sharding=col.format)).compile().input_formats[0][0])",
    "jax.ShapeDtypeStruct((8, 4), np.float32, sharding=col.format).format == col.format",
    "jax.ShapeDtypeStruct((8, 4), np.float32, sharding=Format(Layout.AUTO))",
    "jax.ShapeDtypeStruct((8, 4), np.float32, sharding=col.format).update(sharding=d0)",
    "m2m(jax.ShapeDtypeStruct((8, 4), np.float32, sharding=col.format).update(shape=(4, 8)).format)",
    # Layout and Format themselves
    "repr(Layout((1, 0)))", "repr(Format(Layout.AUTO))", "Layout((1, 0)) == Layout((1, 0))",
    "Layout((1, 0)).update(major_to_minor=(0, 1)) == Layout((0, 1))",
    "Format(Layout((1, 0)))", "Format(Layout.AUTO, 3)",
    "Layout((1, 0)).check_compatible_aval((2, 3, 4))",
    "jax.jit(lambda x: x, in_shardings=Layout.AUTO)",
    "jax.device_put(X, Format(Layout.AUTO, d0))",
    "np.asarray(jax.device_put(X, Format(None, d0)))",
]
