#!/usr/bin/env bash
# Runs a command against a temporary PostgreSQL server, then stops the server (also when the
# command fails or is interrupted):
#
#   Scripts/with-postgres.sh swift test
#   Scripts/with-postgres.sh swift run -c release trellis-bench postgres
#
# The command sees TRELLIS_POSTGRES_URL (the server's connection URI, superuser `trellis`,
# database `postgres`) and TRELLIS_POSTGRES_DIR (the cluster's directory, which lets tests
# restart the server with `Scripts/postgres-server.sh restart`). Exits with the command's
# status. Needs PostgreSQL's server programs (Debian: apt-get install -y postgresql;
# Scripts/install-dependencies.sh installs them). See Scripts/postgres-server.sh.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
if [[ $# -lt 1 ]]; then
    echo "usage: Scripts/with-postgres.sh COMMAND [ARGUMENTS…]" >&2
    exit 64
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/trellis-pg-XXXXXX")
trap '"$scripts/postgres-server.sh" stop "$dir"' EXIT
trap 'exit 130' INT TERM HUP
url=$("$scripts/postgres-server.sh" start "$dir")
echo "with-postgres: PostgreSQL at $url" >&2
export TRELLIS_POSTGRES_URL=$url TRELLIS_POSTGRES_DIR=$dir
"$@"
