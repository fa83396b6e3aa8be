#!/usr/bin/env bash
# The library's table of training keys (fcast_config_train_key) is the one
# list: every key of it must appear, generated, in each place that offers
# it -- the flags of every command that trains (--print-flags), their
# --help, --print-config, a --config file (its keys are the flags), and
# the Python package's argument names (python/fcast/models.py) -- so a key
# added to the table and missing from one of them fails here. And --model's
# help lists every model kind fcast_config_new takes.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh

lib=$(cd "$(dirname "$fcast")" && pwd)/libfcast.so
check "the build has libfcast.so" "[ -f $lib ]"
python3 - "$lib" > $tmp/keys.txt << 'PY'
import ctypes, sys
class Key(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("metavar", ctypes.c_char_p), ("help", ctypes.c_char_p),
                ("default_text", ctypes.c_char_p), ("python", ctypes.c_char_p), ("kind", ctypes.c_int),
                ("role", ctypes.c_int)]
lib = ctypes.CDLL(sys.argv[1])
class Kind(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("name", ctypes.c_char_p)]
k, i = Key(), 0
while lib.fcast_config_train_key(ctypes.c_size_t(i), ctypes.byref(k)):
    print("key", k.key.decode(), k.kind, k.role, (k.python or b"-").decode())
    i += 1
kind, i = Kind(), 0
while lib.fcast_config_model_kind(ctypes.c_size_t(i), ctypes.byref(kind)):
    print("kind", kind.key.decode(), kind.name.decode())
    i += 1
PY
check "the table reads through the public API" "[ \$(grep -c '^key' $tmp/keys.txt) -ge 40 ]"

# The flag of a key: verbose is --quiet. Its roles: 2 (FCAST_KEY_TRAIN_RUN)
# and 3 (FCAST_KEY_INTERVALS) are train's alone.
flag_of() { [ "$1" = verbose ] && echo quiet || echo "$1"; }
value_of() {   # a value of the key's kind, for a --config file
  case $1 in 0) echo 3 ;; 1) echo 3 ;; 2) echo 0.5 ;; 4) echo true ;; *) echo "v$2" ;; esac
}
for command in train plan cv tune ensemble "bench fit"; do
  "$fcast" $command --help > $tmp/help.txt 2>&1
  "$fcast" $command --print-flags > $tmp/flags.txt 2>&1
  "$fcast" $command --print-config > $tmp/config.txt 2>&1
  : > $tmp/file.yaml
  missing=""
  while read -r _ key kind role python; do
    [ "$command" != train ] && [ "$role" -ge 2 ] && continue
    flag=$(flag_of "$key")
    # (parallel: trainings side by side, for the commands that run several; train runs one)
    case "$command:$flag" in ensemble:seed|ensemble:loss|ensemble:quantile|ensemble:level|ensemble:quantiles) continue ;;
                             train:parallel) continue ;;
                             cv:step-size|tune:step-size) flag=train-step-size ;; esac
    grep -q "^$flag	" $tmp/flags.txt || missing="$missing flags:$flag"
    grep -q -- "--$flag[ =]\|--$flag\$" $tmp/help.txt || missing="$missing help:$flag"
    grep -q "^\(# \)\?$flag:" $tmp/config.txt || missing="$missing print-config:$flag"
    echo "$flag: $(value_of "$kind" "$flag")" >> $tmp/file.yaml
  done < <(grep '^key' $tmp/keys.txt)
  check "fcast $command: every training key in --print-flags, --help and --print-config (missing:$missing)" "[ -z '$missing' ]"
  "$fcast" $command --config $tmp/file.yaml --print-config > $tmp/read.txt 2> $tmp/err.txt
  check "fcast $command: a --config file of every training key is read (exit 0)" "[ $? -eq 0 ]"
  unread=$(grep -v '^#' $tmp/file.yaml | cut -d: -f1 | while read -r f; do grep -q "^$f: " $tmp/read.txt || echo "$f"; done)
  check "fcast $command: ... and --print-config writes each back (not: $unread)" "[ -z '$unread' ]"
done

"$fcast" train --help > $tmp/help.txt 2>&1
kinds=$(grep '^kind' $tmp/keys.txt | cut -d' ' -f2 | paste -sd'|' | sed 's/|/ | /g')
check "train --help's --model lists every model kind ($kinds)" "grep -q -- '--model NAME  *$kinds (required)' $tmp/help.txt"
"$fcast" --help > $tmp/top.txt 2>&1
names=$(grep '^kind' $tmp/keys.txt | cut -d' ' -f3 | paste -sd, | sed 's/,/, /g')
check "fcast --help's train line names every model kind ($names)" "grep -q -- '^  train .*: $names\$' $tmp/top.txt"

# Python: every key with a neuralforecast argument is mapped by models.py,
# and every argument models.py maps is one of the table's.
python3 - python/fcast/models.py $tmp/keys.txt << 'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
names = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
         if isinstance(t, ast.Name)}
keys = ast.literal_eval(names["_KEYS"])
mapped = set(ast.literal_eval(names["_TRAINING"])) | set(ast.literal_eval(names["_EXOG"]))
table = {}
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] == "key" and f[4] != "-":
        table[f[4]] = f[1]
errors = [f"{p} -> {k}: models.py maps it to {keys.get(p, p.replace('_', '-'))}" for p, k in table.items()
          if p not in mapped or keys.get(p, p.replace("_", "-")) != k]
errors += [f"{p}: mapped by models.py, not in the table" for p in mapped - set(table)]
print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
check "python/fcast/models.py maps neuralforecast's arguments to the table's keys" "[ $? -eq 0 ]"
finish
