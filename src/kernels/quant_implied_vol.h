/* Black-Scholes-Merton implied volatility of one European option, shared by
 * the CPU loop (src/quant/implied_vol.c) and any GPU that runs it later.
 *
 * The problem is solved in Black's normalised variables: with the forward
 * F = S e^{(r-q)T}, the discount D = e^{-rT} and x = ln(F/K), a call's price
 * divided by D sqrt(F K) is
 *     b(x, s) = e^{x/2} N(x/s + s/2) - e^{-x/2} N(x/s - s/2),  s = sigma sqrt(T),
 * a put's is b(-x, s), and an in-the-money option is turned into the
 * out-of-the-money one of the same strike by put-call parity. So every
 * option becomes an out-of-the-money call (x <= 0) whose normalised price
 * beta lies in (0, e^{x/2}), with b increasing in s from 0 to e^{x/2}.
 *
 * b is convex below the inflection point s_c = sqrt(2|x|) and concave
 * above it (Jaeckel, "Let's be rational", 2015). Below, the solver finds
 * the root of ln b(s) - ln beta; above, of ln(e^{x/2} - b(s)) - ln(e^{x/2} -
 * beta), where e^{x/2} - b = e^{x/2} N(-d1) + e^{-x/2} N(d2) is a sum, not a
 * difference, so it keeps full precision when beta is near its upper
 * bound. Both functions are close to linear in s over their half, which
 * makes Halley's method (third order) converge in 2 to 4 steps from the
 * asymptotic starting points below; every step stays inside a bracket that
 * shrinks with each evaluation, and a step leaving it is replaced by
 * bisection, so the iteration cannot diverge. This is a simpler cousin of
 * Jaeckel's method (which adds rational initial guesses to need two steps
 * always); written by hand because no Debian library offers one. */
#ifndef FC_KERNELS_QUANT_IMPLIED_VOL_H
#define FC_KERNELS_QUANT_IMPLIED_VOL_H

#include <float.h>
#include <math.h>
#include "core/hd.h"
#include "kernels/quant_normal.h"

#define FC_IV_MAX_ITER 100
/* How far below the lower bound a price may be and still be at it (vol 0),
 * and how close below the upper bound a price is at it (refused), in units
 * of DBL_EPSILON (S e^{-qT} + K e^{-rT}). */
#define FC_IV_ROUNDING 4.0

/* Why a price has no implied volatility (0: it has one). */
enum {
    FC_IV_OK = 0,
    FC_IV_BELOW_LOWER,   /* price below the discounted intrinsic value */
    FC_IV_ABOVE_UPPER,   /* price at or above S e^{-qT} (call) or K e^{-rT} (put) */
    FC_IV_NO_CONVERGENCE /* the bracket did not close in FC_IV_MAX_ITER steps */
};

/* The no-arbitrage bounds of a European price: lower = max(+-(S e^{-qT} -
 * K e^{-rT}), 0), upper = S e^{-qT} (call) or K e^{-rT} (put). */
FC_HD void fc_iv_bounds(int is_call, double spot, double strike, double rate, double div, double expiry,
                        double *lower, double *upper) {
    double fs = spot * exp(-div * expiry), fk = strike * exp(-rate * expiry);
    double intrinsic = is_call ? fs - fk : fk - fs;
    *lower = intrinsic > 0.0 ? intrinsic : 0.0;
    *upper = is_call ? fs : fk;
}

/* ln b(x, s) and the two ratios Halley needs, for the lower half (x < 0):
 * f = ln b - ln beta, f' = b'/b, f''/f' = b''/b' - b'/b. */
FC_HD double fc_iv_low_step(double x, double s, double log_beta, double *f) {
    double d1 = x / s + 0.5 * s, d2 = x / s - 0.5 * s;
    double b = exp(0.5 * x) * fc_norm_cdf(d1) - exp(-0.5 * x) * fc_norm_cdf(d2);
    double vega = FC_INV_SQRT_2PI * exp(-0.5 * (x * x / (s * s) + 0.25 * s * s));   /* b'(s) */
    if (!(b > 0.0)) { /* below double precision: the root lies to the right */
        *f = -INFINITY;
        return 0.0;
    }
    *f = log(b) - log_beta;
    double g1 = vega / b, curv = x * x / (s * s * s) - 0.25 * s;   /* b''/b' */
    double g2_over_g1 = curv - g1;
    double newton = *f / g1;
    return newton / (1.0 - 0.5 * newton * g2_over_g1);   /* the Halley step, to subtract */
}

/* The upper half: f = ln w(s) - ln w_target with w = e^{x/2} - b, f' = -b'/w,
 * f''/f' = b''/b' + b'/w. */
FC_HD double fc_iv_high_step(double x, double s, double log_w_target, double *f) {
    double d1 = x / s + 0.5 * s, d2 = x / s - 0.5 * s;
    double w = exp(0.5 * x) * fc_norm_cdf(-d1) + exp(-0.5 * x) * fc_norm_cdf(d2);
    double vega = FC_INV_SQRT_2PI * exp(-0.5 * (x * x / (s * s) + 0.25 * s * s));
    if (!(w > 0.0)) { /* w underflowed: s is far too large */
        *f = -INFINITY;
        return 0.0;
    }
    *f = log(w) - log_w_target;
    double g1 = -vega / w, curv = x * x / (s * s * s) - 0.25 * s;
    double g2_over_g1 = curv - g1;
    double newton = *f / g1;
    return newton / (1.0 - 0.5 * newton * g2_over_g1);
}

/* Starting point below s_c: b ~ phi(x/s) s^3 / x^2 (Mills' ratio) gives
 * -x^2 / (2 s^2) = ln beta - ln(s^3 / (x^2 sqrt(2 pi))), solved by two
 * fixed-point passes from s = |x| / sqrt(-2 ln beta). */
FC_HD double fc_iv_low_guess(double x, double log_beta, double s_c) {
    double s = fabs(x) / sqrt(-2.0 * log_beta);
    for (int k = 0; k < 2; k++) {
        double rhs = log_beta - log(s * s * s / (x * x) * FC_INV_SQRT_2PI);
        if (!(rhs < 0.0)) break;
        s = fabs(x) / sqrt(-2.0 * rhs);
    }
    return s > 0.0 && s < s_c ? s : 0.5 * s_c;
}

/* Starting point above s_c: for large s, w ~ (e^{x/2} + e^{-x/2}) N(-s/2). */
FC_HD double fc_iv_high_guess(double x, double w_target, double s_c) {
    double p = w_target / (exp(0.5 * x) + exp(-0.5 * x));
    double s = p > 0.0 && p < 0.5 ? -2.0 * fc_norm_inv(p) : s_c;
    return s > s_c ? s : s_c * 1.5 + 1e-3;
}

/* Bracketed Halley on one half: [lo, hi] holds the root (hi may be inf);
 * f increasing in s in both halves. Returns the root or NaN. */
FC_HD double fc_iv_halley(double x, double target_log, int high, double s, double lo, double hi) {
    for (int it = 0; it < FC_IV_MAX_ITER; it++) {
        double f, step = high ? fc_iv_high_step(x, s, target_log, &f) : fc_iv_low_step(x, s, target_log, &f);
        /* low half: f = ln b - ln beta rises with s; high half: ln w falls with s */
        int root_right = high ? f > 0.0 : f < 0.0;
        if (f == 0.0) return s;
        if (root_right) lo = s; else hi = s;
        double next = s - step;
        if (!(next > lo && next < hi) || !isfinite(step))
            next = isfinite(hi) ? 0.5 * (lo + hi) : 2.0 * s;   /* bisect (or widen to an infinite end) */
        /* 64 ulps: near the root the steps are rounding noise of f (in the far
         * tails, where b is a difference of nearly equal terms), and a cubic
         * step this small leaves an error far below it */
        if (fabs(next - s) <= 64.0 * DBL_EPSILON * s) return next;
        if (isfinite(hi) && hi - lo <= 4.0 * DBL_EPSILON * hi) return 0.5 * (lo + hi);
        s = next;
    }
    return NAN;
}

/* Total volatility s = sigma sqrt(T) of an out-of-the-money call (x <= 0)
 * with normalised price beta in (0, e^{x/2}); NaN if it did not converge. */
FC_HD double fc_iv_normalised(double x, double beta) {
    double s_c = sqrt(-2.0 * x);
    double ex = exp(0.5 * x), emx = exp(-0.5 * x);
    /* b at the inflection point says which half holds the root */
    double b_c = s_c > 0.0 ? ex * fc_norm_cdf(x / s_c + 0.5 * s_c) - emx * fc_norm_cdf(x / s_c - 0.5 * s_c) : 0.0;
    if (beta < b_c) {
        double lb = log(beta);
        return fc_iv_halley(x, lb, 0, fc_iv_low_guess(x, lb, s_c), 0.0, s_c);
    }
    double w = ex - beta;
    return fc_iv_halley(x, log(w), 1, fc_iv_high_guess(x, w, s_c), s_c, INFINITY);
}

/* Implied volatility sigma of one European option: FC_IV_OK and *vol, or
 * the reason there is none (*vol NaN). A price equal to the lower bound
 * (or within rounding of it, FC_IV_ROUNDING) has volatility 0; one within
 * rounding of the upper bound is FC_IV_ABOVE_UPPER. The inputs
 * are assumed checked (positive S, K, T, finite r, q and price). */
FC_HD int fc_implied_vol(int is_call, double spot, double strike, double rate, double div, double expiry,
                         double price, double *vol) {
    double lower, upper;
    fc_iv_bounds(is_call, spot, strike, rate, div, expiry, &lower, &upper);
    *vol = NAN;
    /* The bound is a difference of two products: a price that far below
     * it, or less, is at the bound to rounding (time value 0, vol 0). */
    double rounding = FC_IV_ROUNDING * DBL_EPSILON * (spot * exp(-div * expiry) + strike * exp(-rate * expiry));
    if (price < lower - rounding) return FC_IV_BELOW_LOWER;
    /* likewise at the top: within rounding of the upper bound, only an
     * infinite volatility would do */
    if (price >= upper - rounding) return FC_IV_ABOVE_UPPER;
    /* Normalise: x = theta ln(F/K) of the equivalent call, beta = price / (D sqrt(F K)). */
    double log_fk = log(spot / strike) + (rate - div) * expiry;
    double x = is_call ? log_fk : -log_fk;
    double otm = price;
    if (x > 0.0) { /* in the money: the out-of-the-money option of the same strike (parity) */
        otm = price - lower;
        x = -x;
    }
    double scale = sqrt(spot * exp(-div * expiry) * strike * exp(-rate * expiry));
    double beta = otm / scale;
    if (!(beta > 0.0)) { /* at the lower bound (to rounding): no time value */
        *vol = 0.0;
        return FC_IV_OK;
    }
    if (beta >= exp(0.5 * x)) return FC_IV_ABOVE_UPPER;
    double s = fc_iv_normalised(x, beta);
    if (!isfinite(s)) return FC_IV_NO_CONVERGENCE;
    *vol = s / sqrt(expiry);
    return FC_IV_OK;
}

#endif
