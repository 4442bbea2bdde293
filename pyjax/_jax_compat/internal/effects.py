"""`jax._src.effects`: the effect base class and JAX's effect-type sets (pyjax records which
effect types a test registers; its own rules decide what lowers)."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src import core as _core
from pyjax._src.core import JaxprInputEffect as _JaxprInputEffect


class Effect(_core.Effect):
    """JAX's effect base class: its subclasses take no name (or set one themselves), and an
    effect is ordered when its type is registered in `ordered_effects`, as in JAX."""

    def __init__(self, name: str | None = None):  # JAX's take none; a name is kept if given
        if name is not None:
            self.name = name

    def __getattr__(self, attr):  # `name` unset: the subclass's name
        if attr == "name":
            return type(self).__name__
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")

    @property
    def ordered(self) -> bool:
        return ordered_effects.contains(self)

    def __repr__(self):
        return self.name


class JaxprInputEffect(_JaxprInputEffect):
    """An effect on one input of a jaxpr or equation, its index (JAX's subclasses take only
    that; pyjax's base also takes a name, the subclass's name here)."""

    def __init__(self, input):
        super().__init__(type(self).__name__, input)


class EffectTypeSet:
    """A set of effect classes (JAX's registries of what may lower, appear in control flow,
    be remat'ed, ...)."""

    def __init__(self):
        self._types: set = set()

    def add_type(self, effect_type) -> None:
        self._types.add(effect_type)

    def contains(self, eff) -> bool:
        return any(isinstance(eff, t) for t in self._types)

    def filter_in(self, effects):
        return [e for e in effects if self.contains(e)]

    def filter_not_in(self, effects):
        return [e for e in effects if not self.contains(e)]


lowerable_effects = EffectTypeSet()
control_flow_allowed_effects = EffectTypeSet()
custom_derivatives_allowed_effects = EffectTypeSet()
remat_allowed_effects = EffectTypeSet()
partial_eval_jaxpr_custom_rule_allowed_effects = EffectTypeSet()
ordered_effects = EffectTypeSet()
shardable_ordered_effects = EffectTypeSet()

__getattr__ = module_getattr("jax._src.effects")
