#!/usr/bin/env bash
# No command may write one of its files over another: for every command
# and subcommand (listed by `fcast --help` and `fcast quant --help`), every
# pair of its file flags (from `fcast CMD --print-flags`, so a new flag is
# covered by default) where at least one is written, plus --config's file,
# is given one file, and the run must be refused with exit 4 before anything
# is written: the file's bytes unchanged when it exists, no file created
# when it does not. Each pair is tried with the same spelling, with another
# spelling of the same file (./d/../x, a symbolic link), and with the output
# given inside --config's file. The one pair that may share a file
# (--checkpoint and --resume: a resumed run goes on writing its checkpoint)
# must not be refused by this check. $1 is the fcast binary.
set -uo pipefail
fcast=$(realpath "$1")
source tests/lib_cli.sh
data=$(realpath data/monthly_classics.csv) prices=$(realpath data/eu_stock_markets.csv)
cd "$tmp" || exit 1
mkdir d

# The commands, from the help texts: a command that only dispatches
# (quant, bench) names its subcommands in its help, under "commands:" or as
# "usage: fcast bench train|fit".
commands() {
  local c
  for c in $("$fcast" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}'); do
    if "$fcast" "$c" --print-flags >/dev/null 2>&1; then echo "$c"; continue; fi
    "$fcast" "$c" --help 2>&1 | awk -v c="$c" '
      /^commands:/ {on = 1; next}
      on && /^  [a-z]/ {print c " " $1}
      $1 == "usage:" && $3 == c && $4 ~ /\|/ {n = split($4, s, "|"); for (i = 1; i <= n; i++) print c " " s[i]}'
  done
}
ALLOWED=" checkpoint+resume resume+checkpoint "

# refused CMD... : runs the command; exit 4 with a message naming a file
# given twice.
refused() {
  "$fcast" "$@" >out.txt 2>err.txt; local rc=$?
  [ $rc -eq 4 ] && grep -qE "is the input file given|is also written by|both write to standard output" err.txt
}

# pair CMD A KIND_A B KIND_B: the pair's three spellings; CMD is word-split.
pair() {
  local cmd=$1 a=$2 ka=$3 b=$4 kb=$5 label="fcast $1 --$2 X --$4 X"
  local -a c; read -ra c <<<"$cmd"
  local allowed=0; [[ "$ALLOWED" == *" $a+$b "* ]] && allowed=1
  # 1. an existing file, spelled alike
  printf 'precious %s\n' "$a$b" >x; local sum; sum=$(sha256sum x)
  refused "${c[@]}" "--$a" x "--$b" x; local r1=$?
  # 2. spelled differently: ./d/../x and a symbolic link to it
  ln -sf x link
  refused "${c[@]}" "--$a" ./d/../x "--$b" link; local r2=$?
  if [ $allowed -eq 1 ]; then
    check "$label: allowed (not refused by the file check: $(head -c 200 err.txt))" "[ $r1 -ne 0 ] && [ $r2 -ne 0 ]"
  else
    check "$label: refused with exit 4 ($(head -c 200 err.txt))" "[ $r1 -eq 0 ]"
    check "$label: refused however spelled ($(head -c 200 err.txt))" "[ $r2 -eq 0 ]"
  fi
  check "$label: the file is untouched" "[ \"\$(sha256sum x)\" = '$sum' ]"
  rm -f x link
  # 3. a file that does not exist yet (an output named twice, or an output
  # that is a missing input): nothing may be created under either name.
  if [ $allowed -eq 0 ]; then
    refused "${c[@]}" "--$a" new.out "--$b" d/../new.out; local r3=$?
    check "$label: refused while the file does not exist ($(head -c 200 err.txt))" "[ $r3 -eq 0 ]"
    check "$label: no file created" "[ ! -e new.out ]"
  fi
}

# config CMD OUT: an output named in --config's own file, as the file itself.
config() {
  local -a c; read -ra c <<<"$1"
  printf '%s: cfg.yaml\n' "$2" >cfg.yaml; local sum; sum=$(sha256sum cfg.yaml)
  refused "${c[@]}" --config cfg.yaml; local r=$?
  check "fcast $1 --config cfg.yaml holding $2: cfg.yaml: refused ($(head -c 200 err.txt))" "[ $r -eq 0 ]"
  printf '# a configuration\n' >cfg.yaml; sum=$(sha256sum cfg.yaml)
  refused "${c[@]}" --config cfg.yaml "--$2" ./cfg.yaml; r=$?
  check "fcast $1 --config cfg.yaml --$2 ./cfg.yaml: refused ($(head -c 200 err.txt))" "[ $r -eq 0 ]"
  check "fcast $1: the configuration file is untouched" "[ \"\$(sha256sum cfg.yaml)\" = '$sum' ]"
}

n_commands=0
while read -r cmd; do
  local_flags=$("$fcast" $cmd --print-flags 2>err.txt)
  check "fcast $cmd --print-flags ($(head -c 200 err.txt))" "[ -n \"\$local_flags\" ]"
  n_commands=$((n_commands + 1))
  # a flag that takes a FILE must say whether it is read or written
  check "fcast $cmd: every FILE flag is a file kind" \
    "! awk -F'\t' '\$3 ~ /FILE/ && \$2 !~ /^(in|in-list|out)\$/' <<<\"\$local_flags\" | grep -q ."
  mapfile -t files < <(awk -F'\t' '$2=="in"||$2=="in-list"||$2=="out"{print $1 "\t" $2}' <<<"$local_flags")
  for ((i = 0; i < ${#files[@]}; i++)); do
    IFS=$'\t' read -r a ka <<<"${files[$i]}"
    [ "$ka" = out ] && config "$cmd" "$a"
    for ((j = 0; j < ${#files[@]}; j++)); do
      [ $i -eq $j ] && continue
      IFS=$'\t' read -r b kb <<<"${files[$j]}"
      [ "$ka" != out ] && [ "$kb" != out ] && continue   # two inputs may be one file
      [ $i -gt $j ] && [ "$ka" = out ] && [ "$kb" = out ] && continue   # each pair of outputs once
      pair "$cmd" "$a" "$ka" "$b" "$kb"
    done
  done
done < <(commands)
check "the commands were found ($n_commands)" "[ $n_commands -ge 17 ]"

# Two outputs to standard output, and an output inside a list of inputs.
refused quant risk --data x.csv --out - --csv
check "one output to standard output is no collision" "! grep -q 'standard output' err.txt"
printf 'm\n' >m1.safetensors; printf 'm\n' >m2.safetensors; sum=$(sha256sum m2.safetensors)
refused predict --model m1.safetensors,m2.safetensors --data x.csv --out ./m2.safetensors; rc=$?
check "predict --model A,B --out B: refused ($(head -c 200 err.txt))" "[ $rc -eq 0 ]"
check "predict --model A,B --out B: B untouched" "[ \"\$(sha256sum m2.safetensors)\" = '$sum' ]"
# Two outputs to one device are no collision: a device is written through.
if mknod null c 1 3 2>/dev/null; then
  "$fcast" train --out null --log-file null --data missing.csv --model nhits --h 2 --input-size 4 2>err.txt
  check "two outputs to a device: not refused as a collision" "! grep -q 'is also written by' err.txt"
fi
# The issue's cases as whole runs that would otherwise succeed and destroy
# the file (exit 0 before the check): the configuration, a model of
# several, a run log, a tune's best configuration.
"$fcast" train --data "$data" --model mlp --h 6 --input-size 12 --max-steps 2 --threads 1 --quiet --out mA.st 2>/dev/null &&
  cp mA.st mB.st || echo "FAIL: cannot train the model the tests need" >&2
# whole ARGS...: runs fcast ARGS; KEEP names the file that must survive.
whole() {
  local sum; sum=$(sha256sum "$KEEP")
  "$fcast" "$@" >out.txt 2>err.txt; local rc=$?
  check "fcast $*: exit 4 for the collision (got $rc: $(head -c 200 err.txt))" \
    "[ $rc -eq 4 ] && grep -qE 'is the input file given|is also written by' err.txt"
  check "fcast $*: $KEEP untouched" "[ \"\$(sha256sum '$KEEP')\" = '$sum' ]"
}
printf 'data: %s\nmodel: mlp\nh: 6\ninput-size: 12\nmax-steps: 2\nquiet: true\n' "$data" >tc.yaml
KEEP=tc.yaml whole train --config tc.yaml --out tc.yaml
KEEP=tc.yaml whole train --config tc.yaml --out m.st --checkpoint tc.yaml --checkpoint-every 1
KEEP=tc.yaml whole train --config tc.yaml --out m.st --log-file tc.yaml
KEEP=tc.yaml whole cv --config tc.yaml --n-windows 1 --out tc.yaml
printf 'data: %s\nmodel: mA.st\n' "$data" >pc.yaml
KEEP=pc.yaml whole predict --config pc.yaml --out pc.yaml
KEEP=mB.st whole predict --model mA.st,mB.st --data "$data" --out mB.st
printf 'data: %s\nind: sma:5\n' "$prices" >qc.yaml
KEEP=qc.yaml whole quant indicators --config qc.yaml --out qc.yaml
printf 'data: %s\nfast: 5:5:1\nslow: 20:20:1\n' "$prices" >bc.yaml
KEEP=bc.yaml whole quant backtest --config bc.yaml --out bc.yaml
printf 'lr: loguniform(1e-4, 1e-2)\n' >space.yaml
printf 'data: %s\nspace: space.yaml\nmodel: mlp\nh: 6\ninput-size: 12\nmax-steps: 2\ntrials: 1\nquiet: true\n' \
  "$data" >cf.yaml
KEEP=cf.yaml whole tune --config cf.yaml --best-config cf.yaml
# Outputs that collide while the file does not exist yet: nothing written.
for args in "--out new.st --log-file new.st" "--out m.st --checkpoint new.ck --log-file ./new.ck"; do
  "$fcast" train --config tc.yaml $args 2>err.txt; rc=$?
  check "fcast train $args: exit 4 ($rc: $(head -c 200 err.txt))" \
    "[ $rc -eq 4 ] && grep -q 'is also written by' err.txt && [ ! -e new.st ] && [ ! -e new.ck ]"
done
for args in "--out t.st --best-config t.st" "--out t.st --log t.yaml --best-config t.yaml"; do
  "$fcast" tune --config cf.yaml $args 2>err.txt; rc=$?
  check "fcast tune $args: exit 4 ($rc: $(head -c 200 err.txt))" \
    "[ $rc -eq 4 ] && grep -q 'is also written by' err.txt && [ ! -e t.st ] && [ ! -e t.yaml ]"
done
finish
