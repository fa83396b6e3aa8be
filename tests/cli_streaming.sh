#!/usr/bin/env bash
# --data-store through the CLI: a model trained on streamed data is byte
# for byte the model trained on the same data loaded whole (same seed),
# and so are its forecasts; a file whose series are out of ds order is
# refused when streamed, naming the line and how to sort it; bad values of
# --data-store and --store-dir are named; no store file is left behind.
# $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
run=(--data data/taylor_halfhourly.csv --model nhits --h 48 --input-size 96 --max-steps 30 --val-size 48
     --val-check-steps 10 --threads 2 --quiet)
mkdir -p "$tmp/store"
"$fcast" train "${run[@]}" --data-store memory --out "$tmp/memory.safetensors" 2> "$tmp/memory.log"
"$fcast" train "${run[@]}" --data-store stream --store-dir "$tmp/store" --out "$tmp/stream.safetensors" 2> "$tmp/stream.log"
check "both runs wrote a model" "[ -s $tmp/memory.safetensors ] && [ -s $tmp/stream.safetensors ]"
check "the streamed run says so" "grep -q 'data: streamed into a store file in $tmp/store (--data-store stream)' $tmp/stream.log"
check "the loaded-whole run does not" "! grep -q 'data: streamed' $tmp/memory.log"
check "streamed and whole data train the same model, byte for byte" "cmp -s $tmp/memory.safetensors $tmp/stream.safetensors"
check "the same validation loss in both logs" \
    "[ \"\$(grep -o 'best validation loss [0-9.]*' $tmp/memory.log)\" = \"\$(grep -o 'best validation loss [0-9.]*' $tmp/stream.log)\" ]"
"$fcast" predict --model "$tmp/memory.safetensors" --data data/taylor_halfhourly.csv --out "$tmp/p_memory.csv" 2>/dev/null
"$fcast" predict --model "$tmp/memory.safetensors" --data data/taylor_halfhourly.csv --data-store stream \
    --store-dir "$tmp/store" --out "$tmp/p_stream.csv" 2>/dev/null
check "streamed history gives the same forecasts" "[ -s $tmp/p_memory.csv ] && cmp -s $tmp/p_memory.csv $tmp/p_stream.csv"
check "no store file is left behind" "[ -z \"\$(ls -A $tmp/store)\" ]"

printf 'unique_id,ds,y\na,1,1\nb,1,2\na,3,1\nb,2,2\na,2,5\n' > "$tmp/order.csv"
"$fcast" train --data "$tmp/order.csv" --model mlp --h 1 --input-size 1 --data-store stream --out "$tmp/o.safetensors" \
    2> "$tmp/err.txt"
check "out-of-order rows: exit 3 (malformed input)" "[ $? -eq 3 ]"
check "the message names the file, line and column and says how to sort" \
    "grep -q 'order.csv:6: column .ds. (2): 2 comes after 3 (line 4) in series .a.' $tmp/err.txt && grep -q 'sort the file by unique_id and ds' $tmp/err.txt"
"$fcast" train "${run[@]}" --data-store disk --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "--data-store disk is refused with the choices" "[ $? -eq 4 ] && grep -q \"data-store 'disk' is not auto, memory or stream\" $tmp/err.txt"
"$fcast" train "${run[@]}" --data-store stream --store-dir "$tmp/nowhere" --out "$tmp/x.safetensors" 2> "$tmp/err.txt"
check "a missing --store-dir is named" "[ $? -eq 5 ] && grep -q '$tmp/nowhere' $tmp/err.txt && [ ! -e $tmp/x.safetensors ]"
finish
