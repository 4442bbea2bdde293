"""pyjax.errors: the exception classes of `jax.errors` (re-exports only)."""
from pyjax._src.errors import (
    ConcretizationTypeError as ConcretizationTypeError,
    InconclusiveDimensionOperation as InconclusiveDimensionOperation,
    JAXIndexError as JAXIndexError,
    JAXTypeError as JAXTypeError,
    JaxRuntimeError as JaxRuntimeError,
    JaxprTypeError as JaxprTypeError,
    KeyReuseError as KeyReuseError,
    NonConcreteBooleanIndexError as NonConcreteBooleanIndexError,
    TracerArrayConversionError as TracerArrayConversionError,
    TracerBoolConversionError as TracerBoolConversionError,
    TracerIntegerConversionError as TracerIntegerConversionError,
    UnexpectedTracerError as UnexpectedTracerError,
)
