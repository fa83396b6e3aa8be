#!/usr/bin/env bash
# deploy/ checked without a container runtime and without systemd running
# (docs/serving.md, Deployment). What the test needs from the files is read
# from them (tests/deploy_files.py), so the two cannot drift apart.
#
# deploy/Dockerfile: fcast built as the build stage builds it (its
# CMAKE_FLAGS, into a build directory of its own beside $1), put at the
# runtime stage's COPY destination in a Debian root filesystem holding the
# runtime stage's packages, made by mmdebstrap (variant minbase, as the
# debian images are), with the stage's user added by the stage's own
# useradd. Under chroot, as that user, with the environment a container
# gets and /proc and /sys mounted in a mount namespace of the command's own
# (gone when it ends, so nothing is left mounted): ldd finds every library,
# fcast --version and fcast doctor run, and the ENTRYPOINT, with the
# Kubernetes container's args and its --host and --port pointed at a free
# loopback port, serves a model from /models: the HEALTHCHECK command
# passes, and a forecast equals fcast predict's in the same root.
# deploy/fcast-serve.service: systemd-analyze verify says nothing at all
# (it warns of a bad value but still exits 0) on a copy whose ExecStart
# names the binary built here; ExecStart's own flags start the server.
# deploy/kubernetes.yaml: kubernetes-validate --strict (unknown fields are
# errors) against Kubernetes 1.31's schemas, and what a schema cannot see
# (tests/deploy_files.py kubernetes).
#
# Cost: the root filesystem is cached as a 234 MB tarball in
# /var/cache/fcast-test (or $FCAST_DEPLOY_CACHE), keyed by its package
# list, suite and mmdebstrap's version; making it took 50 s to 3 minutes
# here, mostly downloads. The image's build directory stays beside $1's:
# building fcast there took 50 s on 2 cores without ccache. Warm, 17-22 s:
# the tarball unpacked, a model trained, the checks.
#
# Needs root (mmdebstrap's root mode, chroot, mounts). Skipped (exit 77),
# saying why, without root, on a host that is not the Dockerfile's Debian
# release (the binary built here would not be the image's), or where the
# Debian mirror cannot be reached and no root filesystem is cached; the
# other checks still fail the test. $1 is the fcast binary.
set -uo pipefail
fcast=$1
source tests/lib_cli.sh
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (mmdebstrap's root mode, chroot)"; exit 77; }
for tool in mmdebstrap systemd-analyze python3 curl; do
    command -v $tool > /dev/null ||
        { echo "FAIL: $tool is missing: run scripts/install-deps.sh --test" >&2; exit 1; }
done
kval=/opt/fcast-test-tools/bin/kubernetes-validate
[ -x $kval ] || { echo "FAIL: $kval is missing: run scripts/install-deps.sh --test" >&2; exit 1; }

# The Dockerfile's facts, one file each under $tmp/df (tests/deploy_files.py).
python3 tests/deploy_files.py dockerfile deploy/Dockerfile "$tmp/df" || { echo "FAIL: reading deploy/Dockerfile" >&2; exit 1; }
fact() { cat "$tmp/df/$1"; }
mapfile -t flags < "$tmp/df/cmake_flags"
mapfile -t packages < "$tmp/df/packages"
mapfile -t entry < "$tmp/df/entrypoint"
. /etc/os-release
if [ "$(fact from)" != "debian:${VERSION_ID:-}" ] || [ "${ID:-}" != debian ]; then
    echo "skipped: the image is $(fact from) and this host ${PRETTY_NAME:-unknown}: a binary built here would not be the image's"
    exit 77
fi
suite=$VERSION_CODENAME

# fcast as the build stage builds it: its CMake flags alone (ccache changes
# nothing in the output), a fresh configuration whenever they change (a
# flag dropped from the Dockerfile must not live on in the cache).
build=$(cd "$(dirname "$fcast")" && pwd)/deploy-image
check "the build stage copies \$BUILD/fcast (the one file the test builds)" \
      "[ '$(fact copy_src)' = '$(fact build_dir)/fcast' ]"
if [ "$(cat "$build/dockerfile-flags" 2>/dev/null)" != "${flags[*]}" ]; then rm -rf "$build"; fi
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
{ cmake -S . -B "$build" "${flags[@]}" "${launcher[@]}" && echo "${flags[*]}" > "$build/dockerfile-flags" &&
      cmake --build "$build" --target fcast -j "$(nproc)"; } > "$tmp/build.log" 2>&1
rc=$?
check "fcast builds with the Dockerfile's flags (${flags[*]})" "[ $rc -eq 0 ] && [ -x '$build/fcast' ]"
[ $rc -eq 0 ] || { tail -20 "$tmp/build.log"; finish; exit 1; }
img=$build/fcast

# deploy/kubernetes.yaml: the schema, strictly; each resource said to pass
"$kval" --strict -k 1.31.0 deploy/kubernetes.yaml > "$tmp/k8s.txt" 2>&1
rc=$?
check "kubernetes.yaml: valid against Kubernetes 1.31's schema (kubernetes-validate --strict)" \
      "[ $rc -eq 0 ] && grep -q 'passed for resource deployment/fcast' $tmp/k8s.txt &&
       grep -q 'passed for resource service/fcast' $tmp/k8s.txt && ! grep -qE '^(WARN|ERROR)' $tmp/k8s.txt"
[ $rc -eq 0 ] || cat "$tmp/k8s.txt"
/opt/fcast-test-tools/bin/python tests/deploy_files.py kubernetes deploy/kubernetes.yaml "$tmp/df" "$tmp/k8s" \
    > "$tmp/k8s_refs.txt" 2>&1
rc=$?
check "kubernetes.yaml: selectors, ports, mounts and grace period agree with each other and the image" \
      "[ $rc -eq 0 ] && [ ! -s $tmp/k8s_refs.txt ]"
cat "$tmp/k8s_refs.txt"
mapfile -t k8s_args 2> /dev/null < "$tmp/k8s/args"

# deploy/fcast-serve.service: a copy with ExecStart on the binary built here
unit=deploy/fcast-serve.service
mkdir -p "$tmp/unit"
check "the unit runs /usr/local/bin/fcast (make install's default PREFIX)" \
      "[ \"\$(grep -c '^ExecStart=/usr/local/bin/fcast ' $unit)\" = 1 ]"
sed "s|^ExecStart=/usr/local/bin/fcast |ExecStart=$img |" $unit > "$tmp/unit/fcast-serve.service"
systemd-analyze verify "$tmp/unit/fcast-serve.service" > "$tmp/verify.txt" 2>&1
rc=$?
check "systemd-analyze verify: no error and no warning" "[ $rc -eq 0 ] && [ ! -s $tmp/verify.txt ]"
cat "$tmp/verify.txt"
read -r -a exec_start <<< "$(sed -n 's/^ExecStart=//p' "$tmp/unit/fcast-serve.service")"
drain=30 stop_timeout=$(sed -n 's/^TimeoutStopSec=//p' $unit)
for i in "${!exec_start[@]}"; do
    case ${exec_start[$i]} in
        --port) exec_start[$((i + 1))]=0 ;;                # any free port
        --models) exec_start[$((i + 1))]=$tmp/models ;;
        --drain-timeout) drain=${exec_start[$((i + 1))]} ;;
    esac
done
check "TimeoutStopSec ($stop_timeout) outlasts --drain-timeout ($drain)" "[ '${stop_timeout:-0}' -gt '$drain' ]"
fcast=$img
source tests/lib_serve.sh
serve_model
check "a model to serve" "[ -s $tmp/models/nhits.safetensors ]"
# wait_port LOG: the port the server in the background ($pid) printed to LOG
wait_port() {
    port=""
    for _ in $(seq 200); do
        port=$(sed -n 's|.*on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1" 2> /dev/null | head -1)
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
}
"${exec_start[@]}" 2> "$tmp/unit.log" &
pid=$!
wait_port "$tmp/unit.log"
check "the unit's ExecStart serves (its flags, another port and models directory)" \
      "[ -n '$port' ] && [ \"\$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 http://127.0.0.1:$port/v2/health/ready)\" = 200 ]"
kill -TERM "$pid" 2>/dev/null; wait "$pid"
check "... and stops on SIGTERM (systemctl stop) with exit 0" "[ $? -eq 0 ]"
pid=""

# The runtime stage's root filesystem, cached by what makes it.
cache=${FCAST_DEPLOY_CACHE:-/var/cache/fcast-test}
key=$(printf '%s\n' "$(mmdebstrap --version)" "$suite" minbase "${packages[@]}" | sha256sum | cut -c1-16)
tarball=$cache/rootfs-$suite-$key.tar
skip=""
if [ ! -s "$tarball" ]; then
    if ! curl -sf -o /dev/null --max-time 20 "http://deb.debian.org/debian/dists/$suite/InRelease"; then
        skip="the Debian mirror (deb.debian.org) cannot be reached and no root filesystem is cached in $cache"
    else
        mkdir -p "$cache"
        echo "cli_deploy: building the runtime stage's root filesystem (${packages[*]}) into $tarball"
        include=$(IFS=,; echo "${packages[*]}")
        if mmdebstrap --mode=root --variant=minbase --format=tar --include="$include" "$suite" "$tarball.tmp.$$" \
               > "$tmp/mmdebstrap.log" 2>&1; then
            mv "$tarball.tmp.$$" "$tarball"
        else
            rm -f "$tarball.tmp.$$"
            tail -20 "$tmp/mmdebstrap.log"
        fi
    fi
fi
if [ -z "$skip" ]; then
    check "mmdebstrap makes the runtime stage's root filesystem" "[ -s '$tarball' ]"
fi
if [ -z "$skip" ] && [ -s "$tarball" ]; then
    root=$tmp/root
    mkdir "$root" && tar -xf "$tarball" -C "$root" --numeric-owner
    dest=$(fact copy_dest)
    install -D -m 0755 "$img" "$root$dest"
    chroot "$root" sh -c "$(fact useradd)"
    check "the stage's useradd makes its USER" "chroot '$root' id -u '$(fact user)' > /dev/null"
    uid=$(chroot "$root" id -u "$(fact user)") gid=$(chroot "$root" id -g "$(fact user)")
    # The image's /models: a read-only volume in the image; here owned by root.
    mkdir -p "$root/models" && cp "$tmp/models/nhits.safetensors" "$root/models/"
    cp data/monthly_classics.csv "$root/tmp/"
    # in_image CMD...: CMD in the root filesystem as the image runs it: as
    # its USER, with a container's environment, /proc and /sys mounted in a
    # mount namespace of its own. A command, not a function, so that
    # "${in_image[@]}" CMD & execs all the way down and $! is CMD's pid.
    in_image=(unshare --mount --propagation private -- sh -c '
        root=$1 user=$2; shift 2
        mount -t proc proc "$root/proc" && mount -t sysfs -o ro sysfs "$root/sys" &&
        exec chroot --userspec="$user" "$root" /usr/bin/env -i HOME=/ \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' sh "$root" "$uid:$gid")
    in_image() { "${in_image[@]}" "$@"; }
    in_image ldd "$dest" > "$tmp/ldd.txt" 2>&1
    rc=$?
    check "ldd in the image: every library found" "[ $rc -eq 0 ] && ! grep -q 'not found' $tmp/ldd.txt"
    grep 'not found' "$tmp/ldd.txt"
    in_image fcast --version > "$tmp/version.txt" 2>&1
    rc=$?
    check "fcast --version in the image" "[ $rc -eq 0 ] && grep -q '^fcast ' $tmp/version.txt"
    [ $rc -eq 0 ] || cat "$tmp/version.txt"
    in_image fcast doctor --quick > "$tmp/doctor.txt" 2>&1
    rc=$?
    check "fcast doctor in the image" "[ $rc -eq 0 ] && grep -qx Conclusion $tmp/doctor.txt"
    [ $rc -eq 0 ] || cat "$tmp/doctor.txt"
    check "... which has no CUDA backend (no nvcc in the build stage), and says so" \
          "[ ! -e '$root$(dirname "$dest")/libfcast-cuda.so' ] && grep -q 'no CUDA backend: libfcast-cuda.so not found' $tmp/doctor.txt"
    # The ENTRYPOINT with the Kubernetes container's args, on a free loopback port.
    for i in "${!entry[@]}"; do
        case ${entry[$i]} in
            --host) entry[$((i + 1))]=127.0.0.1 ;;
            --port) entry[$((i + 1))]=0 ;;
        esac
    done
    "${in_image[@]}" "${entry[@]}" "${k8s_args[@]}" 2> "$tmp/serve.log" &
    pid=$!
    wait_port "$tmp/serve.log"
    check "the ENTRYPOINT serves in the image (with kubernetes.yaml's args: ${k8s_args[*]})" "[ -n '$port' ]"
    [ -n "$port" ] || cat "$tmp/serve.log"
    healthcheck=$(fact healthcheck)
    healthcheck=${healthcheck//:$(fact expose)\//:$port/}   # the EXPOSEd port, here the free one
    in_image sh -c "$healthcheck" > "$tmp/healthcheck.txt" 2>&1
    check "the HEALTHCHECK passes in the image: $healthcheck" \
          "[ $? -eq 0 ] && [ -n '$port' ] && [[ \"\$healthcheck\" == *:$port/* ]]"
    check "live" "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 http://127.0.0.1:$port/v2/health/live)\" = 200 ]"
    curl -s --max-time 30 -X POST -H 'Content-Type: text/csv' -H 'Accept: text/csv' \
         --data-binary @data/monthly_classics.csv "http://127.0.0.1:$port/v1/models/nhits/forecast" > "$tmp/served.csv"
    in_image fcast predict --model /models/nhits.safetensors --data /tmp/monthly_classics.csv --out - \
        > "$tmp/predict.csv" 2> "$tmp/predict.err"
    check "a forecast from the image's server: 48 rows, fcast predict's in the image byte for byte" \
          "[ \"\$(wc -l < $tmp/served.csv)\" = 49 ] && cmp -s $tmp/served.csv $tmp/predict.csv"
    kill -TERM "$pid" 2>/dev/null; wait "$pid"
    check "the server stops on SIGTERM (docker stop) with exit 0" "[ $? -eq 0 ]"
    pid=""
fi
if [ -n "$skip" ] && [ "$fails" -eq 0 ]; then
    echo "$passes passed; the image itself skipped: $skip"
    exit 77
fi
finish
