#!/usr/bin/env bash
# fcast as an installed library (issue 15): `cmake --install` of this build
# into a temporary prefix, its layout, libfcast.so's soname and exports
# (exactly the functions of include/fcast.h, under version FCAST_2), its
# pkg-config file, and examples/forecast.c compiled with pkg-config's flags
# and run on bundled data, its forecasts next to the installed fcast's.
# $1 is the fcast binary; the build directory is its directory.
set -uo pipefail
source tests/lib_cli.sh
build=$(cd "$(dirname "$1")" && pwd)
prefix="$tmp/prefix"
libdir_name=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
libdir="$prefix/${libdir_name:-lib}"
version=$("$1" --version | awk '{print $2}')

cmake --install "$build" --prefix "$prefix" > "$tmp/install.txt" 2>&1
code=$?
check "cmake --install succeeds" "[ $code -eq 0 ]"
[ $code -eq 0 ] || cat "$tmp/install.txt" >&2
check "installs bin/fcast" "[ -x $prefix/bin/fcast ]"
check "installs include/fcast.h" "cmp -s include/fcast.h $prefix/include/fcast.h"
for part in include/fcast/*.h; do
  check "installs $part (a part of fcast.h)" "cmp -s $part $prefix/$part"
done
# the file's version is the API's (1.0.0), the soname's its major
check "installs libfcast.so.2.0.0, libfcast.so.2 and libfcast.so" \
      "[ -f $libdir/libfcast.so.2.0.0 ] && [ \"\$(readlink $libdir/libfcast.so.2)\" = libfcast.so.2.0.0 ] \
       && [ \"\$(readlink $libdir/libfcast.so)\" = libfcast.so.2 ]"
check "installs the pkg-config file" "[ -f $libdir/pkgconfig/fcast.pc ]"
if [ -f "$build/libfcast-cuda.so" ]; then
    check "installs the CUDA backend library beside libfcast" "cmp -s $build/libfcast-cuda.so $libdir/libfcast-cuda.so"
else
    check "installs no CUDA backend library where none was built" "[ ! -e $libdir/libfcast-cuda.so ]"
fi
check "installs no static or test libraries" \
      "[ -z \"\$(cd $prefix && find . -name '*.a' -o -name '*fake*' -o -name 'test_*' -o -name 'bench_*')\" ]"

# The installed binary, and the pkg-config version against it.
check "the installed fcast --version runs and agrees" "[ \"\$($prefix/bin/fcast --version)\" = 'fcast $version' ]"
export PKG_CONFIG_LIBDIR="$libdir/pkgconfig" PKG_CONFIG_PATH=   # this prefix's fcast.pc, nothing else
check "fcast.pc's version is fcast --version's" "[ \"\$(pkg-config --modversion fcast)\" = $version ]"
check "pkg-config gives the prefix's include and lib dirs" \
      "[ \"\$(echo \$(pkg-config --cflags --libs fcast))\" = '-I$prefix/include -L$libdir -lfcast' ]"

# The soname and the exports: the header's functions (declarations start
# at the beginning of a line), each at version FCAST_2, and nothing else.
lib="$libdir/libfcast.so.2"
# (listings go to files first: under pipefail, grep -q closing the pipe early
# would fail the producer with SIGPIPE, now and then)
readelf -d "$lib" > "$tmp/dynamic.txt"
check "soname is libfcast.so.2" "grep -q 'Library soname: \[libfcast.so.2\]' $tmp/dynamic.txt"
sed -nE '/^typedef/d; s/^[a-z][^(]*[ *]((fc|fcast)_[a-z0-9_]+)\(.*/\1/p' include/fcast.h include/fcast/*.h | sort -u \
  > "$tmp/declared.txt"
nm -D --defined-only "$lib" | awk '{print $3}' | sort > "$tmp/exported.txt"
check "the header declares the API (fcast_train among its functions)" \
      "grep -qx fcast_train $tmp/declared.txt && [ \$(wc -l < $tmp/declared.txt) -ge 10 ]"
check "every export is versioned FCAST_2" "! grep -vqE '^(FCAST_2|[a-z_0-9]+@@FCAST_2)\$' $tmp/exported.txt"
grep -v '^FCAST_2$' "$tmp/exported.txt" | sed 's/@@FCAST_2$//' > "$tmp/exported_names.txt"
check "libfcast.so exports exactly the functions of fcast.h" "diff $tmp/declared.txt $tmp/exported_names.txt >&2"

# The example, built as a user would, warning-free.
cflags=(-std=c11 -Wall -Wextra -Werror)
sanitized "$1" && cflags+=("-fsanitize=address,undefined")   # a sanitized libfcast needs the runtimes first
# shellcheck disable=SC2046   # pkg-config's flags are words
cc "${cflags[@]}" -o "$tmp/forecast" examples/forecast.c $(pkg-config --cflags --libs fcast) 2> "$tmp/cc.txt"
check "examples/forecast.c compiles with pkg-config's flags" "[ \$? -eq 0 ] && [ -x $tmp/forecast ]"
check "examples/forecast.c compiles without a warning" "[ ! -s $tmp/cc.txt ]"
cat "$tmp/cc.txt" >&2
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ldd "$tmp/forecast" > "$tmp/ldd.txt"
check "the example loads the installed libfcast.so.2" "grep -q 'libfcast.so.2 => $libdir/libfcast.so.2' $tmp/ldd.txt"

"$tmp/forecast" data/monthly_classics.csv "$tmp/model.safetensors" > "$tmp/out.txt" 2> "$tmp/err.txt"
code=$?
check "the example exits 0" "[ $code -eq 0 ]"
[ $code -eq 0 ] || cat "$tmp/err.txt" >&2
check "it names the library's version" "grep -qx 'libfcast $version (API version 2)' $tmp/out.txt"
check "it reads 4 series" "grep -qx 'read 4 series from data/monthly_classics.csv' $tmp/out.txt"
check "its progress callback prints steps 10, 20, ..., 50" \
      "[ \"\$(grep -oE '^step +[0-9]+/50' $tmp/out.txt | tr -s ' ' | tr '\n' ,)\" = 'step 10/50,step 20/50,step 30/50,step 40/50,step 50/50,' ]"
check "training calls the callback once a step" "grep -qx 'trained in 50 steps: 12 steps ahead, 1 output(s) per step' $tmp/out.txt"
grep -P '^AirPassengers\t' "$tmp/out.txt" > "$tmp/air.txt"
check "12 forecasts of the first series, AirPassengers" \
      "[ \$(wc -l < $tmp/air.txt) -eq 12 ] && [ \"\$(cut -f2 $tmp/air.txt | tr '\n' ' ')\" = '+1 +2 +3 +4 +5 +6 +7 +8 +9 +10 +11 +12 ' ]"
check "the forecasts are plausible numbers (AirPassengers: 300 to 800)" \
      "awk -F'\t' '!(\$3 > 300 && \$3 < 800) { bad = 1 } END { exit bad }' $tmp/air.txt"
check "it saves the model" "[ -s $tmp/model.safetensors ]"
check "the reloaded model forecasts the same" "grep -qx 'the loaded model forecasts the same 48 values' $tmp/out.txt"
check "it forecasts the panel made from arrays" \
      "[ \$(grep -cE '^shop_[ab]:( -?[0-9]+\.[0-9]){12}\$' $tmp/out.txt) -eq 2 ]"
check "the example writes nothing to stderr" "[ ! -s $tmp/err.txt ]"

# The model file the library wrote, read by the installed CLI: the same forecasts.
"$prefix/bin/fcast" predict --model "$tmp/model.safetensors" --data data/monthly_classics.csv \
    --out "$tmp/fc.csv" 2> /dev/null
check "fcast predict reads the library's model file" "[ \$? -eq 0 ] && [ -s $tmp/fc.csv ]"
grep '^AirPassengers,' "$tmp/fc.csv" | cut -d, -f3 > "$tmp/cli.txt"
cut -f3 "$tmp/air.txt" | paste - "$tmp/cli.txt" > "$tmp/both.txt"
check "the CLI and the library forecast the same (within 1e-6)" \
      "[ \$(wc -l < $tmp/cli.txt) -eq 12 ] && awk '{ d = \$1 - \$2; if (d < 0) d = -d; if (d > 1e-6 * \$2) bad = 1 } END { exit bad }' $tmp/both.txt"

# Failures: a message naming the input, a non-zero exit code.
"$tmp/forecast" "$tmp/nothing.csv" > /dev/null 2> "$tmp/err.txt"
code=$?
check "the example exits 1 on a missing file" "[ $code -eq 1 ]"
check "it prints fc_last_error(), naming the file" "grep -q 'reading the data failed.*nothing.csv' $tmp/err.txt"
"$tmp/forecast" > /dev/null 2> "$tmp/err.txt"
check "the example exits 2 without arguments, with its usage" "[ \$? -eq 2 ] && grep -q '^usage:' $tmp/err.txt"
finish
