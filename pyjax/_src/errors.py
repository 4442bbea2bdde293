"""The exception classes of `jax.errors`, with messages that point at the user's line and the fix."""
from pyjax._src import source_info


class JAXTypeError(TypeError):
    pass


class JAXIndexError(IndexError):
    pass


class JaxprTypeError(TypeError):
    pass


class InconclusiveDimensionOperation(Exception):
    pass





class _TracerError(JAXTypeError):
    """Base of the errors raised when a traced value is used where a concrete one is needed.

    The first line is JAX's own wording (users and JAX's tests match on it); pyjax adds which
    operation asked, the user's line, and the fix."""

    def __init__(self, tracer, what, fix):
        where = source_info.user_frame_str()
        aval = getattr(tracer, "aval", None)
        desc = (f"traced array with shape {aval.str_short(short_dtypes=False)}"
                if aval is not None else "a traced value")
        origin = getattr(tracer, "_origin", None)
        msg = self._lead(desc) + f"\n{what} was called on a {desc}"
        if origin:
            msg += f" ({origin})"
        if where:
            msg += f"\n  at {where}"
        msg += f"\n{fix}"
        super().__init__(msg)

    @staticmethod
    def _lead(desc):
        return f"Abstract tracer value encountered where concrete value is expected: {desc}"


class ConcretizationTypeError(_TracerError):
    pass


class TracerBoolConversionError(ConcretizationTypeError):
    @staticmethod
    def _lead(desc):
        return f"Attempted boolean conversion of {desc}."


class TracerIntegerConversionError(_TracerError):
    @staticmethod
    def _lead(desc):
        return f"The __index__() method was called on {desc}"


class TracerArrayConversionError(_TracerError):
    @staticmethod
    def _lead(desc):
        return f"The numpy.ndarray conversion method __array__() was called on {desc}"


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
