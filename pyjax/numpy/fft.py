"""pyjax.numpy.fft: NumPy's FFT functions (re-exports only; code in pyjax._src.numpy.fft)."""
from pyjax._src.numpy_placement import FFT_FUNCTIONS as _PLACED
from pyjax._src.numpy.fft import (
    fft as fft,
    fft2 as fft2,
    fftn as fftn,
    fftshift as fftshift,
    hfft as hfft,
    ifft as ifft,
    ifft2 as ifft2,
    ifftn as ifftn,
    ifftshift as ifftshift,
    ihfft as ihfft,
    irfft as irfft,
    irfft2 as irfft2,
    irfftn as irfftn,
    rfft as rfft,
    rfft2 as rfft2,
    rfftn as rfftn,
)

fftfreq, rfftfreq = _PLACED["fftfreq"], _PLACED["rfftfreq"]   # device= places the result
