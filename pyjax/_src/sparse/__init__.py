"""jax.experimental.sparse's implementation: formats (bcoo, bcsr, coo_csr), operations
(bcoo_ops), the sparsify interpreter (transform), autodiff wrappers (ad), constructors (api),
spsolve (linalg) and the primitive factory (util). Imported on demand by
`pyjax.experimental.sparse`."""
