#!/usr/bin/env bash
# fcast ensemble and fcast predict on ensemble files. The independent check:
# every member is trained again by `fcast train` with the member's flags and
# forecast by `fcast predict`; each member column of the ensemble's forecast
# must equal that model's column byte for byte, and the column Ensemble the
# median (numpy's: an even count takes the mean of the two middle values) or
# the mean of them, computed here in awk. Also: names of --members columns,
# an odd member count, determinism, and the errors (a quantile loss, an input
# longer than every series, corrupted ensemble files), and fcast eval
# --model scoring the column Ensemble. Tiny members, a few seconds. $1 is
# the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

data=data/monthly_classics.csv
common=(--h 6 --mlp-units 8,8,8 --max-steps 5 --threads 1 --quiet)

if ! "$fcast" ensemble --help > /dev/null 2>&1; then
    echo "FAIL: '$fcast ensemble' is not a command (register cmd_ensemble in tools/fcast.c and tools/cli.h)" >&2
    exit 1
fi

# meta FILE: the safetensors header (JSON) of FILE.
meta() { head -c "$(( $(od -An -tu8 -N8 "$1") + 8 ))" "$1" | tail -c +9; }
# patch FILE OUT SED: FILE with its header edited by SED (same length), into OUT.
patch() {
    local len; len=$(od -An -tu8 -N8 "$1")
    { head -c 8 "$1"; meta "$1" | sed "$3"; tail -c +$((len + 9)) "$1"; } > "$2"
    check "patch '$3' keeps the header length" "[ $(stat -c %s "$1") -eq $(stat -c %s "$2") ]"
}
# column FILE N: column N of a CSV without its header.
column() { tail -n +2 "$1" | cut -d, -f"$2"; }

# ---- 2 architectures x 2 input sizes x 2 losses x 1 seed: 8 members (an even count)
ens=(--model nhits,nbeats --input-size-multiples 2,3 --losses smape,mase --season 3)
"$fcast" ensemble --data "$data" "${common[@]}" "${ens[@]}" --out "$tmp/ens.safetensors" 2> "$tmp/ens.err"
check "ensemble trains" "[ $? -eq 0 ] && [ -s $tmp/ens.safetensors ]"
check "progress: one line per member" "[ $(grep -c '^member [1-8]/8 (.*): 5 steps in' $tmp/ens.err) -eq 8 ]"
check "summary: members and time per member" "grep -q 'ensemble of 8 members' $tmp/ens.err && grep -q 's per member' $tmp/ens.err"
# (the header is read into a variable first: under pipefail, grep -q closing
# the pipe early would fail the producer with SIGPIPE, now and then)
check "file: ensemble metadata" "m=\$(meta $tmp/ens.safetensors | tr -d '\\\\') && grep -qF '\"ensemble\":\"{\"combine\":\"median\",\"members\":8,\"h\":6}\"' <<<\"\$m\""
check "file: prefixed member metadata and tensors" \
      "m=\$(meta $tmp/ens.safetensors) && grep -qF '\"member.7.config\"' <<<\"\$m\" && grep -qF '\"member.0.blocks.0.layers.0.weight\"' <<<\"\$m\""

# Each member by fcast train + fcast predict, in the ensemble's order
# (architecture, then input size, then loss).
i=0
for arch in nhits nbeats; do
    for mult in 2 3; do
        for loss in smape mase; do
            season=(); [ "$loss" = mase ] && season=(--season 3)
            "$fcast" train --data "$data" "${common[@]}" --model $arch --input-size $((mult * 6)) --loss $loss \
                "${season[@]}" --seed 1 --out "$tmp/m$i.safetensors" 2> /dev/null
            "$fcast" predict --model "$tmp/m$i.safetensors" --data "$data" --out "$tmp/p$i.csv" 2> /dev/null
            check "member $i ($arch, $mult h, $loss) alone trains and predicts" "[ -s $tmp/p$i.csv ]"
            i=$((i + 1))
        done
    done
done

"$fcast" predict --model "$tmp/ens.safetensors" --members --data "$data" --out "$tmp/ens.csv" 2> /dev/null
check "predict --members" "[ -s $tmp/ens.csv ]"
check "--members column names" \
      "[ \"$(head -1 $tmp/ens.csv)\" = unique_id,ds,Ensemble,NHITS,NHITS1,NHITS2,NHITS3,NBEATS,NBEATS1,NBEATS2,NBEATS3 ]"
for i in 0 1 2 3 4 5 6 7; do
    check "member $i: column equals its fcast train model's forecast, byte for byte" \
          "[ \"\$(column $tmp/ens.csv $((4 + i)))\" = \"\$(column $tmp/p$i.csv 3)\" ]"
done
check "ids and dates as a single model's" "[ \"\$(cut -d, -f1,2 $tmp/ens.csv)\" = \"\$(cut -d, -f1,2 $tmp/p0.csv)\" ]"

# combined FILE HOW N: every row's Ensemble (column 3) against the median or
# mean of its N member columns after it; prints the rows that differ by more
# than float rounding, and the rows checked.
combined() {
    awk -F, -v how="$2" -v n="$3" 'NR > 1 {
        for (i = 1; i <= n; i++) x[i] = $(3 + i) + 0
        for (i = 2; i <= n; i++) { v = x[i]; for (j = i - 1; j >= 1 && x[j] > v; j--) x[j + 1] = x[j]; x[j + 1] = v }
        if (how == "mean") { s = 0; for (i = 1; i <= n; i++) s += x[i]; want = s / n }
        else want = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
        d = $3 - want; if (d < 0) d = -d; a = want < 0 ? -want : want
        if (d > 1e-6 * a + 1e-6) { print "row " NR ": " $3 " vs " want; bad++ }
        rows++
    } END { print rows " rows"; exit bad > 0 }' "$1"
}
combined "$tmp/ens.csv" median 8 > "$tmp/median.txt"
check "Ensemble is the median of the 8 members (the mean of the middle two)" "[ $? -eq 0 ] && grep -q '^24 rows' $tmp/median.txt"

"$fcast" predict --model "$tmp/ens.safetensors" --data "$data" --out "$tmp/ens_only.csv" 2> /dev/null
check "without --members: the column Ensemble alone, the same values" \
      "[ \"$(head -1 $tmp/ens_only.csv)\" = unique_id,ds,Ensemble ] && [ \"\$(cut -d, -f1-3 $tmp/ens.csv)\" = \"\$(cat $tmp/ens_only.csv)\" ]"

# ---- --combine mean: the same members, combined by the mean
"$fcast" ensemble --data "$data" "${common[@]}" "${ens[@]}" --combine mean --out "$tmp/mean.safetensors" 2> /dev/null
"$fcast" predict --model "$tmp/mean.safetensors" --members --data "$data" --out "$tmp/mean.csv" 2> /dev/null
check "--combine mean: the same member columns" "[ \"\$(cut -d, -f4- $tmp/mean.csv)\" = \"\$(cut -d, -f4- $tmp/ens.csv)\" ]"
combined "$tmp/mean.csv" mean 8 > "$tmp/mean.txt"
check "Ensemble is the mean of the 8 members" "[ $? -eq 0 ] && grep -q '^24 rows' $tmp/mean.txt"

# ---- an odd count (3 seeds), beside a single model: names count across the call
"$fcast" ensemble --data "$data" "${common[@]}" --model nhits --input-size 12 --losses mae --seeds 1,2,3 \
    --out "$tmp/odd.safetensors" 2> /dev/null
"$fcast" predict --model "$tmp/m0.safetensors,$tmp/odd.safetensors" --members --data "$data" --out "$tmp/odd.csv" 2> /dev/null
check "a model beside an ensemble: NHITS, Ensemble, NHITS1..3" \
      "[ \"$(head -1 $tmp/odd.csv)\" = unique_id,ds,NHITS,Ensemble,NHITS1,NHITS2,NHITS3 ]"
check "the model beside it keeps its forecast" "[ \"\$(column $tmp/odd.csv 3)\" = \"\$(column $tmp/p0.csv 3)\" ]"
cut -d, -f1,2,4- "$tmp/odd.csv" > "$tmp/odd_members.csv"
combined "$tmp/odd_members.csv" median 3 > "$tmp/odd.txt"
check "Ensemble of 3 is the middle member" "[ $? -eq 0 ] && grep -q '^24 rows' $tmp/odd.txt"

# ---- determinism: the same flags write the same file
"$fcast" ensemble --data "$data" "${common[@]}" "${ens[@]}" --out "$tmp/ens2.safetensors" 2> /dev/null
check "same flags, identical ensemble file" "cmp -s $tmp/ens.safetensors $tmp/ens2.safetensors"

# ---- members side by side (issue 36): the members above (one at a time:
# --threads 1) trained 3 and 8 at a time, each worker a thread and a backend
# of its own: the same file, byte for byte, so every member still equals its
# fcast train model. Then 2 threads shared by 2 workers, against the same
# members one at a time with both threads (the file records --threads 2).
loud=(--h 6 --mlp-units 8,8,8 --max-steps 5 --threads 1)   # common without --quiet: the lines are checked
"$fcast" ensemble --data "$data" "${loud[@]}" "${ens[@]}" --parallel 3 --out "$tmp/side3.safetensors" 2> "$tmp/side3.err"
check "--parallel 3: trains, saying so" "[ $? -eq 0 ] && grep -q 'training 8 members 3 at a time, 1 thread each' $tmp/side3.err"
check "--parallel 3: the one-at-a-time file, byte for byte" "cmp -s $tmp/ens.safetensors $tmp/side3.safetensors"
check "--parallel 3: a line per member, the job's windows/s" \
      "[ \$(grep -c '^member [1-8]/8 (.*): 5 steps in' $tmp/side3.err) -eq 8 ] && grep -q 'windows/s' $tmp/side3.err"
"$fcast" ensemble --data "$data" "${common[@]}" "${ens[@]}" --parallel 8 --out "$tmp/side8.safetensors" 2> /dev/null
check "--parallel 8 (a worker per member): the same file" "cmp -s $tmp/ens.safetensors $tmp/side8.safetensors"
FCAST_TEST_NOT_HOST_VISIBLE=1 "$fcast" ensemble --data "$data" "${common[@]}" "${ens[@]}" --parallel 3 \
    --out "$tmp/staged3.safetensors" 2> /dev/null
check "--parallel 3 through a GPU's copies (FCAST_TEST_NOT_HOST_VISIBLE): the same file" \
      "cmp -s $tmp/ens.safetensors $tmp/staged3.safetensors"
# LSTM's tall narrow weight gradients sum in an order that depends on the
# thread count: members side by side (2 threads, 1 each) are the members of
# one at a time with 1 thread, tensor for tensor (the files' headers record
# --threads as given).
lstm=(--data "$data" --h 6 --model lstm --input-size 12 --max-steps 3 --seeds 1,2 --quiet)
"$fcast" ensemble "${lstm[@]}" --threads 2 --out "$tmp/lstm_side.safetensors" 2> /dev/null
"$fcast" ensemble "${lstm[@]}" --threads 1 --out "$tmp/lstm_one.safetensors" 2> /dev/null
check "lstm side by side: the tensors of one at a time with a thread each" \
      "[ -s $tmp/lstm_one.safetensors ] && cmp -s <(tail -c +\$((\$(od -An -tu8 -N8 $tmp/lstm_one.safetensors) + 9)) $tmp/lstm_one.safetensors) <(tail -c +\$((\$(od -An -tu8 -N8 $tmp/lstm_side.safetensors) + 9)) $tmp/lstm_side.safetensors)"
# The memory limit bounds the members at once (each plan about 19 MiB, of
# which 16 MiB are the libraries' allowance and the data, shared): 22 MiB
# holds one (the run is one at a time, not refused), 25 MiB two, 30 MiB four.
for lim in 22MiB:one 25MiB:2 30MiB:4; do
    "$fcast" ensemble --data "$data" "${loud[@]}" "${ens[@]}" --parallel 8 --memory-limit "${lim%%:*}" \
        --out "$tmp/lim.safetensors" 2> "$tmp/lim.err"
    check "--memory-limit ${lim%%:*}: ${lim#*:} at a time, the same file" \
          "grep -q 'training 8 members ${lim#*:} at a time' $tmp/lim.err && cmp -s $tmp/ens.safetensors $tmp/lim.safetensors"
done
two=(--data "$data" --h 6 --mlp-units 8,8,8 --max-steps 5 --quiet --threads 2 "${ens[@]}")
"$fcast" ensemble "${two[@]}" --parallel 1 --out "$tmp/one2.safetensors" 2> /dev/null
"$fcast" ensemble "${two[@]}" --out "$tmp/auto2.safetensors" 2> "$tmp/auto2.err"
# Workers of 1 thread against one run of 2: bit for bit where training does
# not depend on the thread count (AVX-512), within float32 rounding where it
# does (AVX2: oneDNN splits its sums by thread).
if bitwise_across_threads; then
    check "2 threads, auto: 2 workers of 1 thread, the file of one at a time with 2 threads" \
          "[ -s $tmp/one2.safetensors ] && cmp -s $tmp/one2.safetensors $tmp/auto2.safetensors"
else
    check "2 threads, auto: 2 workers of 1 thread, the weights of one at a time with 2 threads within 1e-5 (AVX2)" \
          "[ -s $tmp/one2.safetensors ] && close_weights $tmp/one2.safetensors $tmp/auto2.safetensors 1e-5"
fi
"$fcast" train --data "$data" "${common[@]}" --model nhits --parallel 2 --input-size 12 --out "$tmp/x.safetensors" \
    > "$tmp/err.txt" 2>&1
check "fcast train has no --parallel (one training)" "[ $? -eq 2 ] && grep -q 'parallel' $tmp/err.txt"

# ---- errors
# bad CODE TEXT ARGS...: fcast ensemble refuses with exit CODE, saying TEXT, and writes nothing.
bad() {
    local code=$1 text=$2; shift 2
    rm -f "$tmp/x.safetensors"
    "$fcast" ensemble --data "$data" "${common[@]}" "$@" --out "$tmp/x.safetensors" > "$tmp/err.txt" 2>&1
    local rc=$?
    check "[$*] exits $code" "[ $rc -eq $code ]"
    check "[$*] says '$text'" "grep -qF -- \"$text\" $tmp/err.txt"
    check "[$*] writes nothing" "[ ! -e $tmp/x.safetensors ]"
}
bad 4 "the median of quantiles is not a quantile" --model nhits --input-size-multiples 2 --losses smape,mq
bad 4 "the median of quantiles is not a quantile" --model nhits --input-size-multiples 2 --losses quantile
bad 4 "member 2/2 (nhits, input-size 600, loss mae, seed 1)" --model nhits --input-size-multiples 2,100
check "... refused before any member trains" "! grep -q 'steps in' $tmp/err.txt"
bad 2 "--input-size-multiples" --model nhits
bad 2 "--season is a parameter of --loss mase" --model nhits --input-size-multiples 2 --losses smape --season 3
bad 2 "--combine 'mode'" --model nhits --input-size-multiples 2 --combine mode

# predict_bad FILE CODE TEXT: fcast predict refuses FILE with exit CODE, naming the file and TEXT.
predict_bad() {
    "$fcast" predict --model "$1" --data "$data" --out "$tmp/x.csv" > "$tmp/err.txt" 2>&1
    local rc=$?
    check "predict $(basename $1) exits $2" "[ $rc -eq $2 ]"
    check "predict $(basename $1) names the file and '$3'" "grep -qF -- '$1' $tmp/err.txt && grep -qF -- \"$3\" $tmp/err.txt"
}
patch "$tmp/ens.safetensors" "$tmp/bad1.safetensors" 's/"combine\\":\\"median/"combine\\":\\"medina/'
predict_bad "$tmp/bad1.safetensors" 7 "field 'combine': unknown 'medina'"
patch "$tmp/ens.safetensors" "$tmp/bad2.safetensors" 's/"member\.3\.blocks\.0\.layers\.0\.weight"/"member.3.blocks.0.layers.0.weighx"/'
predict_bad "$tmp/bad2.safetensors" 7 "member.3.blocks.0.layers.0.weight"
patch "$tmp/ens.safetensors" "$tmp/bad3.safetensors" 's/"members\\":8/"members\\":7/'
predict_bad "$tmp/bad3.safetensors" 7 "'members'"
patch "$tmp/ens.safetensors" "$tmp/bad4.safetensors" 's/"members\\":8/"members\\":9/'
predict_bad "$tmp/bad4.safetensors" 7 "member.8.config"
"$fcast" predict --model "$tmp/ens.safetensors" --level 80 --data "$data" --out "$tmp/x.csv" > "$tmp/err.txt" 2>&1
check "--level with an ensemble: exit 4, no intervals" "[ $? -eq 4 ] && grep -q 'has no intervals' $tmp/err.txt"

# eval --model scores an ensemble's combination: its MAE and RMSE are those
# of fcast predict's column Ensemble against the held-out points, computed
# here from predict's file (the last 6 points of every series held out)
awk -F, 'NR == 1 { print; next } { rows[$1] = rows[$1] $0 "\n"; n[$1]++ }
         END { for (k in rows) { split(rows[k], r, "\n"); for (i = 1; i <= n[k]; i++)
               print r[i] > (i <= n[k] - 6 ? "/dev/stdout" : "/dev/stderr") } }' "$data" \
    > "$tmp/train.csv" 2> "$tmp/test_rows.csv"
{ head -1 "$data"; cat "$tmp/test_rows.csv"; } > "$tmp/test.csv"
"$fcast" eval --model "$tmp/ens.safetensors" --train "$tmp/train.csv" --test "$tmp/test.csv" --season 12 \
    > "$tmp/eval.txt" 2> "$tmp/err.txt"
check "eval --model ENSEMBLE: scored (exit 0), its column named Ensemble" \
      "[ $? -eq 0 ] && head -1 $tmp/eval.txt | grep -q '^metric *Ensemble '"
"$fcast" predict --model "$tmp/ens.safetensors" --data "$tmp/train.csv" --out "$tmp/ens_train.csv" 2>/dev/null
python3 - "$tmp/ens_train.csv" "$tmp/test.csv" "$tmp/eval.txt" > "$tmp/eval_check.txt" <<'PY'
import csv, math, sys
fc = {(r["unique_id"], r["ds"]): float(r["Ensemble"]) for r in csv.DictReader(open(sys.argv[1]))}
err = [float(r["y"]) - fc[(r["unique_id"], r["ds"])] for r in csv.DictReader(open(sys.argv[2]))]
mae = sum(abs(e) for e in err) / len(err)
rmse = math.sqrt(sum(e * e for e in err) / len(err))
got = {l.split()[0]: l.split()[1] for l in open(sys.argv[3]) if l.split()[0] in ("MAE", "RMSE")}
ok = len(err) == 24 and got == {"MAE": "%.4f" % mae, "RMSE": "%.4f" % rmse}
print("same" if ok else "differ: %s against MAE %.4f RMSE %.4f" % (got, mae, rmse))
PY
check "eval --model ENSEMBLE: MAE and RMSE of predict's column Ensemble ($(cat $tmp/eval_check.txt))" \
      "grep -qx same $tmp/eval_check.txt"

finish
