"""flax.nnx: an MLP with Dropout and BatchNorm (nnx.Rngs), trained with nnx.jit, nnx.grad and
nnx.Optimizer(optax.adam) (run on real JAX by tests/data/record_nnx.py, on pyjax through the
switch by test_flax.py)."""
import numpy as np


def run():
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    class MLP(nnx.Module):
        def __init__(self, rngs):
            # No bias before BatchNorm (see prog_flax.py: its gradient is rounding noise,
            # which adam amplifies into the running statistics).
            self.l1 = nnx.Linear(3, 8, use_bias=False, rngs=rngs)
            self.bn = nnx.BatchNorm(8, rngs=rngs)
            self.drop = nnx.Dropout(0.2, rngs=rngs)
            self.l2 = nnx.Linear(8, 1, rngs=rngs)

        def __call__(self, x):
            return self.l2(self.drop(nnx.relu(self.bn(self.l1(x)))))

    rng = np.random.RandomState(3)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = (x.sum(axis=1, keepdims=True) ** 2).astype(np.float32)

    model = MLP(nnx.Rngs(0))
    out = {"init_l1": np.asarray(model.l1.kernel[...]).tolist()}
    optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)

    @nnx.jit
    def train_step(model, optimizer, x, y):
        def loss_fn(model):
            return jnp.mean((model(x) - y) ** 2)
        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    out["losses"] = [float(train_step(model, optimizer, x, y)) for _ in range(5)]
    model.eval()
    out["eval"] = np.asarray(model(x[:3])).tolist()
    out["bn_mean"] = np.asarray(model.bn.mean[...]).tolist()
    return out
