"""Structured control flow: primitives holding jaxprs (cond, while, scan) and their wrappers."""
