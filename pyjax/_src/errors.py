"""The exception classes of `jax.errors`, with messages that point at the user's line and the fix."""
from pyjax._src import source_info


class _JAXErrorMixin:
    """JAX's own errors end with a link to their entry on JAX's error page, as JAX's do."""

    def __init__(self, message):
        try:
            message = str(message)
        except Exception:  # noqa: BLE001 - building the error must not fail (a tracer of no trace)
            message = object.__repr__(message)
        super().__init__(f"{message}\nSee https://docs.jax.dev/en/latest/errors.html"
                         f"#jax.errors.{type(self).__name__}")


class JAXTypeError(_JAXErrorMixin, TypeError):
    pass


class JAXIndexError(_JAXErrorMixin, IndexError):
    pass


class JaxprTypeError(TypeError):
    pass


class InconclusiveDimensionOperation(Exception):
    pass





class _TracerError(JAXTypeError):
    """Base of the errors raised when a traced value is used where a concrete one is needed.

    The first lines are JAX's own wording (users and JAX's tests match on them): what was
    attempted, and which traced function and which of its arguments (by their path in the
    user's arguments, `p['w']`) the value depends on. pyjax adds which operation asked, the
    user's source line, and the fix."""

    def __init__(self, tracer, what="", fix=""):
        frame = source_info.user_frame()
        try:
            aval = tracer.aval
        except Exception:  # noqa: BLE001 - e.g. a tracer of no trace, as JAX's tests build
            aval = None
        desc = (f"traced array with shape {aval.str_short(short_dtypes=False)}"
                if aval is not None else "a traced value")
        msg = self._lead(desc)
        context, static_hint = provenance_message(tracer)
        if context:
            msg += "\n" + context
        if what:
            msg += f"\n{what} was called on a {desc}"
        if what and frame is not None:
            msg += f" at {source_info.frame_str(frame)}"
            line = source_info.frame_line(frame)
            if line:
                msg += f":\n    {line}"
        if fix:
            msg += f"\n{fix}"
        if static_hint and self._static_fix:
            msg += static_hint
        super().__init__(msg)

    _static_fix = True

    @staticmethod
    def _lead(desc):
        return f"Abstract tracer value encountered where concrete value is expected: {desc}"


def _join(names):
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + ", and " + names[-1]


def tracer_origin(tracer) -> str:
    """'created while tracing f at file:line for jit, from the argument p['w']' ('' if unknown)."""
    try:
        deps = tracer._provenance()
        debug = getattr(getattr(tracer, "_trace", None), "debug", None)
    except Exception:  # noqa: BLE001 - a message helper must never mask the real error
        return ""
    debug = debug or next((d for d, _ in deps if d is not None), None)
    names = [n for d, n in deps if d is debug and n is not None]
    msg = f"created while tracing the function {debug.fun_str()} for {debug.what}" if debug else ""
    if names:
        msg += (", " if msg else "") + ("from the argument " if len(names) == 1 else
                                        "from the arguments ") + _join(names)
    return msg


def provenance_message(tracer):
    """JAX's sentence naming the traced function and the arguments `tracer` depends on (''
    when unknown), and a hint to make that argument static (jit arguments only)."""
    try:
        deps = tracer._provenance()
        trace = getattr(tracer, "_trace", None)
        debug = getattr(trace, "debug", None)
    except Exception:  # noqa: BLE001 - a message helper must never mask the real error
        return "", ""
    groups: dict = {}
    for d, name in deps:
        groups.setdefault(d, [])
        if name is not None and name not in groups[d]:
            groups[d].append(name)
    if debug is None:
        debug = next((d for d in groups if d is not None), None)
    if debug is None:
        return "", ""
    msg = f"The error occurred while tracing the function {debug.fun_str()} for {debug.what}."
    names = groups.pop(debug, [])
    if names:
        msg += (" This concrete value was not available in Python because it depends on the "
                + ("value of the argument " if len(names) == 1 else "values of the arguments ")
                + _join(names) + ".")
    for d, outer in groups.items():
        if d is not None and outer:
            msg += (f" It also depends, through a value closed over from the function "
                    f"{d.fun_str()} traced for {d.what}, on its argument"
                    + ("s " if len(outer) > 1 else " ") + _join(outer) + ".")
    hint = ""
    if debug.what == "jit" and names:
        tops = sorted({n.split("[")[0].split(".")[0] for n in names})
        if all(t.isidentifier() for t in tops):
            hint = (f"\nIf {_join(tops)} {'is a configuration value' if len(tops) == 1 else 'are configuration values'}"
                    f" rather than data, mark {'it' if len(tops) == 1 else 'them'} static: "
                    f"jit(..., static_argnames={tuple(tops) if len(tops) > 1 else repr(tops[0])}).")
    return msg, hint


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
    _static_fix = False

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


class ShardingTypeError(Exception):
    """A sharding-in-types error: under a mesh with Explicit axes, an operation whose operands'
    shardings give no (or no unambiguous) sharding for its result (JAX 0.10.2's class)."""
