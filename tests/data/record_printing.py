"""Record JAX 0.10.2's printouts for tests/test_printing.py: run with the real JAX,

    /root/scratch/jaxref/bin/python tests/data/record_printing.py

which writes tests/data/jax_printing.json (jaxprs, PyTreeDef reprs, print_saved_residuals
output) for the programs of printing_corpus.py."""
import collections
import contextlib
import dataclasses
import importlib.util
import io
import json
import os

import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))


def load_corpus():
    spec = importlib.util.spec_from_file_location("printing_corpus", os.path.join(HERE, "printing_corpus.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    corpus = load_corpus()
    jaxprs = {name: str(jax.make_jaxpr(f)(*args))
              for name, (f, args) in corpus.programs(jax, jnp, lax, np).items()}
    treedefs = {name: repr(jax.tree_util.tree_structure(t))
                for name, t in corpus.trees(jax.tree_util, collections, dataclasses).items()}
    residuals = {}
    for name, (f, args) in corpus.residual_programs(jax, jnp, np).items():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            jax.ad_checkpoint.print_saved_residuals(f, *args)
        residuals[name] = out.getvalue()
    record = {"jax_version": jax.__version__, "jaxprs": jaxprs, "treedefs": treedefs,
              "residuals": residuals}
    with open(os.path.join(HERE, "jax_printing.json"), "w") as fh:
        json.dump(record, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
