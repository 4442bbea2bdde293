import sys; sys.path.insert(0, "tests")
import numpy as np, pyjax, traceback
import op_table as T
from pyjax._src import dtypes
from pyjax.test_util import check_grads
pyjax.config.update("jax_enable_x64", True)
F32, C64 = np.dtype(np.float32), np.dtype(np.complex64)
fails = []
for row in T.JNP_OPS:
    for dt in (F32, C64):
        if dt not in row.dtypes: continue
        for shape in row.shapes:
            args = [np.asarray(a) for a in T.make_args(row, shape, dt)]
            args = [a.astype({F32: np.float64, C64: np.complex128}.get(a.dtype, a.dtype)) for a in args]
            pos = [i for i, a in enumerate(args) if dtypes.issubdtype(a.dtype, np.inexact)]
            def f(*dyn, args=args, pos=pos, row=row):
                full = list(args)
                for i, d in zip(pos, dyn): full[i] = d
                return row.fn(*full)
            try:
                out = pyjax.eval_shape(f, *[args[i] for i in pos])
                if not all(dtypes.issubdtype(o.dtype, np.inexact) for o in pyjax.tree_util.tree_leaves(out)): continue
                check_grads(f, [args[i] for i in pos], order=2)
            except Exception as e:
                fails.append((T.case_id(row, shape, dt), type(e).__name__, str(e)[:250].replace("\n", " ")))
for f in fails: print(f)
print(len(fails))
