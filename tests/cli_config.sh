#!/usr/bin/env bash
# Configuration files and flag parsing through the CLI: --print-config then
# --config trains the same model byte for byte, the command line overrides
# the file, unknown keys and bad values name FILE:LINE, a flag given twice
# is refused, and --hidden-size 0 / --num-layers 0 are errors rather than
# the defaults. Exit codes follow what refused: a flag or key is a usage
# error (2), a file that is not flag: value YAML a parse error (3), a file
# that cannot be read an I/O error (5), for every command. $1 is the fcast
# binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

data=data/monthly_classics.csv
small=(--data "$data" --model nhits --h 12 --input-size 24 --mlp-units 16,16,16 --max-steps 5
       --windows-batch-size 64 --scaler standard --threads 1 --quiet)

# Round trip: the configuration printed for a run trains the same model.
"$fcast" train "${small[@]}" --lr 0.003 --out "$tmp/a.safetensors"
check "train with flags writes a model" "[ -s $tmp/a.safetensors ]"
"$fcast" train "${small[@]}" --lr 0.003 --out "$tmp/p.safetensors" --print-config > "$tmp/run.yaml"
check "--print-config exits 0" "[ $? -eq 0 ]"
check "--print-config does not train" "[ ! -e $tmp/p.safetensors ]"
check "--print-config writes flags given" "grep -qx 'max-steps: 5' $tmp/run.yaml && grep -qx 'mlp-units: 16,16,16' $tmp/run.yaml && grep -qx 'lr: 0.003' $tmp/run.yaml"
check "--print-config writes defaults" "grep -qx 'batch-size: 32' $tmp/run.yaml && grep -qx 'loss: mae' $tmp/run.yaml"
check "--print-config comments out flags without a value" "grep -q '^# hidden-size: (not set)' $tmp/run.yaml && grep -q '^# freq: (not set)' $tmp/run.yaml"
"$fcast" train --config "$tmp/run.yaml" --out "$tmp/b.safetensors"
check "train --config writes a model" "[ -s $tmp/b.safetensors ]"
check "--print-config then --config: the same model" "same_weights $tmp/a.safetensors $tmp/b.safetensors"
"$fcast" train --config "$tmp/run.yaml" --out "$tmp/b.safetensors" --print-config > "$tmp/run2.yaml"
check "printing a configuration read from a file gives it back" "diff <(grep -v '^out:' $tmp/run.yaml) <(grep -v '^out:' $tmp/run2.yaml) >/dev/null"

"$fcast" train "${small[@]}" --lr 0.30000000000000004 --clip-grad-norm 1e-300 --print-config > "$tmp/digits.yaml"
check "numbers are printed with every digit they need" "grep -qx 'lr: 0.30000000000000004' $tmp/digits.yaml && grep -qx 'clip-grad-norm: 1e-300' $tmp/digits.yaml"

# The command line overrides the file, and only for the flags it gives.
"$fcast" train --config "$tmp/run.yaml" --seed 2 --out "$tmp/c.safetensors"
check "a flag overriding the file changes the model" "[ -s $tmp/c.safetensors ] && ! same_weights $tmp/a.safetensors $tmp/c.safetensors"
"$fcast" train "${small[@]}" --lr 0.003 --seed 2 --out "$tmp/d.safetensors"
check "... to the model those flags train" "same_weights $tmp/c.safetensors $tmp/d.safetensors"
"$fcast" train --config "$tmp/run.yaml" --max-steps 7 --print-config > "$tmp/over.yaml"
check "--print-config shows the override" "grep -qx 'max-steps: 7' $tmp/over.yaml && grep -qx 'seed: 1' $tmp/over.yaml"

# A hand-written file: comments, quotes, a YAML list for a list flag, true.
cat > "$tmp/hand.yaml" <<EOF
# a small N-HiTS on the classics
data: "$data"       # quoted
model: nhits
h: 12
input-size: 24
mlp-units: [16, 16, 16]
max-steps: 5
windows-batch-size: 64
scaler: 'standard'
threads: 1
quiet: true
lr: 3e-3
EOF
"$fcast" train --config "$tmp/hand.yaml" --out "$tmp/e.safetensors"
check "a hand-written YAML file (list, quotes, comments, true) trains the same model" "cmp -s $tmp/a.safetensors $tmp/e.safetensors"

# Errors in the file name FILE:LINE and the flag.
printf 'model: nhits\nmax-steps: 5\nhiden-size: 8\n' > "$tmp/typo.yaml"
"$fcast" train --config "$tmp/typo.yaml" "${small[@]}" --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "unknown key is a usage error (2)" "[ $? -eq 2 ]"
check "... naming FILE:LINE and the key" "grep -q 'typo.yaml:3: unknown key .hiden-size.' $tmp/err.txt"
check "... with the close name and the known keys" "grep -q 'did you mean hidden-size' $tmp/err.txt && grep -q 'known keys:.* max-steps ' $tmp/err.txt"
check "no model written" "[ ! -e $tmp/x.safetensors ]"
printf 'max-steps: 5\nlr: fast\n' > "$tmp/kind.yaml"
"$fcast" train --config "$tmp/kind.yaml" "${small[@]}" --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "a value of the wrong kind names FILE:LINE and the flag" "[ $? -eq 2 ] && grep -q 'kind.yaml:2: --lr expects a finite number' $tmp/err.txt"
printf 'seed: 3\nconfig: other.yaml\n' > "$tmp/nested.yaml"
"$fcast" train --config "$tmp/nested.yaml" 2> "$tmp/err.txt"
check "a config key inside a configuration file is refused" "[ $? -eq 2 ] && grep -q 'nested.yaml:2: .config. cannot be set' $tmp/err.txt"
printf 'seed: 3\nthreads: 1\nseed: 4\n' > "$tmp/dup.yaml"
"$fcast" train --config "$tmp/dup.yaml" 2> "$tmp/err.txt"
check "a key given twice is a parse error (3) naming both lines" "[ $? -eq 3 ] && grep -q 'dup.yaml:3: .seed. given twice (first at .*dup.yaml:1)' $tmp/err.txt"
printf 'seed: 3\nmlp-units: [16, 16\n' > "$tmp/syntax.yaml"
"$fcast" train --config "$tmp/syntax.yaml" 2> "$tmp/err.txt"
check "a YAML syntax error is a parse error (3) naming FILE:LINE:COLUMN" "[ $? -eq 3 ] && grep -q 'syntax.yaml:3:1: YAML syntax error' $tmp/err.txt"
printf 'model:\n  name: nhits\n' > "$tmp/deep.yaml"
"$fcast" train --config "$tmp/deep.yaml" 2> "$tmp/err.txt"
check "a nested mapping is a parse error (3) with its line" "[ $? -eq 3 ] && grep -q 'deep.yaml:2: .model. has a mapping' $tmp/err.txt"
"$fcast" train --config "$tmp/missing.yaml" 2> "$tmp/err.txt"
check "a missing file is an I/O error (5) named with the reason" "[ $? -eq 5 ] && grep -q 'missing.yaml: cannot open the configuration file: No such file' $tmp/err.txt"
mkfifo "$tmp/fifo.yaml"
timeout 10 "$fcast" train --config "$tmp/fifo.yaml" 2> "$tmp/err.txt"
check "a FIFO as --config is refused at once (5), not waited on" "[ $? -eq 5 ] && grep -q 'not a regular file' $tmp/err.txt"
timeout 10 "$fcast" train --config "$tmp" 2> "$tmp/err.txt"
check "a directory as --config is refused (5)" "[ $? -eq 5 ] && grep -q 'is a directory' $tmp/err.txt"

# A flag given twice on the command line is refused, not silently the last.
"$fcast" train "${small[@]}" --max-steps 6 --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "a repeated flag is a usage error (2)" "[ $? -eq 2 ] && grep -q -- '--max-steps given twice' $tmp/err.txt"
"$fcast" train "${small[@]}" --lr=0.1 --lr 0.2 --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "... also in the --flag=value spelling" "[ $? -eq 2 ] && grep -q -- '--lr given twice' $tmp/err.txt"
"$fcast" train "${small[@]}" --quiet --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "... also a flag without a value" "[ $? -eq 2 ] && grep -q -- '--quiet given twice' $tmp/err.txt"
check "no model written" "[ ! -e $tmp/x.safetensors ]"

# 0 for an architecture size is an error, not the model's default.
mlp=(--data "$data" --model mlp --h 12 --input-size 24 --max-steps 5 --threads 1 --quiet)
"$fcast" train "${mlp[@]}" --hidden-size 0 --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "--hidden-size 0 is refused as invalid (4)" "[ $? -eq 4 ] && grep -q -- '--hidden-size 0: must be from 1' $tmp/err.txt"
"$fcast" train "${mlp[@]}" --num-layers 0 --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "--num-layers 0 is refused as invalid (4)" "[ $? -eq 4 ] && grep -q -- '--num-layers 0: must be from 1' $tmp/err.txt"
"$fcast" train "${small[@]}" --n-harmonics 0 --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "--n-harmonics 0 is refused as invalid (4)" "[ $? -eq 4 ] && grep -q -- '--n-harmonics 0' $tmp/err.txt"
printf 'hidden-size: 0\n' > "$tmp/zero.yaml"
"$fcast" train --config "$tmp/zero.yaml" "${mlp[@]}" --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "hidden-size: 0 in a file is refused too" "[ $? -eq 4 ] && grep -q -- '--hidden-size 0' $tmp/err.txt"
check "no model written" "[ ! -e $tmp/x.safetensors ]"
"$fcast" plan "${mlp[@]}" --num-layers 0 2> "$tmp/err.txt" > /dev/null
check "plan refuses --num-layers 0 as well" "[ $? -eq 4 ] && grep -q -- '--num-layers 0' $tmp/err.txt"
"$fcast" train "${mlp[@]}" --hidden-size 8 --num-layers 1 --out "$tmp/m1.safetensors"
"$fcast" train "${mlp[@]}" --out "$tmp/m2.safetensors"
check "explicit sizes still train, and differ from the defaults" "[ -s $tmp/m1.safetensors ] && [ \$(stat -c %s $tmp/m1.safetensors) -lt \$(stat -c %s $tmp/m2.safetensors) ]"

# Another command: the same --config and --print-config.
printf 'data: %s\nind: sma:3,rsi:5\nnan: restart\n' "$data" > "$tmp/ind.yaml"
"$fcast" quant indicators --config "$tmp/ind.yaml" --out "$tmp/ind.csv"
check "quant indicators --config computes" "[ \$? -eq 0 ] && head -1 $tmp/ind.csv | grep -q sma"
"$fcast" quant indicators --data "$data" --ind sma:3,rsi:5 --nan restart --out "$tmp/ind2.csv"
check "... the same output as the flags" "cmp -s $tmp/ind.csv $tmp/ind2.csv"
printf 'data: %s\nind: sma:3\nmax-steps: 5\n' "$data" > "$tmp/wrong.yaml"
"$fcast" quant indicators --config "$tmp/wrong.yaml" --out "$tmp/ind3.csv" 2> "$tmp/err.txt"
check "a train key in an indicators config is unknown there" "[ $? -eq 2 ] && grep -q 'wrong.yaml:3: unknown key .max-steps.' $tmp/err.txt && [ ! -e $tmp/ind3.csv ]"
"$fcast" quant indicators --print-config > "$tmp/tmpl.yaml"
check "--print-config without the required flags writes a template" "[ $? -eq 0 ] && grep -q '^# data: (not set, required)' $tmp/tmpl.yaml"
"$fcast" train --print-config > "$tmp/tmpl.yaml"
check "... in which a required size is a comment, not 0" "grep -q '^# h: (not set, required)' $tmp/tmpl.yaml && ! grep -q '^h:' $tmp/tmpl.yaml"
"$fcast" quant indicators --data "$data" --ind sma:3 --out "$tmp/ind.csv" --nan restart --nan poison 2> "$tmp/err.txt"
check "a repeated flag is refused by every command" "[ $? -eq 2 ] && grep -q -- '--nan given twice' $tmp/err.txt"

# Exit codes of --config errors: the same in every command, and no output.
printf 'seed: 3\nmodel: &m nhits\nloss: *m\n' > "$tmp/alias.yaml"
"$fcast" train --config "$tmp/alias.yaml" "${small[@]}" --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "an alias is a parse error (3)" "[ $? -eq 3 ] && grep -q 'alias.yaml:3: .loss. has an alias' $tmp/err.txt && [ ! -e $tmp/x.safetensors ]"
printf 'seed: 3\nmodel: nh\xffits\n' > "$tmp/latin.yaml"
"$fcast" train --config "$tmp/latin.yaml" 2> "$tmp/err.txt"
check "a file that is not UTF-8 is a parse error (3)" "[ $? -eq 3 ] && grep -q 'latin.yaml: byte' $tmp/err.txt"
printf '"": 3\n' > "$tmp/emptykey.yaml"
"$fcast" train --config "$tmp/emptykey.yaml" 2> "$tmp/err.txt"
check "a quoted empty key is a parse error (3)" "[ $? -eq 3 ] && grep -q 'emptykey.yaml:1: a key must be a flag name, not empty' $tmp/err.txt"
printf 'seed: 3\nlr:\n' > "$tmp/null.yaml"
"$fcast" train --config "$tmp/null.yaml" 2> "$tmp/err.txt"
check "a key without a value stays a usage error (2)" "[ $? -eq 2 ] && grep -q 'null.yaml:2: --lr has no value' $tmp/err.txt"
"$fcast" train --config 2> "$tmp/err.txt"
check "--config without a file stays a usage error (2)" "[ $? -eq 2 ] && grep -q -- '--config needs a value' $tmp/err.txt"
"$fcast" train --config "$tmp/run.yaml" --print-config > /dev/full 2> "$tmp/err.txt"
check "--print-config that cannot write is an I/O error (5)" "[ $? -eq 5 ] && grep -q 'cannot write to standard output' $tmp/err.txt"
"$fcast" train --config "$tmp/run.yaml" --help > /dev/null
check "--help with --config exits 0" "[ $? -eq 0 ]"
# Every command, including those that share no code with train but args_parse.
cmds=("eval" "predict" "plan" "report" "bench train" "quant indicators" "quant option" "quant risk" "quant portfolio" "quant backtest")
for c in "${cmds[@]}"; do
    $fcast $c --config "$tmp/missing.yaml" > /dev/null 2> "$tmp/err.txt"
    check "$c: a missing --config file exits 5" "[ $? -eq 5 ] && grep -q 'missing.yaml: cannot open' $tmp/err.txt"
    $fcast $c --config "$tmp/syntax.yaml" > /dev/null 2> "$tmp/err.txt"
    check "$c: malformed YAML exits 3" "[ $? -eq 3 ] && grep -q 'syntax.yaml:3:1: YAML syntax error' $tmp/err.txt"
    $fcast $c --config "$tmp/typo.yaml" > /dev/null 2> "$tmp/err.txt"
    check "$c: an unknown key exits 2" "[ $? -eq 2 ] && grep -q 'typo.yaml:[123]: unknown key' $tmp/err.txt"
    $fcast $c --print-config > /dev/null
    check "$c: --print-config exits 0" "[ $? -eq 0 ]"
done

finish
