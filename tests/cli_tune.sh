#!/usr/bin/env bash
# fcast tune through the CLI, on tiny models: the same seed gives the same
# trial log (times apart); --trials and --time-budget bound the search; a
# trial the memory limit refuses is skipped, not fatal; the best config
# retrains, with fcast train, to the model file tune wrote and to the one
# the best trial's flags give; a bad space or flag is a clear error naming
# the file, line and key. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
common=(--data tests/fixtures/cv/monthly_refit_data.csv --model mlp --h 6 --num-layers 1 --threads 1
        --n-windows 2 --step-size 6 --quiet)
base=("${common[@]}" --input-size 12 --max-steps 5)
cat > "$tmp/space.yaml" <<'EOF'
# learning rate, width and scaler
lr: loguniform(1e-4, 1e-1)
hidden-size: int(4, 16)
scaler: choice(identity, standard, robust)
EOF

# trials FILE: the trial lines without their times
trials() { grep '"event":"trial"' "$1" | sed 's/"seconds":[^,]*,//'; }

# Same seed, same search; TPE (12 trials: 10 random, then 2 by TPE).
for run in a b; do
    "$fcast" tune "${base[@]}" --space "$tmp/space.yaml" --trials 12 --seed 3 --log "$tmp/$run.jsonl" 2> "$tmp/$run.err"
    check "tpe run $run succeeds" "[ $? -eq 0 ]"
done
trials "$tmp/a.jsonl" > "$tmp/a.trials"
trials "$tmp/b.jsonl" > "$tmp/b.trials"
check "same seed: identical trial log apart from times" "[ -s $tmp/a.trials ] && cmp -s $tmp/a.trials $tmp/b.trials"
check "--trials 12: 12 trial lines after one search line" \
      "[ \$(wc -l < $tmp/a.trials) -eq 12 ] && [ \$(grep -c '\"event\":\"search\"' $tmp/a.jsonl) -eq 1 ]"
check "trial lines: params as text and typed" \
      "grep -q '\"params\":{\"lr\":\"[0-9.e-]*\",\"hidden-size\":\"[0-9]*\",\"scaler\":\"[a-z]*\"},\"values\":{\"lr\":[0-9.e-]*,\"hidden-size\":[0-9]*,\"scaler\":\"[a-z]*\"}' $tmp/a.trials"
check "summary table with the best trial marked" "grep -q '^best: trial ' $tmp/a.err && grep -q '^\*' $tmp/a.err"
"$fcast" tune "${base[@]}" --space "$tmp/space.yaml" --trials 12 --seed 4 --log "$tmp/c.jsonl" 2> /dev/null
trials "$tmp/c.jsonl" > "$tmp/c.trials"
check "another seed: another search" "! cmp -s $tmp/a.trials $tmp/c.trials"
"$fcast" tune "${base[@]}" --space "$tmp/space.yaml" --trials 5 --sampler random --metric mse --log "$tmp/r.jsonl" 2> /dev/null
check "random sampler, --metric mse" "[ \$(grep -c '\"metric\":\"mse\"' $tmp/r.jsonl) -eq 6 ]"
check "--log appends" "\"$fcast\" tune ${base[*]} --space $tmp/space.yaml --trials 2 --log $tmp/r.jsonl 2> /dev/null &&
      [ \$(wc -l < $tmp/r.jsonl) -eq 9 ]"

# --time-budget alone: trials start until the budget is spent (a started one finishes).
"$fcast" tune "${common[@]}" --input-size 12 --max-steps 40 --space "$tmp/space.yaml" --time-budget 0.3 \
    --log "$tmp/t.jsonl" 2> "$tmp/t.err"
check "time budget: the search ends by itself" "[ \$? -eq 0 ]"
n_budget=$(grep -c '"event":"trial"' "$tmp/t.jsonl")
started_late=$(grep '"event":"trial"' "$tmp/t.jsonl" | grep -o '"seconds":[0-9.e-]*' | cut -d: -f2 |
               awk '{ s[NR] = $1 } END { for (i = 1; i < NR; i++) t += s[i]; print (t < 0.3) ? 0 : 1 }')
check "time budget: several trials, none started after the budget" "[ $n_budget -ge 2 ] && [ $started_late -eq 0 ]"
"$fcast" tune "${base[@]}" --space "$tmp/space.yaml" --trials 3 --time-budget 100 --log "$tmp/t3.jsonl" 2> /dev/null
check "--trials ends before a long budget" "[ \$(grep -c '\"event\":\"trial\"' $tmp/t3.jsonl) -eq 3 ]"

# A trial over the memory limit is skipped with its reason; the search goes on.
printf 'hidden-size: choice(8, 4096)\n' > "$tmp/mem.yaml"
"$fcast" tune "${base[@]}" --space "$tmp/mem.yaml" --trials 6 --sampler random --memory-limit 24MiB \
    --log "$tmp/m.jsonl" 2> "$tmp/m.err"
check "memory limit: the search succeeds" "[ $? -eq 0 ]"
check "memory limit: the big trials skipped, with the reason" \
      "t=\$(grep '\"hidden-size\":\"4096\"' $tmp/m.jsonl) && grep -q '\"status\":\"skipped\".*--memory-limit 24.0 MiB' <<<\"\$t\""
check "memory limit: the small trials scored" "t=\$(grep '\"hidden-size\":\"8\"' $tmp/m.jsonl) && grep -q '\"status\":\"ok\"' <<<\"\$t\""
check "memory limit: 6 trials in all" "[ \$(grep -c '\"event\":\"trial\"' $tmp/m.jsonl) -eq 6 ]"
# Trials side by side (issue 36): the random sampler's trials 3 at a time,
# a worker and a backend each, score as one at a time (the log but for
# each trial's seconds); with the memory limit, the same trials skipped.
"$fcast" tune "${base[@]}" --space "$tmp/space.yaml" --trials 5 --sampler random --metric mse --parallel 3 \
    --log "$tmp/r3.jsonl" 2> /dev/null
trial_rows() { grep '"event":"trial"' "$1" | head -5 | sed 's/"seconds":[^,}]*//'; }
check "random trials 3 at a time: the log of one at a time" "[ -n \"\$(trial_rows $tmp/r3.jsonl)\" ] && [ \"\$(trial_rows $tmp/r.jsonl)\" = \"\$(trial_rows $tmp/r3.jsonl)\" ]"
"$fcast" tune "${base[@]}" --space "$tmp/mem.yaml" --trials 6 --sampler random --memory-limit 24MiB --parallel 3 \
    --log "$tmp/m3.jsonl" 2> /dev/null
check "memory limit, 3 at a time: the same trials skipped and scored" \
      "[ \"\$(trial_rows $tmp/m.jsonl)\" = \"\$(trial_rows $tmp/m3.jsonl)\" ]"
printf 'input-size: choice(12, 500)\n' > "$tmp/long.yaml"
"$fcast" tune "${common[@]}" --max-steps 5 --space "$tmp/long.yaml" --trials 4 --sampler random \
    --log "$tmp/l.jsonl" 2> /dev/null
check "input longer than the series: skipped, not fatal" \
      "[ \$? -eq 0 ] && t=\$(grep '\"input-size\":\"500\"' $tmp/l.jsonl) && grep -q '\"status\":\"skipped\"' <<<\"\$t\""

# The best configuration, written and trained (--seed seeds the sampler and every training).
"$fcast" tune "${base[@]}" --space "$tmp/space.yaml" --trials 6 --sampler random --seed 2 --log "$tmp/best.jsonl" \
    --best-config "$tmp/best.yaml" --out "$tmp/final.safetensors" 2> "$tmp/best.err"
check "best config and final model written" "[ \$? -eq 0 ] && [ -s $tmp/best.yaml ] && [ -s $tmp/final.safetensors ]"
"$fcast" train --config "$tmp/best.yaml" --out "$tmp/again.safetensors" > /dev/null 2>&1
check "fcast train --config best.yaml gives tune's final model" "same_weights $tmp/again.safetensors $tmp/final.safetensors"
value() { sed -n "s/^$1: //p" "$tmp/best.yaml"; }
"$fcast" train --data tests/fixtures/cv/monthly_refit_data.csv --model mlp --h 6 --input-size 12 --num-layers 1 \
    --max-steps 5 --threads 1 --quiet --seed 2 --lr "$(value lr)" --hidden-size "$(value hidden-size)" \
    --scaler "$(value scaler)" --out "$tmp/direct.safetensors" > /dev/null 2>&1
check "... and the best trial's flags given to fcast train" "same_weights $tmp/direct.safetensors $tmp/final.safetensors"
best_score=$(grep '"status":"ok"' "$tmp/best.jsonl" | grep -o '"score":[0-9.e+-]*' | cut -d: -f2 | sort -g | head -1)
best_trial=$(grep "\"score\":$best_score," "$tmp/best.jsonl" | head -1 | grep -o '"trial":[0-9]*' | cut -d: -f2)
check "best config: the trial with the lowest score" "grep -q \"^# fcast tune: best trial $best_trial \" $tmp/best.yaml"
check "best config: no cv flags in it" "! grep -q -e '^n-windows' -e '^refit' -e '^train-step-size' $tmp/best.yaml"

# --config for the fixed part.
printf 'max-steps: 5\nnum-layers: 1\nthreads: 1\n' > "$tmp/fixed.yaml"
"$fcast" tune --config "$tmp/fixed.yaml" --data tests/fixtures/cv/monthly_refit_data.csv --model mlp --h 6 \
    --input-size 12 --n-windows 2 --step-size 6 --quiet --space "$tmp/space.yaml" --trials 12 --seed 3 \
    --log "$tmp/cfg.jsonl" 2> /dev/null
trials "$tmp/cfg.jsonl" > "$tmp/cfg.trials"
check "--config: the same search as the flags" "cmp -s $tmp/a.trials $tmp/cfg.trials"

# Errors: named, never a crash.
expect_error() {   # expect_error NAME CODE PATTERN SPACE-TEXT [ARGS...]
    local name=$1 code=$2 pattern=$3 text=$4; shift 4
    printf '%s\n' "$text" > "$tmp/bad.yaml"
    "$fcast" tune "${base[@]}" --space "$tmp/bad.yaml" --trials 2 "$@" > /dev/null 2> "$tmp/err"
    local rc=$?
    check "$name: exit $code (got $rc)" "[ $rc -eq $code ]"
    check "$name: says why" "grep -q -- '$pattern' $tmp/err"
}
ok='lr: loguniform(1e-4, 1e-1)'
expect_error "unknown flag" 2 "bad.yaml:3: hiden-size: not a flag" "$ok
# comment
hiden-size: int(4, 8)"
expect_error "flag also on the command line" 2 "bad.yaml:1: input-size: also given on the command line" \
    'input-size: int(12, 24)'
expect_error "flag not searchable" 2 "bad.yaml:1: n-windows: this flag cannot be searched" 'n-windows: int(1, 3)'
expect_error "bad bounds" 4 "bad.yaml:2: max-steps: int(50, 10): the low bound must be below" "$ok
max-steps: int(50, 10)"
expect_error "log of 0" 4 "bad.yaml:1: lr: loguniform needs a low bound above 0" 'lr: loguniform(0, 1)'
expect_error "malformed value" 3 "bad.yaml:1: lr: .normal(0, 1). is not uniform" 'lr: normal(0, 1)'
expect_error "a real for an integer flag" 2 "bad.yaml:1: hidden-size: an integer flag" 'hidden-size: uniform(4, 8)'
expect_error "a choice the flag refuses" 2 "bad.yaml:2: scaler: the value .bogus. is refused" "$ok
scaler: choice(identity, bogus)"
expect_error "unknown sampler" 2 "--sampler .grid. is not one of" "$ok" --sampler grid
expect_error "unknown metric" 2 "--metric .r2. is not one of" "$ok" --metric r2
"$fcast" tune "${base[@]}" --space "$tmp/nothing.yaml" --trials 2 > /dev/null 2> "$tmp/err"
check "missing space file: I/O error naming it" "[ \$? -eq 5 ] && grep -q nothing.yaml $tmp/err"
"$fcast" tune --data tests/fixtures/cv/monthly_refit_data.csv --model mlp,nhits --h 6 --input-size 12 --space "$tmp/space.yaml" --trials 2 > /dev/null 2> "$tmp/err"
check "a list of models: usage error" "[ \$? -eq 2 ] && grep -q 'a search tunes one model' $tmp/err"
"$fcast" tune "${base[@]}" --trials 2 > /dev/null 2> "$tmp/err"
check "no --space: usage error" "[ \$? -eq 2 ] && grep -q -- '--space is required' $tmp/err"
finish
