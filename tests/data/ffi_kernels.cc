// Tiny XLA FFI handlers for tests/test_ffi.py, compiled at test time against jax.ffi.include_dir().
#include <cmath>
#include <cstdint>
#include <string_view>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// y = x / sqrt(mean(x**2, axis=-1) + eps), row by row over the last axis (any leading dims).
static ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  auto dims = x.dimensions();
  if (dims.size() == 0) return ffi::Error::InvalidArgument("RmsNorm: input must have an axis");
  const int64_t n = dims.back();
  const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(x.element_count()) / n;
  const float* in = x.typed_data();
  float* out = y->typed_data();
  for (int64_t r = 0; r < rows; ++r) {
    float ss = 0.f;
    for (int64_t i = 0; i < n; ++i) ss += in[r * n + i] * in[r * n + i];
    const float scale = 1.f / std::sqrt(ss / static_cast<float>(n) + eps);
    for (int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale;
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
                              ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// Two inputs of one shape, two results: (a + b, a - b).
static ffi::Error SumDiffImpl(ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b,
                              ffi::ResultBuffer<ffi::F32> s, ffi::ResultBuffer<ffi::F32> d) {
  if (a.element_count() != b.element_count())
    return ffi::Error::InvalidArgument("SumDiff: operands differ in size");
  for (size_t i = 0; i < a.element_count(); ++i) {
    s->typed_data()[i] = a.typed_data()[i] + b.typed_data()[i];
    d->typed_data()[i] = a.typed_data()[i] - b.typed_data()[i];
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(SumDiff, SumDiffImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// Writes back the attributes it decoded, one of each kind, as float32 values:
// [i32, i64, u8, f32, f64, flag, len(name), sum(ints), len(ints), sum(floats)].
static ffi::Error EchoAttrsImpl(int32_t i32, int64_t i64, uint8_t u8, float f32, double f64,
                                bool flag, std::string_view name, ffi::Span<const int32_t> ints,
                                ffi::Span<const float> floats, ffi::ResultBuffer<ffi::F32> out) {
  if (out->element_count() != 10) return ffi::Error::InvalidArgument("EchoAttrs: want 10 outputs");
  float* o = out->typed_data();
  int64_t isum = 0;
  for (int32_t v : ints) isum += v;
  float fsum = 0.f;
  for (float v : floats) fsum += v;
  o[0] = i32; o[1] = static_cast<float>(i64); o[2] = u8; o[3] = f32; o[4] = static_cast<float>(f64);
  o[5] = flag ? 1.f : 0.f; o[6] = static_cast<float>(name.size());
  o[7] = static_cast<float>(isum); o[8] = static_cast<float>(ints.size()); o[9] = fsum;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(EchoAttrs, EchoAttrsImpl,
                              ffi::Ffi::Bind().Attr<int32_t>("i32").Attr<int64_t>("i64")
                                  .Attr<uint8_t>("u8").Attr<float>("f32").Attr<double>("f64")
                                  .Attr<bool>("flag").Attr<std::string_view>("name")
                                  .Attr<ffi::Span<const int32_t>>("ints")
                                  .Attr<ffi::Span<const float>>("floats")
                                  .Ret<ffi::Buffer<ffi::F32>>());

// Fails at run time with the handler's own message when `fail` is true, else copies x.
static ffi::Error MaybeFailImpl(bool fail, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  if (fail) return ffi::Error::InvalidArgument("MaybeFail: asked to fail");
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(MaybeFail, MaybeFailImpl,
                              ffi::Ffi::Bind().Attr<bool>("fail").Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// A side-effecting counter: adds x's sum into a static accumulator, returns the running total.
static double g_total = 0.0;
static ffi::Error AccumulateImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> total) {
  for (size_t i = 0; i < x.element_count(); ++i) g_total += x.typed_data()[i];
  total->typed_data()[0] = static_cast<float>(g_total);
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Accumulate, AccumulateImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
extern "C" void ResetAccumulator() { g_total = 0.0; }
