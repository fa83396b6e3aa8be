#!/usr/bin/env bash
# Splits a long-format CSV (unique_id,ds,y...; rows grouped by series and
# sorted by ds, as the bundled data is) into TRAIN and TEST, the last N rows
# of every series going to TEST.
# usage: scripts/split-tail.sh DATA.csv N TRAIN.csv TEST.csv
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 DATA.csv N TRAIN.csv TEST.csv" >&2; exit 2; }
data=$1 n=$2 train=$3 test=$4
awk -F, -v n="$n" -v train="$train" -v test="$test" '
  NR == FNR { if (FNR > 1) count[$1]++; next }
  FNR == 1  { print > train; print > test; next }
  { seen[$1]++; print > (seen[$1] > count[$1] - n ? test : train) }
' "$data" "$data"
