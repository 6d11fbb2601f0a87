#!/usr/bin/env bash
# A throwaway PostgreSQL cluster in a private directory, for tests and benchmarks.
#
#   Scripts/postgres-server.sh start DIR [--watch PID]   # initdb + start; prints the connection URI
#   Scripts/postgres-server.sh restart DIR               # fast restart (a server restart mid-import)
#   Scripts/postgres-server.sh stop DIR                  # stop and remove DIR
#   Scripts/postgres-server.sh bindir                    # where initdb and pg_ctl were found
#
# The cluster lives in DIR/data (DIR must not exist yet, or be empty), listens on a Unix
# socket in DIR and on 127.0.0.1 at a free port; its superuser is `trellis`, trusted on the
# socket, password-checked (scram-sha-256) over TCP. It runs with fsync off: it holds test
# data only. DIR/url holds the URI printed by `start`, DIR/port the port, DIR/server.log
# the server's log. initdb refuses to run as root, so as root the cluster belongs to the
# `postgres` user (created by Debian's postgresql package), run through runuser.
#
# --watch PID: a background watchdog stops the server and removes DIR when process PID
# ends (the test process that started it, even if it is killed).
#
# initdb and pg_ctl are looked up in /usr/lib/postgresql/*/bin (newest first), then PATH.
set -euo pipefail

usage() {
    echo "usage: Scripts/postgres-server.sh start|restart|stop DIR [--watch PID] | bindir" >&2
    exit 64
}

bindir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -V -r); do
        if [[ -x $dir/initdb && -x $dir/pg_ctl ]]; then echo "$dir"; return 0; fi
    done
    if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
        dirname "$(readlink -f "$(command -v pg_ctl)")"
        return 0
    fi
    echo "postgres-server.sh: initdb and pg_ctl not found (install PostgreSQL: apt-get install -y postgresql)" >&2
    return 1
}

# Runs a command as the cluster's owner.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

[[ $# -ge 1 ]] || usage
command=$1
if [[ $command == bindir ]]; then bindir; exit; fi
[[ $# -ge 2 ]] || usage
dir=$2
bin=$(bindir)

# The server (started or restarted) and the watchdog outlive this script: they must not
# keep the caller's descriptors (a pipe the caller waits on, or the descriptor a process
# library watches to see this script end) open.
for fd in $(ls /proc/$$/fd 2>/dev/null); do
    if [[ $fd -gt 2 ]]; then eval "exec $fd>&-" 2>/dev/null || true; fi
done

case $command in
start)
    if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
        echo "postgres-server.sh: running as root, and there is no postgres user to own the cluster" >&2
        exit 1
    fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ -n $(ls -A "$dir") ]]; then echo "postgres-server.sh: $dir is not empty" >&2; exit 1; fi
    chmod 700 "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
    if ! as_owner "$bin/initdb" -D "$dir/data" -U trellis --auth-local=trust --auth-host=scram-sha-256 \
            -E UTF8 --no-locale --no-sync --no-instructions >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        exit 1
    fi
    port=$(free_port)
    echo "$port" >"$dir/port"
    options="-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
    options+=" -c full_page_writes=off -c max_connections=200 -c shared_buffers=128MB"
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 -o "$options" start >"$dir/pg_ctl.log" 2>&1; then
        cat "$dir/pg_ctl.log" "$dir/server.log" >&2 || true
        exit 1
    fi
    encoded=${dir//\//%2F}
    url="postgresql://trellis@$encoded:$port/postgres"
    echo "$url" >"$dir/url"
    if [[ ${3:-} == --watch && -n ${4:-} ]]; then
        watched=$4
        setsid bash -c '
            trap "" INT TERM HUP
            while kill -0 '"$watched"' 2>/dev/null; do sleep 1; done
            '"$(declare -f as_owner)"'
            as_owner "'"$bin"'/pg_ctl" -D "'"$dir"'/data" -m immediate stop >/dev/null 2>&1 || true
            rm -rf "'"$dir"'"
        ' </dev/null >/dev/null 2>&1 &
    fi
    echo "$url"
    ;;
restart)
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 -m fast restart >"$dir/pg_ctl.log" 2>&1 \
        || { cat "$dir/pg_ctl.log" >&2; exit 1; }
    ;;
stop)
    if [[ -d $dir/data ]]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    usage
    ;;
esac
