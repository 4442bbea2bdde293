"""The exception classes of `jax.errors`, with messages that point at the user's line and the fix."""


class JAXTypeError(TypeError):
    pass


class JAXIndexError(IndexError):
    pass


class JaxprTypeError(TypeError):
    pass


class InconclusiveDimensionOperation(Exception):
    pass





class _TracerError(JAXTypeError):
    """Base of the errors raised when a traced value is used where a concrete one is needed."""

    def __init__(self, tracer, what, fix):
        from pyjax._src import source_info  # small module, no cycle at call time
        where = source_info.user_frame_str()
        aval = getattr(tracer, "aval", None)
        desc = f"traced array with shape {aval.str_short()}" if aval is not None else "a traced value"
        origin = getattr(tracer, "_origin", None)
        msg = f"{what} was called on a {desc}"
        if origin:
            msg += f" ({origin})"
        if where:
            msg += f"\n  at {where}"
        msg += f"\n{fix}"
        super().__init__(msg)


class ConcretizationTypeError(_TracerError):
    pass


class TracerBoolConversionError(ConcretizationTypeError):
    pass


class TracerIntegerConversionError(_TracerError):
    pass


class TracerArrayConversionError(_TracerError):
    pass


class NonConcreteBooleanIndexError(JAXIndexError):
    pass


class UnexpectedTracerError(JAXTypeError):
    pass


class KeyReuseError(JAXTypeError):
    pass


try:  # the runtime's own error class, raised by XLA; re-exported as JAX does
    from pyjax._src.backend.xla import JaxRuntimeError
except ImportError:  # pragma: no cover - the backend always provides it
    class JaxRuntimeError(RuntimeError):
        pass
