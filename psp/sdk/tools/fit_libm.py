"""Derive the polynomial coefficients used in psp/sdk/libm/mathf.c.

Each kernel is fitted by weighted least squares (relative error) on Chebyshev nodes in
float64, then the coefficients are rounded to float32; the printed C lines are pasted
into mathf.c. Run: python psp/sdk/tools/fit_libm.py
"""

import math

import numpy as np


def chebyshev_nodes(lo, hi, n=4000):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos((2 * k + 1) * np.pi / (2 * n))


def fit(variable, target, weight, degree):
    """Least-squares coefficients c[0..degree] of sum c_i * variable**i ~ target."""
    matrix = np.vander(variable, degree + 1, increasing=True) * weight[:, None]
    coeffs, *_ = np.linalg.lstsq(matrix, target * weight, rcond=None)
    return [float(np.float32(c)) for c in coeffs]


def show(name, coeffs):
    body = ", ".join(f"{c:.9e}f" for c in coeffs)
    print(f"static const float {name}[] = {{{body}}};")


def main():
    # expf: exp(r) = 1 + r + r^2 * Q(r), |r| <= ln2/2
    r = chebyshev_nodes(-math.log(2) / 2, math.log(2) / 2)
    q = (np.expm1(r) - r) / r**2
    show("EXP_Q", fit(r, q, 1 / np.exp(r), 5))

    # logf: log(1+f) = f - f^2/2 + s*(f^2/2 + R(s^2)), s = f/(2+f), 1+f in [sqrt(1/2), sqrt(2))
    s = chebyshev_nodes((math.sqrt(0.5) - 1) / (math.sqrt(0.5) + 1), (math.sqrt(2) - 1) / (math.sqrt(2) + 1))
    s = s[np.abs(s) > 1e-4]
    f = 2 * s / (1 - s)
    half_sq = f * f / 2
    rr = (np.log1p(f) - f + half_sq) / s - half_sq
    z = s * s
    coeffs = fit(z, rr / z, z, 3)   # R(z) = z * P(z); relative weight ~ the term's size
    show("LOG_P", coeffs)

    # sinf/cosf on |r| <= pi/4: sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2)
    r = chebyshev_nodes(1e-3, math.pi / 4)
    z = r * r
    show("SIN_S", fit(z, (np.sin(r) - r) / r**3, r**3 / np.sin(r), 3))
    show("COS_C", fit(z, (np.cos(r) - 1 + z / 2) / z**2, z**2 / np.cos(r), 3))

    # tanhf on |x| < 0.55: tanh x = x + x^3 T(x^2)
    x = chebyshev_nodes(1e-3, 0.55)
    z = x * x
    show("TANH_T", fit(z, (np.tanh(x) - x) / x**3, x**3 / np.tanh(x), 5))


if __name__ == "__main__":
    main()
