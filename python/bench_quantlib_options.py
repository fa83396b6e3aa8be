#!/usr/bin/env python3
"""fcast's option engines next to QuantLib's on the same contracts, in one
run (docs/quant-options.md quotes its output):

    pip install QuantLib numpy
    OMP_NUM_THREADS=2 python3 python/bench_quantlib_options.py [--ql-paths N] [--iv-sample N]

fcast runs through its Python package (one call into the C engine each,
libfcast.so from $FCAST_LIBRARY or build/); QuantLib through its Python
package, the same C++ engine (single-threaded). Prints, for each:

  implied vol  1M options (the grid of bench/bench_options.c): fcast's
               time; QuantLib's blackFormulaImpliedStdDev timed on
               --iv-sample of them (a Python loop: its per-call overhead is
               included and stated) and scaled to 1M; the largest
               |fcast - QuantLib| over options QuantLib solves and where
               the price pins the vol to 1e-12 (price * 2^-52 / vega).
  binomial     an American put, 10,000 steps: fcast's crr and QuantLib's
               BinomialVanillaEngine("crr"), times and |difference|.
  lsm          the American put S = K = 100, r = 5%, sigma = 20%, T = 1,
               50 exercise dates: fcast 1M paths (100k calibration),
               QuantLib MCAmericanEngine --ql-paths paths (2048
               calibration, its default; monomials of order 3), each
               time and standard error; the ratio at equal standard error
               is (t_QL se_QL^2) / (t_fcast se_fcast^2): the work each
               needs for the same error.
"""
import argparse
import math
import os
import sys
import time

import numpy as np

try:
    import QuantLib as ql
except ImportError:
    sys.exit("bench_quantlib_options.py: the QuantLib package is missing (pip install QuantLib)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
if "FCAST_LIBRARY" not in os.environ:
    os.environ["FCAST_LIBRARY"] = os.path.join(ROOT, "build", "libfcast.so")
from fcast import quant  # noqa: E402

N_IV = 1_000_000


def iv_grid():
    """bench/bench_options.c's grid: golden-ratio sequences over strike, expiry and vol."""
    i = np.arange(N_IV, dtype=np.float64)
    u, v, w = np.fmod(0.6180339887498949 * i, 1.0), np.fmod(0.7548776662466927 * i, 1.0), \
        np.fmod(0.5698402909980532 * i, 1.0)
    call = (np.arange(N_IV) & 1).astype(bool)
    return call, 100.0, 50.0 + 100.0 * u, 0.03, 0.01, 0.05 + 3.0 * v, 0.05 + 0.95 * w


def best_of(fn, repeats=3):
    best, out = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_implied_vol(sample):
    call, S, K, r, q, T, vol = iv_grid()
    types = call.astype(np.intc)   # FCAST_CALL = 1, FCAST_PUT = 0
    g = quant.black_scholes(types, S, K, T, vol, rate=r, div=q)
    ok = (g.price > 1e-300) & (g.price * 2.0 ** -52 / np.maximum(g.vega, 1e-300) < 1e-12)
    t_fc, iv = best_of(lambda: quant.implied_vol(types, S, K, T, g.price, rate=r, div=q))
    idx = np.flatnonzero(ok)[:: max(1, ok.sum() // sample)][:sample]
    F = S * np.exp((r - q) * T)
    t0 = time.perf_counter()
    ql_sd = {}
    for i in idx:   # timed alone
        t = ql.Option.Call if call[i] else ql.Option.Put
        try:
            ql_sd[i] = ql.blackFormulaImpliedStdDev(t, K[i], F[i], g.price[i], math.exp(-r * T[i]), 0.0,
                                                    ql.nullDouble(), 1e-12, 100)
        except RuntimeError:
            pass
    t_ql = (time.perf_counter() - t0) / len(idx) * N_IV
    worst, solved, worst_at = 0.0, 0, idx[0]
    for i, sd in ql_sd.items():
        # compared where QuantLib's answer is meaningful to 1e-10 (as the test
        # fixture): it solved (0 is its answer where it cannot resolve the
        # time value) and its own Black formula, whose normal CDF has a
        # relative error up to 6e-10 in the tails, reproduces the price to
        # 1e-12 in vol terms
        t = ql.Option.Call if call[i] else ql.Option.Put
        ql_price = ql.blackFormula(t, K[i], F[i], vol[i] * math.sqrt(T[i]), math.exp(-r * T[i]))
        if sd > 0 and abs(ql_price - g.price[i]) <= 1e-12 * g.vega[i]:
            solved += 1
            d = abs(sd / math.sqrt(T[i]) - iv[i])
            if d > worst:
                worst, worst_at = d, i
    t0 = time.perf_counter()
    for i in idx:
        ql.blackFormula(ql.Option.Call, K[i], F[i], 0.2, 1.0)   # the loop's Python overhead, roughly
    overhead = (time.perf_counter() - t0) / len(idx) * N_IV
    true_err = np.max(np.abs(iv[ok] - vol[ok]))
    print(f"implied_vol options={N_IV} fcast_seconds={t_fc:.4f} fcast_max_abs_error={true_err:.3g} "
          f"(over {ok.sum()} whose price pins the vol) quantlib_seconds_scaled={t_ql:.3f} "
          f"(from {len(idx)}; Python loop overhead about {overhead:.3f}) ratio={t_ql / t_fc:.1f} "
          f"max_abs_diff_vs_quantlib={worst:.3g} over {solved} (worst: {'call' if call[worst_at] else 'put'} "
          f"K={K[worst_at]:.4f} T={T[worst_at]:.4f} vol={vol[worst_at]:.4f})")


def flat_process(today, S, r, q, vol):
    dc = ql.Actual365Fixed()
    return ql.BlackScholesMertonProcess(ql.QuoteHandle(ql.SimpleQuote(S)),
                                        ql.YieldTermStructureHandle(ql.FlatForward(today, q, dc)),
                                        ql.YieldTermStructureHandle(ql.FlatForward(today, r, dc)),
                                        ql.BlackVolTermStructureHandle(ql.BlackConstantVol(today, ql.NullCalendar(),
                                                                                           vol, dc)))


def american_put(today):
    option = ql.VanillaOption(ql.PlainVanillaPayoff(ql.Option.Put, 100.0),
                              ql.AmericanExercise(today, today + 365))
    return option


def bench_binomial(today, process):
    t_fc, p_fc = best_of(lambda: quant.tree_price("put", 100, 100, 1.0, 0.2, rate=0.05, steps=10_000, tree="crr"))
    def quantlib():
        option = american_put(today)   # a new instrument each time: QuantLib caches its NPV
        option.setPricingEngine(ql.BinomialVanillaEngine(process, "crr", 10_000))
        return option.NPV()
    t_ql, p_ql = best_of(quantlib)
    print(f"binomial steps=10000 fcast_crr_seconds={t_fc:.4f} quantlib_crr_seconds={t_ql:.4f} "
          f"ratio={t_ql / t_fc:.1f} fcast={p_fc:.10f} quantlib={p_ql:.10f} rel_diff={abs(p_fc / p_ql - 1):.2g}")


def bench_lsm(today, process, ql_paths):
    t_fc, r = best_of(lambda: quant.lsm_price("put", 100, 100, 1.0, 0.2, rate=0.05, steps=50, paths=1_000_000,
                                              calibration_paths=100_000), repeats=2)
    option = american_put(today)
    option.setPricingEngine(ql.MCAmericanEngine(process, "pseudorandom", timeSteps=50, requiredSamples=ql_paths,
                                                seed=42, polynomOrder=3, polynomType=ql.LsmBasisSystem.Monomial))
    t0 = time.perf_counter()
    p_ql = option.NPV()
    t_ql = time.perf_counter() - t0
    se_ql = option.errorEstimate()
    ratio = (t_ql * se_ql ** 2) / (t_fc * r.std_error ** 2)
    print(f"lsm steps=50 fcast_paths={r.paths} fcast_seconds={t_fc:.3f} fcast_price={r.price:.5f} "
          f"fcast_se={r.std_error:.5f} quantlib_paths={ql_paths} quantlib_seconds={t_ql:.3f} "
          f"quantlib_price={p_ql:.5f} quantlib_se={se_ql:.5f} ratio_at_equal_se={ratio:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ql-paths", type=int, default=200_000)
    ap.add_argument("--iv-sample", type=int, default=100_000)
    a = ap.parse_args()
    print(f"threads (fcast): {os.environ.get('OMP_NUM_THREADS', 'all')}; QuantLib {ql.__version__}, one thread")
    bench_implied_vol(a.iv_sample)
    today = ql.Date(2, 1, 2025)
    ql.Settings.instance().evaluationDate = today
    process = flat_process(today, 100.0, 0.05, 0.0, 0.2)
    bench_binomial(today, process)
    bench_lsm(today, process, a.ql_paths)


if __name__ == "__main__":
    main()
