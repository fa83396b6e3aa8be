"""fcast.quant's options beyond Black-Scholes (re-exported by fcast.quant):
implied volatility, American and barrier options, Monte Carlo Greeks.

    from fcast import quant
    quant.implied_vol("call", spot=100, strike=[90, 100], expiry=1.0, price=[14.7, 10.45], rate=0.05)
    quant.tree_price("put", 100, 100, 1.0, 0.2, rate=0.05, american=True)   # bbsr, 1000 steps

Conventions and accuracy: docs/quant-options.md. The C signatures are
declared here, beside their only callers (fcast/_lib.py declares the older
ones)."""
import ctypes
import dataclasses
from ctypes import POINTER, c_double, c_int, c_size_t, c_uint64, c_void_p

import numpy as np

from ._lib import check, lib
from . import quant as _q

__all__ = ["implied_vol", "tree_price", "lsm_price", "LSMResult", "barrier_price", "barrier_mc_price", "mc_greeks",
           "MCGreeks", "IV_OK", "IV_BELOW_LOWER", "IV_ABOVE_UPPER", "IV_NO_CONVERGENCE"]

# fcast_implied_vol's status values (include/fcast/quant_options.h)
IV_OK, IV_BELOW_LOWER, IV_ABOVE_UPPER, IV_NO_CONVERGENCE = 0, 1, 2, 3

_TREES = {"bbsr": 0, "bbs": 1, "crr": 2}


class _TreeOption(ctypes.Structure):
    _fields_ = [("type", c_int), ("american", c_int)] + \
               [(name, c_double) for name in ("spot", "strike", "rate", "div", "vol", "expiry")] + \
               [("steps", c_size_t), ("tree", c_int)]


class _LSMOption(ctypes.Structure):
    _fields_ = [("type", c_int)] + [(name, c_double) for name in ("spot", "strike", "rate", "div", "vol", "expiry")] + \
               [("steps", c_size_t), ("paths", c_uint64), ("calibration_paths", c_uint64), ("degree", c_int),
                ("seed", c_uint64)]


class _LSMResult(ctypes.Structure):
    _fields_ = [(name, c_double) for name in ("price", "std_error", "estimate", "calibration_price")] + \
               [("paths", c_uint64), ("calibration_paths", c_uint64)]


@dataclasses.dataclass(frozen=True)
class LSMResult:
    """A Longstaff-Schwartz price: max(estimate, exercise today), the
    estimate's standard error, the estimate itself (low-biased: its paths
    are independent of the regression's), the in-sample mean on the
    calibration paths (high-biased, a diagnostic), and the path counts."""
    price: float
    std_error: float
    estimate: float
    calibration_price: float
    paths: int
    calibration_paths: int


_BARRIER_KINDS = {"down-and-in": 0, "up-and-in": 1, "down-and-out": 2, "up-and-out": 3}


class _BarrierOption(ctypes.Structure):
    _fields_ = [("type", c_int), ("kind", c_int)] + \
               [(name, c_double) for name in ("spot", "strike", "rate", "div", "vol", "expiry", "barrier", "rebate")] + \
               [("steps", c_size_t), ("paths", c_uint64), ("seed", c_uint64)]


class _GreeksResult(ctypes.Structure):
    _fields_ = [(name, c_double) for name in ("delta", "delta_std_error", "gamma", "gamma_std_error", "vega",
                                              "vega_std_error")] + [("paths", c_uint64)]


@dataclasses.dataclass(frozen=True)
class MCGreeks:
    """Monte Carlo Greeks with their standard errors (vega per 1.00 of
    volatility); gamma is NaN for the pathwise method."""
    delta: float
    delta_std_error: float
    gamma: float
    gamma_std_error: float
    vega: float
    vega_std_error: float
    paths: int


def _declare():
    for name, restype, argtypes in (
            ("fcast_implied_vol", c_int, [c_void_p, POINTER(c_double), POINTER(c_double), POINTER(c_int)]),
            ("fcast_tree_price", c_int, [c_void_p, POINTER(c_double)]),
            ("fcast_lsm_price", c_int, [c_void_p, c_void_p]),
            ("fcast_barrier_price", c_int, [c_void_p, POINTER(c_double)]),
            ("fcast_barrier_mc_price", c_int, [c_void_p, c_void_p]),
            ("fcast_mc_greeks", c_int, [c_void_p, c_int, c_void_p])):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes


_declare()


def implied_vol(option_type, spot, strike, expiry, price, rate=0.0, div=0.0, *, errors="raise"):
    """Black-Scholes-Merton implied volatility of European options from
    their prices (continuous dividend yield div, rate continuously
    compounded, expiry in years). Arguments broadcast as numpy's do; the
    result has the broadcast shape (a float for scalar arguments).

    errors="raise": a price outside the no-arbitrage bounds (below the
    discounted intrinsic value max(+-(S e^{-qT} - K e^{-rT}), 0), or at or
    above S e^{-qT} for a call / K e^{-rT} for a put) raises
    fcast.FcastValueError naming the option's position and the bound.
    errors="status": returns (vol, status) instead, vol NaN where status is
    not IV_OK (IV_BELOW_LOWER, IV_ABOVE_UPPER, IV_NO_CONVERGENCE)."""
    if errors not in ("raise", "status"):
        raise ValueError(f"fcast.quant.implied_vol: errors must be 'raise' or 'status', got {errors!r}")
    # price broadcasts with the rest: it takes vol's place in _Options (which
    # fcast_implied_vol does not read), then goes to C on its own
    o = _q._Options(option_type, spot, strike, expiry, _q._float64(price, "price"), rate, div)
    p = o._keep[4]
    o.struct.vol = None
    vol = o.empty()
    status = np.empty(o.shape, dtype=np.intc) if errors == "status" else None
    check(lib.fcast_implied_vol(ctypes.byref(o.struct), _q._ptr(p), _q._ptr(vol),
                                None if status is None else status.ctypes.data_as(POINTER(c_int))))
    if status is None:
        return o.shaped(vol)
    return o.shaped(vol), (status.reshape(o.shape)[()] if o.shape == () else status)


def tree_price(option_type, spot, strike, expiry, vol, rate=0.0, div=0.0, *, american=True, steps=1000,
               tree="bbsr"):
    """One option on a binomial tree, as `fcast quant option --method
    binomial` prices it: American (default) or European exercise; tree
    "bbsr" (Black-Scholes at the last step and Richardson extrapolation,
    the default), "bbs" or "crr" (plain Cox-Ross-Rubinstein, equal to
    QuantLib's BinomialVanillaEngine "crr" at the same steps)."""
    if tree not in _TREES:
        raise ValueError(f"fcast.quant.tree_price: tree must be one of {sorted(_TREES)}, got {tree!r}")
    o = _TreeOption(type=int(_q._type_codes(option_type)), american=bool(american), spot=spot, strike=strike,
                    rate=rate, div=div, vol=vol, expiry=expiry, steps=int(steps), tree=_TREES[tree])
    out = c_double()
    check(lib.fcast_tree_price(ctypes.byref(o), ctypes.byref(out)))
    return out.value


def lsm_price(option_type, spot, strike, expiry, vol, rate=0.0, div=0.0, *, steps=50, paths=1_000_000,
              calibration_paths=100_000, degree=3, seed=42):
    """An American option by Longstaff-Schwartz Monte Carlo, as `fcast quant
    option --exercise american --method lsm` prices it: exercise at `steps`
    equal dates, the continuation regressed on 1, x, .., x^degree (x = S/K)
    over `calibration_paths` paths in the money, the price from `paths`
    further, independent paths (low-biased). The C code runs without the GIL."""
    o = _LSMOption(type=int(_q._type_codes(option_type)), spot=spot, strike=strike, rate=rate, div=div, vol=vol,
                   expiry=expiry, steps=int(steps), paths=int(paths), calibration_paths=int(calibration_paths),
                   degree=int(degree), seed=int(seed))
    r = _LSMResult()
    check(lib.fcast_lsm_price(ctypes.byref(o), ctypes.byref(r)))
    return LSMResult(r.price, r.std_error, r.estimate, r.calibration_price, int(r.paths), int(r.calibration_paths))


def _barrier(option_type, spot, strike, expiry, vol, rate, div, barrier, kind, rebate, steps=0, paths=0, seed=0):
    if kind not in _BARRIER_KINDS:
        raise ValueError(f"fcast.quant: kind must be one of {list(_BARRIER_KINDS)}, got {kind!r}")
    return _BarrierOption(type=int(_q._type_codes(option_type)), kind=_BARRIER_KINDS[kind], spot=spot, strike=strike,
                          rate=rate, div=div, vol=vol, expiry=expiry, barrier=barrier, rebate=rebate,
                          steps=int(steps), paths=int(paths), seed=int(seed))


def barrier_price(option_type, spot, strike, expiry, vol, rate=0.0, div=0.0, *, barrier, kind, rebate=0.0):
    """A single-barrier European option, monitored continuously, in closed
    form (Reiner-Rubinstein; QuantLib's AnalyticBarrierEngine). kind:
    "down-and-in", "up-and-in", "down-and-out" or "up-and-out"; rebate paid
    at expiry (knock-in never knocked in) or at the touch (knock-out)."""
    out = c_double()
    check(lib.fcast_barrier_price(ctypes.byref(_barrier(option_type, spot, strike, expiry, vol, rate, div, barrier,
                                                        kind, rebate)), ctypes.byref(out)))
    return out.value


def barrier_mc_price(option_type, spot, strike, expiry, vol, rate=0.0, div=0.0, *, barrier, kind, rebate=0.0,
                     steps=50, paths=1_000_000, seed=42):
    """The same option by Monte Carlo on `steps` steps with the
    Brownian-bridge crossing correction (continuous monitoring): an
    MCResult (price, std_error, ci_low, ci_high, paths)."""
    r = _q._MCResult()
    check(lib.fcast_barrier_mc_price(ctypes.byref(_barrier(option_type, spot, strike, expiry, vol, rate, div, barrier,
                                                           kind, rebate, steps, paths, seed)), ctypes.byref(r)))
    return _q.MCResult(r.price, r.std_error, r.ci_low, r.ci_high, int(r.paths))


def mc_greeks(option_type, spot, strike, expiry, vol, rate=0.0, div=0.0, *, method="pathwise", paths=1_000_000,
              antithetic=False, seed=42):
    """A European option's Greeks by Monte Carlo, from the paths of
    mc_price's one-step price for the same seed: method "pathwise" (delta,
    vega) or "lr" (likelihood ratio: delta, gamma, vega)."""
    methods = {"pathwise": 1, "lr": 2}
    if method not in methods:
        raise ValueError(f"fcast.quant.mc_greeks: method must be 'pathwise' or 'lr', got {method!r}")
    o = _q._MCOption(type=int(_q._type_codes(option_type)), asian=0, spot=spot, strike=strike, rate=rate, div=div,
                     vol=vol, expiry=expiry, fixing_times=None, n_fixings=0, steps=0, paths=int(paths),
                     seed=int(seed), antithetic=bool(antithetic), no_control_variate=0)
    r = _GreeksResult()
    check(lib.fcast_mc_greeks(ctypes.byref(o), methods[method], ctypes.byref(r)))
    return MCGreeks(r.delta, r.delta_std_error, r.gamma, r.gamma_std_error, r.vega, r.vega_std_error, int(r.paths))
