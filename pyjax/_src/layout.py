"""Device-local layouts (JAX's `jax.experimental.layout`): how an array's elements are ordered
in a device buffer. `Layout(major_to_minor)` names the dimensions from the slowest varying to
the fastest (`(0, 1)` is row-major for a matrix, the default); `Layout.AUTO` lets XLA choose
when compiling. `Format(layout, sharding)` pairs a layout with a sharding: jit takes Formats as
in/out shardings, `device_put` places a value in one, and arrays and compiled functions report
theirs (`x.format`, `compiled.input_formats` / `output_formats`).

    >>> f = jax.jit(lambda x: x.T, out_shardings=Format(Layout.AUTO)).lower(x).compile()
    >>> f.output_formats.layout.major_to_minor
    (0, 1)

NB: pyjax supports the CPU's layouts (a permutation of the dimensions); tiled layouts are
kept as given but never produced.
"""
from __future__ import annotations

from pyjax._src.sharding import Sharding


class AutoLayout:
    """`Layout.AUTO`: the compiler chooses the layout."""

    def __repr__(self):
        return "AUTO"


AUTO = AutoLayout()


class Layout:
    """A concrete device-local layout: the dimensions from major to minor (plus tiling)."""

    AUTO = AUTO

    def __init__(self, major_to_minor, tiling=None, sub_byte_element_size_in_bits=0):
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = None if tiling is None else tuple(tuple(t) for t in tiling)
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    @classmethod
    def from_xla(cls, xla_layout):
        """From the `(minor_to_major, tiling, element_size_in_bits)` of an XLA layout
        (`backend.xla.buffer_layout`)."""
        minor_to_major, tiling, bits = xla_layout
        return cls(tuple(minor_to_major)[::-1], tiling, bits)

    def __repr__(self):
        return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
                f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")

    def _key(self):
        return self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits

    def __eq__(self, other):
        return isinstance(other, Layout) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def update(self, **changes):
        fields = {"major_to_minor": self.major_to_minor, "tiling": self.tiling,
                  "sub_byte_element_size_in_bits": self.sub_byte_element_size_in_bits, **changes}
        return Layout(**fields)

    def check_compatible_aval(self, aval_shape):
        if len(self.major_to_minor) != len(aval_shape):
            raise ValueError(f"Length of major_to_minor and the rank of the value should match. "
                             f"Got major_to_minor={self.major_to_minor} and shape={aval_shape}")

    def layout_mode(self) -> str:
        """The `mhlo.layout_mode` a module names this layout by (minor to major)."""
        return "{" + ",".join(str(d) for d in self.major_to_minor[::-1]) + "}"

    def is_default_for(self, ndim) -> bool:
        return self.major_to_minor == tuple(range(ndim)) and self.tiling in (None, ())


class Format:
    """A layout (None: the default, `Layout.AUTO`, or a Layout) with a sharding (None: left to
    jit, or a Sharding)."""

    __slots__ = ("layout", "sharding")

    def __init__(self, layout=None, sharding=None):
        if isinstance(layout, Layout) and sharding is None:
            raise ValueError(f"Sharding has to be concrete when layout is of type {type(layout)}. "
                             f"Please pass a `jax.sharding.NamedSharding` or "
                             f"`jax.sharding.SingleDeviceSharding` to the sharding argument. Got "
                             f"sharding {sharding}")
        if not isinstance(layout, (Layout, type(None), AutoLayout)):
            raise TypeError(f"Invalid value received for the layout argument. Expected values "
                            f"are `None`, `Layout.AUTO` or an instance of `Layout`. Got {layout} "
                            f"of type {type(layout)}")
        if sharding is not None and not isinstance(sharding, Sharding):
            raise TypeError(f"Invalid value received for the sharding argument. Expected values "
                            f"are `None` or an instance of `jax.Sharding`. Got {sharding} of "
                            f"type {type(sharding)}")
        self.layout, self.sharding = layout, sharding

    def __repr__(self):
        return f"Format(layout={self.layout}, sharding={self.sharding})"

    def __eq__(self, other):
        return (isinstance(other, Format) and self.layout == other.layout
                and self.sharding == other.sharding)

    def __hash__(self):
        return hash((self.layout, self.sharding))


def layout_mode(layout, ndim) -> str | None:
    """The `mhlo.layout_mode` of an argument or result given `layout` (None: say nothing)."""
    if layout is None:
        return None
    if isinstance(layout, AutoLayout):
        return "auto"
    layout.check_compatible_aval((0,) * ndim)
    return layout.layout_mode()
