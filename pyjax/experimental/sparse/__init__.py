"""pyjax.experimental.sparse: sparse arrays (BCOO, BCSR, COO, CSR, CSC), their primitives, the
`sparsify` transformation and sparse-aware autodiff (re-exports only; code in
pyjax._src.sparse). Everything runs on gathers, scatters and sorts compiled by XLA; nothing
here needs a GPU.
"""
from pyjax._src.sparse._base import JAXSparse as JAXSparse
from pyjax._src.sparse.util import (
    CuSparseEfficiencyWarning as CuSparseEfficiencyWarning,
    SparseEfficiencyError as SparseEfficiencyError,
    SparseEfficiencyWarning as SparseEfficiencyWarning,
)
from pyjax._src.sparse.bcoo import (
    BCOO as BCOO,
    bcoo_extract as bcoo_extract,
    bcoo_extract_p as bcoo_extract_p,
    bcoo_fromdense as bcoo_fromdense,
    bcoo_fromdense_p as bcoo_fromdense_p,
    bcoo_sort_indices as bcoo_sort_indices,
    bcoo_sort_indices_p as bcoo_sort_indices_p,
    bcoo_sum_duplicates as bcoo_sum_duplicates,
    bcoo_sum_duplicates_p as bcoo_sum_duplicates_p,
    bcoo_todense as bcoo_todense,
    bcoo_todense_p as bcoo_todense_p,
    bcoo_transpose as bcoo_transpose,
    bcoo_transpose_p as bcoo_transpose_p,
    bcoo_update_layout as bcoo_update_layout,
)
from pyjax._src.sparse.bcoo_ops import (
    bcoo_broadcast_in_dim as bcoo_broadcast_in_dim,
    bcoo_concatenate as bcoo_concatenate,
    bcoo_conv_general_dilated as bcoo_conv_general_dilated,
    bcoo_dot_general as bcoo_dot_general,
    bcoo_dot_general_p as bcoo_dot_general_p,
    bcoo_dot_general_sampled as bcoo_dot_general_sampled,
    bcoo_dot_general_sampled_p as bcoo_dot_general_sampled_p,
    bcoo_dynamic_slice as bcoo_dynamic_slice,
    bcoo_gather as bcoo_gather,
    bcoo_multiply_dense as bcoo_multiply_dense,
    bcoo_multiply_sparse as bcoo_multiply_sparse,
    bcoo_reduce_sum as bcoo_reduce_sum,
    bcoo_reshape as bcoo_reshape,
    bcoo_rev as bcoo_rev,
    bcoo_slice as bcoo_slice,
    bcoo_spdot_general_p as bcoo_spdot_general_p,
    bcoo_squeeze as bcoo_squeeze,
)
from pyjax._src.sparse.bcsr import (
    BCSR as BCSR,
    bcsr_broadcast_in_dim as bcsr_broadcast_in_dim,
    bcsr_concatenate as bcsr_concatenate,
    bcsr_dot_general as bcsr_dot_general,
    bcsr_dot_general_p as bcsr_dot_general_p,
    bcsr_extract as bcsr_extract,
    bcsr_extract_p as bcsr_extract_p,
    bcsr_fromdense as bcsr_fromdense,
    bcsr_fromdense_p as bcsr_fromdense_p,
    bcsr_sum_duplicates as bcsr_sum_duplicates,
    bcsr_todense as bcsr_todense,
    bcsr_todense_p as bcsr_todense_p,
)
from pyjax._src.sparse.coo_csr import (
    COO as COO,
    CSC as CSC,
    CSR as CSR,
    coo_fromdense as coo_fromdense,
    coo_fromdense_p as coo_fromdense_p,
    coo_matmat as coo_matmat,
    coo_matmat_p as coo_matmat_p,
    coo_matvec as coo_matvec,
    coo_matvec_p as coo_matvec_p,
    coo_todense as coo_todense,
    coo_todense_p as coo_todense_p,
    csr_fromdense as csr_fromdense,
    csr_fromdense_p as csr_fromdense_p,
    csr_matmat as csr_matmat,
    csr_matmat_p as csr_matmat_p,
    csr_matvec as csr_matvec,
    csr_matvec_p as csr_matvec_p,
    csr_todense as csr_todense,
    csr_todense_p as csr_todense_p,
)
from pyjax._src.sparse.transform import (
    SparseTracer as SparseTracer,
    sparsify as sparsify,
    todense as todense,
    todense_p as todense_p,
)
from pyjax._src.sparse.ad import (
    grad as grad,
    jacfwd as jacfwd,
    jacobian as jacobian,
    jacrev as jacrev,
    value_and_grad as value_and_grad,
)
from pyjax._src.sparse.api import empty as empty, eye as eye, random_bcoo as random_bcoo

from pyjax.experimental.sparse import ad as ad
from pyjax.experimental.sparse import api as api
from pyjax.experimental.sparse import bcoo as bcoo
from pyjax.experimental.sparse import bcsr as bcsr
from pyjax.experimental.sparse import coo as coo
from pyjax.experimental.sparse import csr as csr
from pyjax.experimental.sparse import linalg as linalg
from pyjax.experimental.sparse import random as random
from pyjax.experimental.sparse import transform as transform
from pyjax.experimental.sparse import util as util
