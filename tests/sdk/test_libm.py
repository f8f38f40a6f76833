"""libm: every function against double precision over dense sweeps, within the error
bounds documented in psp/sdk/libm/README.md. The library is the SDK's own C built for
the host (the same C as the PSP build), loaded with ctypes."""

import ctypes

import numpy as np
import pytest

EXPF, LOGF, POWF, SQRTF, SINF, COSF, TANHF, FLOORF, CEILF, FABSF, ROUNDF, TANF, FMODF, TRUNCF = range(14)
F32 = ctypes.POINTER(ctypes.c_float)
F64 = ctypes.POINTER(ctypes.c_double)
RNG = np.random.default_rng(20260)
N = 300_000

# Documented bounds, in units in the last place of the correctly rounded float result.
BOUNDS = {"expf": 1.0, "logf": 1.0, "powf": 1.0, "sqrtf": 0.5, "sinf": 1.0, "cosf": 1.0,
          "tanhf": 2.5, "tanf": 1.5}


@pytest.fixture(scope="module")
def libm(libm_so):
    return ctypes.CDLL(str(libm_so))


def apply(libm, fn, x, y=None):
    x = np.ascontiguousarray(x, np.float32)
    y = np.ascontiguousarray(x if y is None else y, np.float32)
    out = np.empty_like(x)
    libm.sweep(fn, x.ctypes.data_as(F32), y.ctypes.data_as(F32), out.ctypes.data_as(F32), len(x))
    return out


def ulp_error(got, exact):
    """|got - exact| in ulps of the float nearest to exact; where that float overflows,
    got must be the same infinity (reported as error 0 or inf)."""
    with np.errstate(over="ignore"):
        nearest = exact.astype(np.float32)
    errors = np.zeros(len(got))
    finite = np.isfinite(nearest)
    errors[~finite] = np.where(got[~finite] == nearest[~finite], 0.0, np.inf)
    spacing = np.spacing(np.abs(nearest[finite])).astype(np.float64)
    errors[finite] = np.abs(got[finite].astype(np.float64) - exact[finite]) / spacing
    return errors


def sweep(lo, hi, n=N):
    return np.linspace(lo, hi, n).astype(np.float32)


def log_spaced(lo_exp, hi_exp, n=N):
    return np.exp2(RNG.uniform(lo_exp, hi_exp, n)).astype(np.float32)


CASES = {
    "expf": (EXPF, lambda: sweep(-103.9, 88.72), np.exp),
    "logf": (LOGF, lambda: np.concatenate([sweep(1e-6, 16.0), log_spaced(-149, 128)]), np.log),
    "sqrtf": (SQRTF, lambda: np.concatenate([sweep(0, 1e4), log_spaced(-149, 128)]), np.sqrt),
    "sinf": (SINF, lambda: np.concatenate([sweep(-200, 200), sweep(-1e5, 1e5)]), np.sin),
    "cosf": (COSF, lambda: np.concatenate([sweep(-200, 200), sweep(-1e5, 1e5)]), np.cos),
    "tanf": (TANF, lambda: sweep(-1.55, 1.55), np.tan),
    "tanhf": (TANHF, lambda: np.concatenate([sweep(-12, 12), sweep(-0.6, 0.6)]), np.tanh),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unary_function_within_documented_bound(libm, name):
    fn, inputs, reference = CASES[name]
    x = inputs()
    errors = ulp_error(apply(libm, fn, x), reference(x.astype(np.float64)))
    worst = int(np.argmax(errors))
    assert errors[worst] <= BOUNDS[name], f"{name}({x[worst]!r}) is {errors[worst]:.3f} ulp off"


def test_powf_within_documented_bound(libm):
    x = log_spaced(-30, 30)
    y = RNG.uniform(-8, 8, N).astype(np.float32)
    errors = ulp_error(apply(libm, POWF, x, y), np.power(x.astype(np.float64), y.astype(np.float64)))
    worst = int(np.argmax(errors))
    assert errors[worst] <= BOUNDS["powf"], f"powf({x[worst]!r}, {y[worst]!r}) is {errors[worst]:.3f} ulp off"


def test_powf_rope_frequencies(libm):
    """The llama2 use: 10000^(i/d) for the rotary embedding."""
    y = (np.arange(0, 4096, dtype=np.float32) / np.float32(4096)).astype(np.float32)
    x = np.full_like(y, 10000.0)
    errors = ulp_error(apply(libm, POWF, x, y), np.power(10000.0, y.astype(np.float64)))
    assert errors.max() <= BOUNDS["powf"]


@pytest.mark.parametrize("x, y, expected", [
    (2.0, 0.0, 1.0), (1.0, np.nan, 1.0), (-2.0, 3.0, -8.0), (-2.0, 2.0, 4.0), (-8.0, 1 / 3, np.nan),
    (0.0, -1.0, np.inf), (-0.0, -3.0, -np.inf), (0.0, 2.0, 0.0), (np.inf, -1.0, 0.0), (0.5, np.inf, 0.0),
    (2.0, 200.0, np.inf), (2.0, -200.0, 0.0), (-1.0, np.inf, 1.0)])
def test_powf_special_cases(libm, x, y, expected):
    got = apply(libm, POWF, np.array([x]), np.array([y]))[0]
    assert (np.isnan(got) and np.isnan(expected)) or got == np.float32(expected)


@pytest.mark.parametrize("fn, reference", [
    (FLOORF, np.floor), (CEILF, np.ceil), (FABSF, np.abs), (TRUNCF, np.trunc)])
def test_exact_functions(libm, fn, reference):
    x = np.concatenate([RNG.uniform(-1e7, 1e7, N), RNG.uniform(-4, 4, N), [0.5, -0.5, -0.0, 8388607.5]]).astype(np.float32)
    assert np.array_equal(apply(libm, fn, x), reference(x))


def test_roundf_is_half_away_from_zero(libm):
    x = np.concatenate([RNG.uniform(-1e4, 1e4, N), np.arange(-20, 20) + 0.5, [0.49999997, -0.49999997]]).astype(np.float32)
    xd = x.astype(np.float64)
    expected = np.sign(xd) * np.floor(np.abs(xd) + 0.5)
    assert np.array_equal(apply(libm, ROUNDF, x), expected.astype(np.float32))


def test_fmodf_is_exact(libm):
    x = RNG.uniform(-1e6, 1e6, N).astype(np.float32)
    y = RNG.uniform(-100, 100, N).astype(np.float32)
    assert np.array_equal(apply(libm, FMODF, x, y), np.fmod(x, y))


def test_nan_and_infinity_inputs(libm):
    specials = np.array([np.nan, np.inf, -np.inf], np.float32)
    assert np.isnan(apply(libm, SINF, specials)).all()
    assert np.array_equal(apply(libm, EXPF, specials[1:]), [np.inf, 0.0])
    assert np.array_equal(apply(libm, TANHF, specials[1:]), [1.0, -1.0])
    assert np.isnan(apply(libm, LOGF, np.array([-1.0], np.float32)))[0]
    assert apply(libm, LOGF, np.array([0.0], np.float32))[0] == -np.inf


@pytest.mark.parametrize("fn, reference", [(0, np.sqrt), (1, np.floor), (2, np.ceil)])
def test_double_functions_are_exact(libm, fn, reference):
    x = np.concatenate([RNG.uniform(0, 1e12, N // 3), np.exp2(RNG.uniform(-1070, 1020, N // 3)), [2.0, 0.25]])
    out = np.empty_like(x)
    libm.sweep_double(fn, x.ctypes.data_as(F64), out.ctypes.data_as(F64), len(x))
    assert np.array_equal(out, reference(x))
