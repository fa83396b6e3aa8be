/* Black-Scholes-Merton closed forms (see black_scholes.h). */
#include "quant/black_scholes.h"

#include <math.h>
#include "core/error.h"
#include "kernels/quant_normal.h"

fc_status fc_bs_check(const fc_bs_market *m) {
    if (!(m->spot > 0.0) || !isfinite(m->spot))
        return fc_error(FC_ERR_INVALID, "--S: the spot price must be a positive number, got %g", m->spot);
    if (!(m->strike > 0.0) || !isfinite(m->strike))
        return fc_error(FC_ERR_INVALID, "--K: the strike must be a positive number, got %g", m->strike);
    if (!(m->vol > 0.0) || !isfinite(m->vol))
        return fc_error(FC_ERR_INVALID, "--sigma: the volatility must be > 0, got %g", m->vol);
    if (!(m->expiry > 0.0) || !isfinite(m->expiry))
        return fc_error(FC_ERR_INVALID, "--T: the time to expiry must be > 0 years, got %g", m->expiry);
    if (!isfinite(m->rate)) return fc_error(FC_ERR_INVALID, "--r: the rate must be finite");
    if (!isfinite(m->div)) return fc_error(FC_ERR_INVALID, "--q: the dividend yield must be finite");
    /* exp(+-700) is near the end of double range: beyond it prices turn into inf or NaN */
    if (m->vol * m->vol * m->expiry > 700.0)
        return fc_error(FC_ERR_INVALID, "--sigma %g with --T %g: sigma^2 T = %g is beyond 700, where the price "
                        "is no longer representable", m->vol, m->expiry, m->vol * m->vol * m->expiry);
    if (fabs(m->rate) * m->expiry > 700.0 || fabs(m->div) * m->expiry > 700.0)
        return fc_error(FC_ERR_INVALID, "--r %g / --q %g with --T %g: |rate| T and |q| T must stay below 700",
                        m->rate, m->div, m->expiry);
    return FC_OK;
}

fc_status fc_bs_european(fc_option_type type, const fc_bs_market *m, fc_bs_greeks *out) {
    FC_TRY(fc_bs_check(m));
    const double S = m->spot, K = m->strike, r = m->rate, q = m->div, T = m->expiry;
    const double sd = m->vol * sqrt(T);
    const double d1 = (log(S / K) + (r - q) * T) / sd + 0.5 * sd, d2 = d1 - sd;
    const double dq = exp(-q * T), dr = exp(-r * T), pdf1 = fc_norm_pdf(d1);
    /* Terms shared by call and put; the put uses N(-x) = 1 - N(x) exactly via erfc. */
    out->gamma = dq * pdf1 / (S * sd);
    out->vega = S * dq * pdf1 * sqrt(T);
    const double theta_vol = -S * dq * pdf1 * m->vol / (2.0 * sqrt(T));
    if (type == FC_CALL) {
        double n1 = fc_norm_cdf(d1), n2 = fc_norm_cdf(d2);
        out->price = S * dq * n1 - K * dr * n2;
        out->delta = dq * n1;
        out->theta = theta_vol - r * K * dr * n2 + q * S * dq * n1;
        out->rho = K * T * dr * n2;
    } else {
        double n1 = fc_norm_cdf(-d1), n2 = fc_norm_cdf(-d2);
        out->price = K * dr * n2 - S * dq * n1;
        out->delta = -dq * n1;
        out->theta = theta_vol + r * K * dr * n2 - q * S * dq * n1;
        out->rho = -K * T * dr * n2;
    }
    return FC_OK;
}

/* log G = mean(log S(t_i)) is normal: mean log S0 + (r - q - sigma^2/2) mean(t),
 * variance sigma^2 / n^2 sum_ij min(t_i, t_j). The price is then Black's
 * formula on a lognormal G, discounted from the expiry. */
fc_status fc_geometric_asian_price(fc_option_type type, const fc_bs_market *m,
                                   const double *t, size_t n, double *price) {
    FC_TRY(fc_bs_check(m));
    if (n == 0) return fc_error(FC_ERR_INVALID, "--fixings: at least one fixing is needed");
    double sum_t = 0.0, sum_min = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!(t[i] >= 0.0 && t[i] <= m->expiry) || (i > 0 && t[i] < t[i - 1]))
            return fc_error(FC_ERR_INVALID,
                            "fixing %zu at t=%g: fixing times must be sorted and within [0, T=%g]",
                            i + 1, t[i], m->expiry);
        sum_t += t[i];
        /* sorted: min(t_i, t_j) = t_i for the n - 1 - i later j, twice, plus j = i */
        sum_min += t[i] * (double)(2 * (n - 1 - i) + 1);
    }
    const double nn = (double)n, v = m->vol;
    const double mean = log(m->spot) + (m->rate - m->div - 0.5 * v * v) * sum_t / nn;
    const double var = v * v * sum_min / (nn * nn);
    const double dr = exp(-m->rate * m->expiry);
    if (var <= 0.0) { /* every fixing is today: the average is known */
        double g = exp(mean);
        *price = dr * (type == FC_CALL ? fmax(g - m->strike, 0.0) : fmax(m->strike - g, 0.0));
        return FC_OK;
    }
    const double sd = sqrt(var), fwd = exp(mean + 0.5 * var);
    const double d1 = (log(fwd / m->strike)) / sd + 0.5 * sd, d2 = d1 - sd;
    if (type == FC_CALL)
        *price = dr * (fwd * fc_norm_cdf(d1) - m->strike * fc_norm_cdf(d2));
    else
        *price = dr * (m->strike * fc_norm_cdf(-d2) - fwd * fc_norm_cdf(-d1));
    return FC_OK;
}
