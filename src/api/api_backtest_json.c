/* fcast_backtest_json (fcast/quant.h): the line `fcast quant backtest
 * --json` prints, here so that the CLI and fcast serve's POST
 * /v1/quant/backtest write it with one function and cannot drift apart. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "fcast.h"

/* A number, null when not finite (JSON has no NaN or infinity). */
static json_t *number(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *stats_json(const fcast_backtest_stats *m) {
    json_t *o = json_object();
    json_object_set_new(o, "total_return", number(m->total_return));
    json_object_set_new(o, "annual_return", number(m->annual_return));
    json_object_set_new(o, "annual_volatility", number(m->annual_volatility));
    json_object_set_new(o, "sharpe", number(m->sharpe));
    json_object_set_new(o, "sortino", number(m->sortino));
    json_object_set_new(o, "calmar", number(m->calmar));
    json_object_set_new(o, "max_drawdown", number(m->max_drawdown));
    json_object_set_new(o, "max_drawdown_bars", json_integer((json_int_t)m->max_drawdown_bars));
    json_object_set_new(o, "turnover", number(m->turnover));
    json_object_set_new(o, "hit_rate", number(m->hit_rate));
    json_object_set_new(o, "trades", json_integer((json_int_t)m->trades));
    json_object_set_new(o, "closed_trades", json_integer((json_int_t)m->closed_trades));
    json_object_set_new(o, "end_equity", number(m->end_equity));
    return o;
}

static json_t *config_json(const fcast_backtest_config *c, int allow_short) {
    json_t *o = json_object();
    json_object_set_new(o, "cost_bps", json_real(c->cost_bps));
    json_object_set_new(o, "slippage_bps", json_real(c->slippage_bps));
    json_object_set_new(o, "fixed_cost", json_real(c->fixed_cost));
    json_object_set_new(o, "capital", json_real(c->capital));
    json_object_set_new(o, "size_fraction", json_real(c->size_fraction));
    json_object_set_new(o, "vol_target", json_real(c->vol_target));
    json_object_set_new(o, "vol_window", json_integer((json_int_t)c->vol_window));
    json_object_set_new(o, "max_leverage", json_real(c->max_leverage));
    json_object_set_new(o, "stop_loss", json_real(c->stop_loss));
    json_object_set_new(o, "take_profit", json_real(c->take_profit));
    json_object_set_new(o, "periods_per_year", json_real(c->periods_per_year));
    json_object_set_new(o, "long_short", json_boolean(allow_short));
    return o;
}

static json_t *results_json(const fcast_backtest_run *r) {
    const fcast_signal *s = r->signal;
    json_t *results = json_array();
    for (size_t k = 0; k < fcast_signal_n_combinations(s); k++)
        for (size_t j = 0; j < r->n_series; j++) {
            json_t *o = stats_json(&r->stats[k * r->n_series + j]), *params = json_object();
            for (size_t i = 0; i < fcast_signal_n_params(s); i++)
                json_object_set_new(params, fcast_signal_param_name(s, i), number(fcast_signal_params(s, k)[i]));
            json_object_set_new(o, "symbol", json_string(r->ids[j]));
            json_object_set_new(o, "combination", json_integer((json_int_t)(k + 1)));
            json_object_set_new(o, "params", params);
            json_array_append_new(results, o);
        }
    return results;
}

fc_status fcast_backtest_json(const fcast_backtest_run *r, char **json) {
    static const char fn[] = "fcast_backtest_json";
    if (!json) return fc_error(FC_ERR_INVALID, "%s: json is NULL", fn);
    *json = NULL;
    if (!r || !r->signal || !r->config || !r->ids || !r->stats || !r->source)
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !r ? "run" : !r->signal ? "signal" : !r->config ? "config"
                        : !r->ids ? "ids" : !r->stats ? "stats" : "source");
    json_t *j = json_object();
    json_object_set_new(j, "data", json_string(r->data ? r->data : ""));
    json_object_set_new(j, "source", json_string(r->source));
    if (fcast_signal_model(r->signal)) json_object_set_new(j, "model", json_string(fcast_signal_model(r->signal)));
    json_object_set_new(j, "combinations", json_integer((json_int_t)fcast_signal_n_combinations(r->signal)));
    json_object_set_new(j, "symbols", json_integer((json_int_t)r->n_series));
    json_object_set_new(j, "seconds", json_real(r->seconds));
    json_object_set_new(j, "config", config_json(r->config, r->allow_short));
    json_object_set_new(j, "results", results_json(r));
    *json = json_dumps(j, JSON_COMPACT);   /* reals as %.17g: the same doubles read back */
    json_decref(j);
    return *json ? FC_OK : fc_error(FC_ERR_MEMORY, "%s: out of memory writing the results", fn);
}
