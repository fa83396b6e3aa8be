#!/usr/bin/env python3
"""Reference fixtures for fcast's options beyond Black-Scholes, from QuantLib.

    pip install QuantLib scipy numpy
    python3 python/make_option_fixtures.py [--out DIR]

Runs from any directory (the default --out, tests/fixtures/quant, is found
from this script's location) and writes nothing but the fixtures:

  options_implied_vol.csv  type,S,K,r,q,T,price,vol,ql_vol,ql_ok
      A grid of European options (calls and puts; strikes 40 to 250 on
      S = 100; r in {-1%, 0, 5%}; q in {0, 3%}; T from 0.01 to 5 years;
      vol from 1% to 300%). price is the Black-Scholes-Merton price at vol,
      computed here with scipy's normal CDF (accurate to a few ulps in the
      tails); ql_vol is QuantLib's blackFormulaImpliedStdDev(...) / sqrt(T)
      at accuracy 1e-16 from that price (empty where it threw). ql_ok is 1
      where QuantLib's answer is meaningful to 1e-10: its solver converged
      (it neither threw nor returned 0, its answer for prices whose time
      value it cannot resolve) and its own Black formula (whose normal CDF has a relative error up to
      6e-10 between -6.5 and -5 standard deviations) reproduces the price to
      within 1e-12 in volatility terms. Rows whose volatility the price does
      not pin down in double precision (price * 2^-52 / vega > 1e-12) are
      left out: any vol in a range wider than the tolerance gives that price.
  options_binomial.csv     exercise,type,S,K,r,q,T,vol,steps,ql_crr,reference,ql_exact_grid,
                           ql_r_tree,ql_q_tree
      European and American options; ql_crr is QuantLib's
      BinomialVanillaEngine(process, "crr", steps) on flat curves
      (Actual365Fixed, T = days / 365), reference the accurate value:
      Black-Scholes for European exercise, QdFpAmericanEngine with its
      high-precision scheme for American exercise. ql_exact_grid is 0 where
      (T / steps) * steps != T in doubles: there QuantLib 1.44's American
      exercise misses the payoff at expiry (its American CRR value falls
      below its European one at the same steps, e.g. T = 182/365 at 500 and
      1000 steps), so those rows cannot serve as references for the tree.
      ql_r_tree and ql_q_tree are the rate and dividend yield QuantLib's tree
      effectively uses, computed here as QuantLib does: r' = the zero rate at
      T of the flat curve (ln(1 / (1 / e^{rT})) / T), the drift the forward
      rate over [0, 1e-4] of a flat curve at r' less that of q' (each
      ln(1 / (1 / e^{x 1e-4})) / 1e-4), and the discount e^{-r' dt}; so
      ql_r_tree = r' and ql_q_tree = r' - (fwd(r') - fwd(q')). Fed these, a
      tree built as QuantLib's reproduces ql_crr to the last bit (checked
      in numpy when this generator was written).
  options_lsm.csv          type,S,K,r,q,T,vol,steps,american,bermudan,ql_mc,ql_mc_se
      American puts and a call on a dividend payer for Longstaff-Schwartz,
      T = 7 steps / 365 so that the steps fall on whole days: american is
      QdFpAmericanEngine (high precision); bermudan the same option
      exercisable only at the `steps` dates t_k = 7k days, by
      FdBlackScholesVanillaEngine on a 2000 x 2000 grid (what Monte Carlo
      on those dates converges to, less the regression's low bias); ql_mc
      and ql_mc_se QuantLib's MCAmericanEngine (pseudorandom, 200000
      paths, monomials of order 3, 50000 calibration paths, seed 42).
  options_barrier.csv      type,kind,S,K,H,rebate,r,q,T,vol,ql_price
      Single-barrier options, continuously monitored, by QuantLib's
      AnalyticBarrierEngine: calls and puts, the four kinds, barriers
      below and above the strike (down barriers 80 and 95, up barriers
      105 and 125 on S = 100; strikes 90, 100, 110), rebates 0 and 2.5,
      three markets (with and without dividends).
Values are Python's repr of the double (shortest exact round trip).
"""
import argparse
import csv
import itertools
import math
import os
import sys

import numpy as np

try:
    import QuantLib as ql
    from scipy.special import ndtr
except ImportError:
    sys.exit("make_option_fixtures.py: QuantLib and scipy are needed (pip install QuantLib scipy)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bsm_price(is_call, S, K, r, q, T, vol):
    """Black-Scholes-Merton, the out-of-the-money side computed directly and
    the in-the-money one by parity (the same arithmetic QuantLib's answer is
    checked against)."""
    F, D, s = S * math.exp((r - q) * T), math.exp(-r * T), vol * math.sqrt(T)
    d1 = math.log(F / K) / s + 0.5 * s
    d2 = d1 - s
    if is_call:
        return D * (F * ndtr(d1) - K * ndtr(d2))
    return D * (K * ndtr(-d2) - F * ndtr(-d1))


def bsm_vega(S, K, r, q, T, vol):
    F, D, s = S * math.exp((r - q) * T), math.exp(-r * T), vol * math.sqrt(T)
    d1 = math.log(F / K) / s + 0.5 * s
    return D * F * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(T)


def implied_vol_rows():
    rows = []
    grid = itertools.product(["call", "put"], [40.0, 70.0, 90.0, 100.0, 110.0, 140.0, 250.0], [0.0, 0.05, -0.01],
                             [0.0, 0.03], [0.01, 0.25, 1.0, 5.0], [0.01, 0.05, 0.2, 0.5, 1.0, 3.0])
    for typ, K, r, q, T, vol in grid:
        S = 100.0
        is_call = typ == "call"
        price = bsm_price(is_call, S, K, r, q, T, vol)
        vega = bsm_vega(S, K, r, q, T, vol)
        if not (vega > 0 and price * 2.0 ** -52 / vega <= 1e-12):
            continue
        t = ql.Option.Call if is_call else ql.Option.Put
        F, D = S * math.exp((r - q) * T), math.exp(-r * T)
        try:
            ql_vol = ql.blackFormulaImpliedStdDev(t, K, F, price, D, 0.0, ql.nullDouble(), 1e-16, 1000) / math.sqrt(T)
        except RuntimeError:
            ql_vol = float("nan")
        ql_price = ql.blackFormula(t, K, F, vol * math.sqrt(T), D)
        ok = math.isfinite(ql_vol) and ql_vol > 0 and abs(ql_price - price) / vega <= 1e-12
        rows.append([typ, S, K, r, q, T, price, vol, "" if math.isnan(ql_vol) else ql_vol, int(ok)])
    return rows


def flat_process(today, S, r, q, vol):
    dc = ql.Actual365Fixed()
    return ql.BlackScholesMertonProcess(ql.QuoteHandle(ql.SimpleQuote(S)),
                                        ql.YieldTermStructureHandle(ql.FlatForward(today, q, dc)),
                                        ql.YieldTermStructureHandle(ql.FlatForward(today, r, dc)),
                                        ql.BlackVolTermStructureHandle(ql.BlackConstantVol(today, ql.NullCalendar(),
                                                                                           vol, dc)))


def ql_tree_rates(r, q, T):
    """The (rate, dividend yield) that QuantLib's BinomialVanillaEngine
    effectively feeds its tree (see the module's notes)."""
    def zero_rate(x):   # FlatForward(x).zeroRate(T): from the discount factor 1 / e^{x T}
        return math.log(1.0 / (1.0 / math.exp(x * T))) / T

    def forward_rate(x):   # FlatForward(x).forwardRate(0, 1e-4): from two discount factors
        return math.log((1.0 / math.exp(x * 0.0)) / (1.0 / math.exp(x * 1e-4))) / 1e-4
    r_eff, q_eff = zero_rate(r), zero_rate(q) if q != 0.0 else 0.0
    return r_eff, r_eff - (forward_rate(r_eff) - forward_rate(q_eff))


def binomial_rows():
    today = ql.Date(2, 1, 2025)
    ql.Settings.instance().evaluationDate = today
    markets = [  # S, K, r, q, days, vol
        (100.0, 100.0, 0.05, 0.0, 365, 0.2), (100.0, 110.0, 0.03, 0.02, 730, 0.3),
        (90.0, 100.0, 0.08, 0.0, 182, 0.25), (110.0, 100.0, 0.02, 0.06, 365, 0.35),
        (100.0, 80.0, 0.0, 0.04, 1095, 0.15)]
    rows = []
    for (S, K, r, q, days, vol), typ, exercise, steps in itertools.product(
            markets, ["call", "put"], ["european", "american"], [50, 101, 500, 1000]):
        maturity = today + days
        T = days / 365.0
        process = flat_process(today, S, r, q, vol)
        payoff = ql.PlainVanillaPayoff(ql.Option.Call if typ == "call" else ql.Option.Put, K)
        ex = ql.AmericanExercise(today, maturity) if exercise == "american" else ql.EuropeanExercise(maturity)
        option = ql.VanillaOption(payoff, ex)
        option.setPricingEngine(ql.BinomialVanillaEngine(process, "crr", steps))
        crr = option.NPV()
        if exercise == "american":
            option.setPricingEngine(ql.QdFpAmericanEngine(process, ql.QdFpAmericanEngine.highPrecisionScheme()))
        else:
            option.setPricingEngine(ql.AnalyticEuropeanEngine(process))
        r_tree, q_tree = ql_tree_rates(r, q, T)
        rows.append([exercise, typ, S, K, r, q, T, vol, steps, crr, option.NPV(), int((T / steps) * steps == T),
                     r_tree, q_tree])
    return rows


def lsm_rows():
    today = ql.Date(2, 1, 2025)
    ql.Settings.instance().evaluationDate = today
    steps = 50
    rows = []
    for typ, S, K, r, q, vol in [("put", 100.0, 100.0, 0.05, 0.0, 0.2), ("put", 90.0, 100.0, 0.06, 0.0, 0.3),
                                 ("put", 110.0, 100.0, 0.03, 0.01, 0.25), ("call", 100.0, 95.0, 0.02, 0.08, 0.3)]:
        process = flat_process(today, S, r, q, vol)
        payoff = ql.PlainVanillaPayoff(ql.Option.Call if typ == "call" else ql.Option.Put, K)
        maturity = today + 7 * steps
        american = ql.VanillaOption(payoff, ql.AmericanExercise(today, maturity))
        american.setPricingEngine(ql.QdFpAmericanEngine(process, ql.QdFpAmericanEngine.highPrecisionScheme()))
        bermudan = ql.VanillaOption(payoff, ql.BermudanExercise([today + 7 * k for k in range(1, steps + 1)]))
        bermudan.setPricingEngine(ql.FdBlackScholesVanillaEngine(process, 2000, 2000))
        mc = ql.VanillaOption(payoff, ql.AmericanExercise(today, maturity))
        mc.setPricingEngine(ql.MCAmericanEngine(process, "pseudorandom", timeSteps=steps, requiredSamples=200000,
                                                seed=42, polynomOrder=3, polynomType=ql.LsmBasisSystem.Monomial,
                                                nCalibrationSamples=50000))
        rows.append([typ, S, K, r, q, 7 * steps / 365.0, vol, steps, american.NPV(), bermudan.NPV(), mc.NPV(),
                     mc.errorEstimate()])
    return rows


BARRIER_KINDS = {"down-and-in": ql.Barrier.DownIn, "up-and-in": ql.Barrier.UpIn,
                 "down-and-out": ql.Barrier.DownOut, "up-and-out": ql.Barrier.UpOut}


def barrier_rows():
    today = ql.Date(2, 1, 2025)
    ql.Settings.instance().evaluationDate = today
    rows = []
    for (r, q, vol, days), typ, kind, H, K, rebate in itertools.product(
            [(0.05, 0.0, 0.2, 365), (0.03, 0.02, 0.3, 182), (0.08, 0.04, 0.25, 730)], ["call", "put"],
            BARRIER_KINDS, [80.0, 95.0, 105.0, 125.0], [90.0, 100.0, 110.0], [0.0, 2.5]):
        if ("down" in kind) != (H < 100.0):
            continue
        process = flat_process(today, 100.0, r, q, vol)
        payoff = ql.PlainVanillaPayoff(ql.Option.Call if typ == "call" else ql.Option.Put, K)
        option = ql.BarrierOption(BARRIER_KINDS[kind], H, rebate, payoff, ql.EuropeanExercise(today + days))
        option.setPricingEngine(ql.AnalyticBarrierEngine(process))
        rows.append([typ, kind, 100.0, K, H, rebate, r, q, days / 365.0, vol, option.NPV()])
    return rows


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for row in rows:
            w.writerow([repr(float(v)) if isinstance(v, float) else v for v in row])
    print(f"wrote {path} ({len(rows)} rows)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "fixtures", "quant"))
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "options_implied_vol.csv"),
          ["type", "S", "K", "r", "q", "T", "price", "vol", "ql_vol", "ql_ok"], implied_vol_rows())
    write(os.path.join(out, "options_binomial.csv"),
          ["exercise", "type", "S", "K", "r", "q", "T", "vol", "steps", "ql_crr", "reference",
           "ql_exact_grid", "ql_r_tree", "ql_q_tree"], binomial_rows())
    write(os.path.join(out, "options_barrier.csv"),
          ["type", "kind", "S", "K", "H", "rebate", "r", "q", "T", "vol", "ql_price"], barrier_rows())
    write(os.path.join(out, "options_lsm.csv"),
          ["type", "S", "K", "r", "q", "T", "vol", "steps", "american", "bermudan", "ql_mc", "ql_mc_se"], lsm_rows())


if __name__ == "__main__":
    main()
