/* From a signal to the targets the account trades: the size fraction, the
 * volatility scale and the stops (see backtest_sim.h). Stops are checked
 * on closes only (a close-only price file has nothing else), so a stop
 * fills at the close that crossed it, not at the stop level. */
#include <math.h>
#include "quant/backtest_sim.h"

static int sign_of(double x) { return (x > 0.0) - (x < 0.0); }

/* min(max_leverage, target / realised) over the vol_window returns up to t;
 * 0 before that many exist. */
static double vol_scale(const double *close, size_t t, const fc_bt_config *c) {
    const size_t w = c->vol_window;
    if (t < w) return 0.0;
    double r[512], sum = 0.0, sq = 0.0;   /* window <= 512 (fc_bt_config_check) */
    for (size_t k = 0; k < w; k++) {
        r[k] = close[t - w + 1 + k] / close[t - w + k] - 1.0;
        sum += r[k];
    }
    double mean = sum / (double)w;
    for (size_t k = 0; k < w; k++) sq += (r[k] - mean) * (r[k] - mean);
    double vol = w > 1 ? sqrt(sq / (double)(w - 1)) * sqrt(c->periods_per_year) : 0.0;
    if (!(vol > 0.0)) return c->max_leverage;
    double s = c->vol_target / vol;
    return s < c->max_leverage ? s : c->max_leverage;
}

/* Whether the position entered at `entry` hits a stop at close c; the exit. */
static fc_bt_exit stop_hit(double entry, double c, int dir, const fc_bt_config *cfg) {
    double ret = (c / entry - 1.0) * (double)dir;
    if (cfg->stop_loss > 0.0 && ret <= -cfg->stop_loss) return FC_BT_EXIT_STOP_LOSS;
    if (cfg->take_profit > 0.0 && ret >= cfg->take_profit) return FC_BT_EXIT_TAKE_PROFIT;
    return FC_BT_EXIT_SIGNAL;
}

void fc_bt_targets(const double *close, const double *signal, size_t n, const fc_bt_config *c, double *out,
                   unsigned char *reason) {
    const int stops = c->stop_loss > 0.0 || c->take_profit > 0.0;
    int dir = 0, stopped = 0;
    double entry = 0.0, stopped_signal = 0.0;
    for (size_t t = 0; t < n; t++) {
        double s = isnan(signal[t]) ? 0.0 : signal[t];
        double w = s * c->size_fraction * (c->vol_target > 0.0 ? vol_scale(close, t, c) : 1.0);
        reason[t] = FC_BT_EXIT_SIGNAL;
        if (stops) {
            if (stopped && s != stopped_signal) stopped = 0;   /* the signal changed: trade it again */
            if (stopped) w = 0.0;
            if (dir != 0 && sign_of(w) == dir) {
                fc_bt_exit e = stop_hit(entry, close[t], dir, c);
                if (e != FC_BT_EXIT_SIGNAL) {
                    reason[t] = (unsigned char)e;
                    stopped = 1;
                    stopped_signal = s;
                    w = 0.0;
                }
            }
            if (sign_of(w) != dir) {   /* a position entered, left or reversed at this close */
                dir = sign_of(w);
                entry = close[t];
            }
        }
        out[t] = w;
    }
}
