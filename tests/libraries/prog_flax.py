"""flax.linen: a small CNN (Conv, BatchNorm, Dropout, avg_pool, Dense) trained for a few steps
with a TrainState and optax.adam, plus an MLP's init/apply (run on real JAX by
tests/data/record_flax.py, on pyjax through the switch by test_flax.py)."""
import numpy as np


def run():
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training import train_state

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x, train: bool):
            # No bias before BatchNorm: BN subtracts the batch mean, so a bias's gradient is
            # exactly zero in exact arithmetic and rounding noise in float32; adam turns that
            # noise into +-lr steps, and the running mean (which tracks the bias) came out
            # differently on each machine, even between runs of real JAX.
            x = nn.Conv(4, (3, 3), use_bias=False)(x)
            x = nn.BatchNorm(use_running_average=not train, momentum=0.9)(x)
            x = nn.relu(x)
            x = nn.avg_pool(x, (2, 2), strides=(2, 2))
            x = x.reshape((x.shape[0], -1))
            x = nn.Dropout(0.5, deterministic=not train)(x)
            return nn.Dense(3)(x)

    rng = np.random.RandomState(2)
    images = rng.normal(size=(8, 6, 6, 1)).astype(np.float32)
    labels = rng.randint(0, 3, size=8)

    model = CNN()
    variables = model.init(jax.random.PRNGKey(0), images, train=False)
    out = {"init_kernel": np.asarray(variables["params"]["Conv_0"]["kernel"]).ravel().tolist(),
           "init_dense_sum": float(jnp.sum(variables["params"]["Dense_0"]["kernel"])),
           "param_shapes": {k: {n: list(v.shape) for n, v in p.items()}
                            for k, p in variables["params"].items()}}

    class State(train_state.TrainState):
        batch_stats: dict

    state = State.create(apply_fn=model.apply, params=variables["params"],
                         tx=optax.adam(1e-2), batch_stats=variables["batch_stats"])

    @jax.jit
    def step(state, dropout_key):
        def loss_fn(params):
            logits, updates = state.apply_fn(
                {"params": params, "batch_stats": state.batch_stats}, images, train=True,
                rngs={"dropout": dropout_key}, mutable=["batch_stats"])
            loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
            return loss, updates
        (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
        state = state.apply_gradients(grads=grads)
        return state.replace(batch_stats=updates["batch_stats"]), loss

    losses = []
    key = jax.random.PRNGKey(42)
    for _ in range(4):
        key, sub = jax.random.split(key)
        state, loss = step(state, sub)
        losses.append(float(loss))
    out["losses"] = losses
    out["step"] = int(state.step)
    out["bn_mean"] = np.asarray(state.batch_stats["BatchNorm_0"]["mean"]).tolist()
    out["eval_logits"] = np.asarray(model.apply(
        {"params": state.params, "batch_stats": state.batch_stats}, images[:2],
        train=False)).tolist()

    mlp = nn.Sequential([nn.Dense(5), nn.gelu, nn.Dense(2)])
    mlp_vars = mlp.init(jax.random.PRNGKey(1), jnp.ones((1, 3)))
    out["mlp"] = np.asarray(mlp.apply(mlp_vars, images[:2, 0, :3, 0])).tolist()
    return out
