#!/usr/bin/env bash
# fcast quant portfolio's constrained portfolios through the CLI binary:
# weights of --long-only, --min/--max-weight, --bounds, --target-return,
# --frontier, --max-sharpe, --risk-parity (--budgets) and --shrink
# ledoit-wolf against the committed cvxpy / scipy / scikit-learn fixture
# (python/make_portfolio_fixtures.py), the CSV and JSON shapes, and clear
# errors. Usage: cli_quant_portfolio.sh FCAST
set -u
FCAST="$1"
DATA=data/eu_stock_markets.csv
SYN=tests/fixtures/quant/portfolio_synthetic_returns.csv
REF=tests/fixtures/quant/portfolio_reference.csv
source tests/lib_quant_cli.sh
# ref CASE KEY: the fixture's value
ref() { awk -F, -v c="$1" -v k="$2" '$1 == c && $2 == k { print $3 }' "$REF"; }
# csv_weight FILE PORTFOLIO ASSET: the weight in fcast's CSV
csv_weight() {
  awk -F, -v p="$2" -v a="$3" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                                $1 == p { print $(col[a]) }' "$1"
}
# check_weights CSV PORTFOLIO CASE TOL ASSETS...: every asset's weight against the fixture
check_weights() {
  local csv="$1" p="$2" kase="$3" tol="$4"; shift 4
  for a in "$@"; do
    ok
    local got want
    got="$(csv_weight "$csv" "$p" "$a")"; want="$(ref "$kase" "$a")"
    close "$got" "$want" "$tol" || fail "$p $a: $got, reference ($kase) $want"
  done
}
EU="DAX SMI CAC FTSE"

# --- long-only: minimum variance, target, frontier, maximum Sharpe, risk parity in one run (cvxpy: 1e-9)
target="$(awk -v t="$(ref eu:long:target _target)" 'BEGIN { printf "%.17g", t * 252 }')"
"$FCAST" quant portfolio --data "$DATA" --long-only --target-return "$target" --frontier 5 --max-sharpe \
  --risk-parity --csv >"$TMP/long.csv" || fail "long-only --csv exited non-zero"
ok
[ "$(wc -l <"$TMP/long.csv")" -eq 10 ] || fail "long-only CSV: $(wc -l <"$TMP/long.csv") lines, expected 1 + 9"
head -1 "$TMP/long.csv" | grep -q "^portfolio,target_return,annual_return,annual_volatility,sharpe,CAC,DAX,FTSE,SMI$" \
  || fail "CSV header: $(head -1 "$TMP/long.csv")"
check_weights "$TMP/long.csv" min_variance eu:long:minvar 1e-9 $EU
check_weights "$TMP/long.csv" target_return eu:long:target 1e-9 $EU
check_weights "$TMP/long.csv" max_sharpe eu:long:maxsharpe:0 1e-9 $EU
check_weights "$TMP/long.csv" risk_parity eu:riskparity 1e-12 $EU
check_weights "$TMP/long.csv" frontier_0 eu:long:frontier:0 1e-9 $EU
check_weights "$TMP/long.csv" frontier_2 eu:long:frontier:2 1e-9 $EU
ret="$(awk -F, '$1 == "target_return" { print $3 }' "$TMP/long.csv")"
close "$ret" "$target" 1e-12 || fail "target return $target: the portfolio earns $ret"
# the frontier's targets: evenly spaced, in the CSV's target_return column, a year
t1="$(awk -F, '$1 == "frontier_1" { print $2 }' "$TMP/long.csv")"
close "$t1" "$(awk -v t="$(ref eu:long:frontier:1 _target)" 'BEGIN { printf "%.17g", t * 252 }')" 1e-9 \
  || fail "frontier_1's target $t1"

# --- one box for all, risk-free 2%, the synthetic 20 assets as returns (--returns)
"$FCAST" quant portfolio --data "$DATA" --min-weight 0.02 --max-weight 0.4 --max-sharpe --risk-free 0.02 --csv \
  >"$TMP/box.csv" || fail "box exited non-zero"
check_weights "$TMP/box.csv" min_variance eu:box:minvar 1e-9 $EU
check_weights "$TMP/box.csv" max_sharpe eu:box:maxsharpe:0.02 1e-9 $EU
sharpe="$(awk -F, '$1 == "max_sharpe" { print $5 }' "$TMP/box.csv")"
want="$(awk -v s="$(ref eu:box:maxsharpe:0.02 _sharpe)" 'BEGIN { printf "%.17g", s * sqrt(252) }')"
close "$sharpe" "$want" 1e-9 || fail "box maximum Sharpe $sharpe a year, cvxpy's $want"
"$FCAST" quant portfolio --data "$SYN" --returns --long-only --max-weight 0.1 --csv >"$TMP/syn.csv" \
  || fail "synthetic --returns exited non-zero"
check_weights "$TMP/syn.csv" min_variance syn:box:minvar 1e-9 S00 S05 S10 S19

# --- per-asset bounds, shorts within a box, JSON fields
"$FCAST" quant portfolio --data "$DATA" --bounds DAX=0:0.5,SMI=0.1:0.6,CAC=0:0.3,FTSE=0.2:1 --max-sharpe --json \
  >"$TMP/b.json" || fail "--bounds --json exited non-zero"
ok
python3 - "$TMP/b.json" "$REF" <<'PY' || fail "--bounds JSON against the fixture"
import csv, json, sys
out = json.load(open(sys.argv[1]))
ref = {(r["case"], r["key"]): float(r["value"]) for r in csv.DictReader(open(sys.argv[2]))}
assert out["n_assets"] == 4 and out["covariance"] == "sample" and out["shrinkage"] is None, out
assert out["bounds"]["lower"]["FTSE"] == 0.2 and out["bounds"]["upper"]["CAC"] == 0.3, out["bounds"]
p = {q["name"]: q for q in out["portfolios"]}
for name, case in (("min_variance", "eu:bounds:minvar"), ("max_sharpe", "eu:bounds:maxsharpe:0")):
    q = p[name]
    for k in ("annual_return", "annual_volatility", "sharpe", "weights", "risk_contributions", "iterations",
              "active_constraints", "residual", "solver"):
        assert k in q, (name, k)
    assert q["residual"] <= 1e-12, q
    for a, w in q["weights"].items():
        assert abs(w - ref[(case, a)]) <= 1e-9, (name, a, w, ref[(case, a)])
    assert abs(sum(q["risk_contributions"].values()) - 1) < 1e-12
PY
"$FCAST" quant portfolio --data "$DATA" --min-weight -0.2 --max-weight 0.5 --csv >"$TMP/short.csv" \
  || fail "short box exited non-zero"
check_weights "$TMP/short.csv" min_variance eu:short:minvar 1e-9 $EU

# --- risk budgets and Ledoit-Wolf (scikit-learn's shrinkage to 1e-12)
"$FCAST" quant portfolio --data "$DATA" --risk-parity --budgets "$(awk -F, '$1 == "eu:riskparity:budgets" && $2 ~ /^_budget_/ { sub("_budget_", "", $2); printf "%s%s=%s", s, $2, $3; s = "," }' "$REF")" \
  --csv >"$TMP/rb.csv" || fail "--budgets exited non-zero"
check_weights "$TMP/rb.csv" risk_parity eu:riskparity:budgets 1e-12 $EU
"$FCAST" quant portfolio --data "$DATA" --long-only --shrink ledoit-wolf --risk-parity --json >"$TMP/lw.json" \
  || fail "--shrink ledoit-wolf exited non-zero"
ok
python3 - "$TMP/lw.json" "$REF" <<'PY' || fail "Ledoit-Wolf JSON against the fixture"
import csv, json, sys
out = json.load(open(sys.argv[1]))
ref = {(r["case"], r["key"]): float(r["value"]) for r in csv.DictReader(open(sys.argv[2]))}
assert out["covariance"] == "ledoit-wolf"
assert abs(out["shrinkage"] - ref[("eu:lw", "_shrinkage")]) <= 1e-12 * ref[("eu:lw", "_shrinkage")], out["shrinkage"]
p = {q["name"]: q for q in out["portfolios"]}
for name, case, tol in (("min_variance", "eu:lw:long:minvar", 1e-9), ("risk_parity", "eu:lw:riskparity", 1e-12)):
    for a, w in p[name]["weights"].items():
        assert abs(w - ref[(case, a)]) <= tol, (name, a, w, ref[(case, a)])
assert all(abs(c - 0.25) < 1e-12 for c in p["risk_parity"]["risk_contributions"].values())
PY
"$FCAST" quant portfolio --data "$DATA" --long-only --frontier 4 | grep -q "^efficient frontier (4 points" \
  || fail "the frontier's table"
ok

# --- errors: each names the flag and, for a target, the reachable range
expect_error 4 "--max-weight x 4 assets must be at least 1" -- quant portfolio --data "$DATA" --max-weight 0.2
expect_error 4 "--target-return 0.5 a year is above the highest return reachable under the bounds (reachable: " -- \
  quant portfolio --data "$DATA" --long-only --target-return 0.5
expect_error 4 "no fully invested portfolio under the bounds earns more than the risk-free rate 0.5 a year" -- \
  quant portfolio --data "$DATA" --long-only --max-sharpe --risk-free 0.5
expect_error 2 "--frontier needs bounds on the weights: add --long-only" -- quant portfolio --data "$DATA" --frontier 5
expect_error 2 "--max-sharpe needs bounds" -- quant portfolio --data "$DATA" --max-sharpe
expect_error 4 "--frontier 1: expected 2 to 1000 points" -- quant portfolio --data "$DATA" --long-only --frontier 1
expect_error 4 "--bounds: 'XYZ' is not a series of the data file" -- quant portfolio --data "$DATA" --bounds XYZ=0:1
expect_error 3 "--bounds: expected ID=LO:HI items such as DAX=0:0.5" -- quant portfolio --data "$DATA" --bounds DAX=0
expect_error 4 "DAX: lower bound 0.7 > upper bound 0.5 (--min-weight, --max-weight, --bounds)" -- \
  quant portfolio --data "$DATA" --bounds DAX=0.7:0.5
expect_error 4 "the lower bounds sum to 1.2 > 1" -- quant portfolio --data "$DATA" --min-weight 0.3
expect_error 4 "budgets[3] = -1: risk budgets must be positive" -- quant portfolio --data "$DATA" --risk-parity --budgets SMI=-1
expect_error 2 "--budgets needs --risk-parity" -- quant portfolio --data "$DATA" --budgets SMI=2
expect_error 2 "--shrink oas: expected sample or ledoit-wolf" -- quant portfolio --data "$DATA" --shrink oas
expect_error 2 "--json and --csv: choose one" -- quant portfolio --data "$DATA" --json --csv
expect_error 2 "--long-only is --min-weight 0" -- quant portfolio --data "$DATA" --long-only --min-weight 0.1

quant_finish cli_quant_portfolio
