#!/usr/bin/env bash
# The job's progress of fcast cv, ensemble and tune on stderr when it is
# not a terminal (issue 35: cv printed nothing while it trained): lines of
# "<command>: P%  D/T <units>  [step S/N]  elapsed X  eta Y", the percents
# rising to one final 100% with every unit done, an ETA on each; none with
# --quiet. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
data=tests/fixtures/cv/monthly_refit_data.csv
small=(--data "$data" --h 6 --input-size 12 --num-layers 1 --max-steps 40 --threads 1)
tiny=("${small[@]}" --hidden-size 8)

# progress_ok FILE COMMAND TOTAL UNIT: FILE's progress lines are well formed,
# every one with an ETA, their percents never fall, and the last is the only
# 100%, with TOTAL/TOTAL units.
progress_ok() {
    grep "^$2: [0-9]*%" "$1" > "$tmp/lines" || return 1
    # (the job's windows/s follows the units once a unit has reported its windows: ensemble's members)
    grep -qvE "^$2: [0-9]+%  [0-9]+/$3 $4s(  step [0-9]+/[0-9]+)?(  [0-9]+ windows/s)?  elapsed [0-9hms]+  eta [0-9hms]+$" \
        "$tmp/lines" && return 1
    [ "$(grep -c ': 100%' "$tmp/lines")" -eq 1 ] || return 1
    tail -1 "$tmp/lines" | grep -qE "^$2: 100%  $3/$3 $4s(  [0-9]+ windows/s)?  elapsed" || return 1
    sed -E 's/^[a-z]+: ([0-9]+)%.*/\1/' "$tmp/lines" | sort -c -n
}

# cv: 2 models x 3 refits = 6 trainings, each heard step by step
"$fcast" cv "${tiny[@]}" --model mlp,mlp --n-windows 3 --step-size 2 --refit 1 --out "$tmp/cv.csv" 2> "$tmp/cv.err"
check "cv succeeds" "[ $? -eq 0 ]"
check "cv: progress lines to 100% of 6 trainings, with ETA" "progress_ok $tmp/cv.err cv 6 training"
check "cv: a line every 5% or so (at least 10)" "[ \$(grep -c '^cv: [0-9]*%' $tmp/cv.err) -ge 10 ]"
check "cv: the current training's step" "grep -q '^cv: [0-9]*%  [0-9]/6 trainings  step [0-9]*/40' $tmp/cv.err"
"$fcast" cv "${tiny[@]}" --model mlp,mlp --n-windows 3 --step-size 2 --refit 1 --out "$tmp/cvq.csv" --quiet 2> "$tmp/cvq.err"
check "cv --quiet: no progress" "! grep -q '%' $tmp/cvq.err"
check "cv: the same CSV with or without progress" "cmp -s $tmp/cv.csv $tmp/cvq.csv"

# ensemble: 2 seeds x 2 models = 4 members
"$fcast" ensemble "${tiny[@]}" --model mlp,nhits --mlp-units 8,8,8 --seeds 1,2 --out "$tmp/e.safetensors" 2> "$tmp/e.err"
check "ensemble succeeds" "[ $? -eq 0 ]"
check "ensemble: progress lines to 100% of 4 members, with ETA" "progress_ok $tmp/e.err ensemble 4 member"
check "ensemble: a line after each member" "[ \$(grep -c '^ensemble: [0-9]*%' $tmp/e.err) -eq 4 ]"
"$fcast" ensemble "${tiny[@]}" --model mlp,nhits --mlp-units 8,8,8 --seeds 1,2 --out "$tmp/eq.safetensors" --quiet 2> "$tmp/eq.err"
check "ensemble --quiet: no progress" "! grep -q '%' $tmp/eq.err"
check "ensemble: the same file with or without progress" "cmp -s $tmp/e.safetensors $tmp/eq.safetensors"

# tune: 3 trials of 2 cross-validation trainings each
printf 'lr: loguniform(1e-4, 1e-1)\nhidden-size: int(4, 16)\n' > "$tmp/space.yaml"
tune=("$fcast" tune "${small[@]}" --model mlp --n-windows 2 --step-size 6 --refit 1 --space "$tmp/space.yaml" --trials 3)
"${tune[@]}" 2> "$tmp/t.err"
check "tune succeeds" "[ $? -eq 0 ]"
check "tune: progress lines to 100% of 3 trials, with ETA" "progress_ok $tmp/t.err tune 3 trial"
check "tune: within a trial, its training's step" "grep -q '^tune: [0-9]*%  0/3 trials  step [0-9]*/40' $tmp/t.err"
"${tune[@]}" --quiet 2> "$tmp/tq.err"
check "tune --quiet: no progress" "! grep -q '^tune: [0-9]*%' $tmp/tq.err"
finish
