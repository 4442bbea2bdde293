"""Record JAX 0.10.2's ufunc objects: which jax.numpy names are `jnp.ufunc`s, their attributes,
and the results of their methods (reduce, accumulate, outer, at, reduceat) and of frompyfunc.

Run with the reference JAX environment (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_ufuncs.py
It writes tests/data/ufuncs.json; tests/test_ufunc_objects.py evaluates the same expressions with
pyjax bound to the same names.
"""
import json
import pathlib
import warnings

import numpy as np

import jax
import jax.numpy as jnp

CASES = [
    # calls
    "jnp.add(1, 2)", "jnp.add(x, y, out=None)", "jnp.add(x, y, where=None)", "jnp.add(x, y, where=b)",
    "jnp.add(x, y, out=x)", "jnp.negative(x)", "jnp.add(x)", "jnp.subtract(i, 2.5)",
    "jnp.logical_xor(i, 0)", "jnp.logaddexp2(x, 1.0)",
    # reduce
    "jnp.add.reduce(x)", "jnp.add.reduce(x, axis=1)", "jnp.add.reduce(x, axis=None)",
    "jnp.add.reduce(x, axis=(0, 1))", "jnp.add.reduce(x, keepdims=True)",
    "jnp.add.reduce(x, axis=None, keepdims=True)", "jnp.add.reduce(i, dtype=jnp.float32)",
    "jnp.add.reduce(x, initial=10.0)", "jnp.add.reduce(x, where=b)", "jnp.add.reduce(x, where=b[0])",
    "jnp.add.reduce(bb)", "jnp.add.reduce(x, where=i)", "jnp.add.reduce(x, out=x)",
    "jnp.multiply.reduce(i, axis=1)", "jnp.subtract.reduce(x)", "jnp.subtract.reduce(x, axis=1)",
    "jnp.subtract.reduce(x, axis=None)", "jnp.subtract.reduce(x, axis=1, keepdims=True)",
    "jnp.subtract.reduce(x, where=b)", "jnp.subtract.reduce(x, where=b, initial=100.0)",
    "jnp.subtract.reduce(x, initial=100.0)", "jnp.subtract.reduce(i)",
    "jnp.subtract.reduce(jnp.zeros((0, 3)))", "jnp.subtract.reduce(x, axis=(0, 1))",
    "jnp.maximum.reduce(x)", "jnp.maximum.reduce(x, where=b)", "jnp.maximum.reduce(x, where=b, initial=-1.0)",
    "jnp.minimum.reduce(x, axis=None)", "jnp.minimum.reduce(jnp.zeros((0,)))",
    "jnp.minimum.reduce(jnp.zeros((0,)), initial=3.0)", "jnp.add.reduce(jnp.zeros((0,)))",
    "jnp.logical_and.reduce(i)", "jnp.logical_or.reduce(bb, axis=1)", "jnp.logical_xor.reduce(bb)",
    "jnp.logical_xor.reduce(i, axis=None)", "jnp.bitwise_and.reduce(i)", "jnp.bitwise_or.reduce(i, axis=1)",
    "jnp.bitwise_xor.reduce(i)", "jnp.bitwise_and.reduce(bb)", "jnp.bitwise_or.reduce(x)",
    "jnp.logaddexp.reduce(x)", "jnp.logaddexp2.reduce(x, axis=None)", "jnp.logaddexp.reduce(i)",
    "jnp.negative.reduce(x)", "jnp.add.reduce(s)",
    # accumulate
    "jnp.add.accumulate(x)", "jnp.add.accumulate(x, axis=1)", "jnp.multiply.accumulate(i, axis=1)",
    "jnp.subtract.accumulate(x)", "jnp.subtract.accumulate(x, axis=-1)", "jnp.maximum.accumulate(x, axis=1)",
    "jnp.logical_or.accumulate(bb, axis=1)", "jnp.add.accumulate(i, dtype=jnp.float32)",
    "jnp.add.accumulate(bb)", "jnp.subtract.accumulate(i, dtype=jnp.float32)",
    "jnp.subtract.accumulate(jnp.zeros((0, 2)))", "jnp.add.accumulate(x, axis=None)",
    "jnp.negative.accumulate(x)", "jnp.add.accumulate(x, out=x)", "jnp.logaddexp.accumulate(x)",
    # outer
    "jnp.add.outer(v, v)", "jnp.multiply.outer(x, v)", "jnp.subtract.outer(v, 2.0)",
    "jnp.logical_and.outer(bb[0], bb[1])", "jnp.maximum.outer(i[0], x[1])", "jnp.negative.outer(v, v)",
    "jnp.add.outer(1, 2)",
    # at
    "jnp.add.at(v, 1, 10.0, inplace=False)", "jnp.add.at(v, 1, 10.0)",
    "jnp.add.at(v, jnp.array([0, 0, 2]), 1.0, inplace=False)",
    "jnp.add.at(v, jnp.array([0, 0, 2]), jnp.array([1.0, 2.0, 3.0]), inplace=False)",
    "jnp.add.at(x, (jnp.array([0, 1, 0]), 2), 5.0, inplace=False)",
    "jnp.add.at(x, (1,), 5.0, inplace=False)", "jnp.add.at(x, 1, jnp.array([1.0, 2.0, 3.0]), inplace=False)",
    "jnp.add.at(v, 15, 1.0, inplace=False)", "jnp.add.at(v, -1, 1.0, inplace=False)",
    "jnp.add.at(v, jnp.array([1, 15, -1]), 1.0, inplace=False)",
    "jnp.add.at(i, 0, 2.5, inplace=False)", "jnp.add.at(bb, (0, 1), True, inplace=False)",
    "jnp.add.at(bb, (0, 0), True, inplace=False)",
    "jnp.multiply.at(v, jnp.array([1, 1]), 3.0, inplace=False)", "jnp.multiply.at(bb, (1, 0), False, inplace=False)",
    "jnp.subtract.at(v, jnp.array([2, 2]), 1.0, inplace=False)", "jnp.subtract.at(v, 0, 1, inplace=False)",
    "jnp.maximum.at(v, jnp.array([0, 1]), 2.5, inplace=False)", "jnp.maximum.at(i, 0, 2.5, inplace=False)",
    "jnp.minimum.at(x, (0, 1), -3.0, inplace=False)", "jnp.logical_or.at(bb, (1, 1), True, inplace=False)",
    "jnp.negative.at(v, 1, inplace=False)", "jnp.negative.at(v, jnp.array([1, 1]), inplace=False)",
    "jnp.negative.at(v, 1, 2.0, inplace=False)", "jnp.add.at(v, 1, inplace=False)",
    "jnp.add.at(v, jnp.array([], jnp.int32), 1.0, inplace=False)",
    "jax.jit(lambda a, k: jnp.add.at(a, k, 1.0, inplace=False))(v, 2)",
    "jax.jit(lambda a, k: jnp.subtract.at(a, k, 1.0, inplace=False))(v, jnp.array([0, 0]))",
    # reduceat
    "jnp.add.reduceat(v4, jnp.array([0, 2]))", "jnp.add.reduceat(v4, jnp.array([0, 2, 3]))",
    "jnp.multiply.reduceat(x, jnp.array([0, 2]), axis=1)", "jnp.maximum.reduceat(v4, jnp.array([1, 3]))",
    "jnp.add.reduceat(v4, jnp.array([3, 1]))", "jnp.add.reduceat(v4, jnp.array([0, 0, 2]))",
    "jnp.subtract.reduceat(v4, jnp.array([0, 2]))", "jnp.add.reduceat(i, jnp.array([0, 1]), axis=1)",
    "jnp.add.reduceat(i, jnp.array([0, 1]), dtype=jnp.float32)",
    "jnp.add.reduceat(v4, jnp.array([[0, 2]]))", "jnp.add.reduceat(s, jnp.array([0]))",
    "jnp.negative.reduceat(v4, jnp.array([0, 2]))", "jnp.add.reduceat(v4, jnp.array([0, 2]), axis=None)",
    # attributes, identity, construction
    "jnp.add == jnp.add", "jnp.add == jnp.multiply", "hash(jnp.add) == hash(jnp.add)",
    "jax.jit(lambda f, a: f(a, a), static_argnums=0)(jnp.add, 1.5)",
    "jax.jit(lambda f, a: f.reduce(a), static_argnums=0)(jnp.multiply, v)",
    "jax.vmap(jnp.add.reduce)(x)", "jax.grad(lambda a: jnp.add.reduce(a * a))(v)",
    "jax.grad(lambda a: jnp.subtract.reduce(a * a))(v)", "jax.vmap(jnp.add.outer, (0, None))(x, v)",
    "jax.grad(lambda a: jnp.multiply.accumulate(a).sum())(v)",
    # frompyfunc and the constructor
    "f2(x, y)", "f2(x, 2.0)", "f2.reduce(x)", "f2.reduce(x, axis=1)", "f2.accumulate(x)", "f2.outer(v, v)",
    "f2.at(v, 1, 2.0, inplace=False)", "f2.reduceat(v4, jnp.array([0, 2]))", "f2.reduce(x, where=b)",
    "f2i.reduce(x, where=b)", "f2i.identity", "f1(v)", "f1.at(v, jnp.array([0, 0]), inplace=False)",
    "f1.reduce(v)", "fdm(x, 3.0)", "fdm.reduce(x)", "fdm.nout",
    "myadd(x, y)", "myadd.reduce(i)", "myadd.accumulate(i)", "myadd.nargs", "myadd.identity",
    "jnp.frompyfunc(lambda a, b: a + b, 2, 1) == jnp.frompyfunc(lambda a, b: a + b, 2, 1)",
]

ATTRIBUTES = ("__name__", "nin", "nout", "nargs", "identity")


def env():
    f2 = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1)
    return dict(
        jax=jax, jnp=jnp, np=np, x=jnp.arange(6.0).reshape(2, 3) - 2.0,
        y=jnp.array([[0.5, -1.0, 2.0], [3.0, 0.0, -2.5]]), i=jnp.arange(6).reshape(2, 3) + 1,
        b=jnp.array([[True, False, True], [False, True, True]]),
        bb=jnp.array([[True, False, True], [True, True, False]]), v=jnp.array([1.0, -2.0, 3.0]),
        v4=jnp.array([1.0, 2.0, 3.0, 4.0]), s=jnp.asarray(3.0), f2=f2,
        f2i=jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=0.0),
        f1=jnp.frompyfunc(lambda a: a * 2 - 1, 1, 1),
        fdm=jnp.frompyfunc(lambda a, b: (a // b, a % b), 2, 2),
        myadd=jnp.ufunc(lambda a, b: a + b, 2, 1, name="myadd", identity=0))


def encode(v):
    if isinstance(v, (tuple, list)):
        return {"tuple": [encode(a) for a in v]}
    if isinstance(v, float) and not np.isfinite(v):
        return {"float": repr(v)}  # JSON has no inf
    if v is None or isinstance(v, (bool, int, float, str)):
        return {"python": v}
    a = np.asarray(v)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "weak_type": bool(v.weak_type),
            "value": a.tolist()}


def record(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return {"result": encode(eval(expr, env()))}
        except Exception as e:  # noqa: BLE001  (the class is what we record)
            return {"error": type(e).__name__}


def main():
    assert jax.__version__ == "0.10.2", jax.__version__
    ufuncs = {name: {a: encode(getattr(getattr(jnp, name), a)) for a in ATTRIBUTES}
              | {"repr": repr(getattr(jnp, name))}
              for name in dir(jnp) if isinstance(getattr(jnp, name), jnp.ufunc)}
    cases = {expr: record(expr) for expr in CASES}
    path = pathlib.Path(__file__).with_name("ufuncs.json")
    lines = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in cases.items())
    path.write_text(f'{{"jax_version": "{jax.__version__}",\n"ufuncs": {json.dumps(ufuncs, indent=1)},\n'
                    f'"cases": {{\n{lines}\n}}}}\n')
    print(f"wrote {len(ufuncs)} ufuncs and {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
