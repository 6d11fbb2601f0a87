#!/usr/bin/env bash
# Installs the system packages Trellis builds against (Debian): SQLite's, libxml2's and
# libpq's headers, pkg-config, the sqlite3 shell (tests inspect stores with it), Graphviz's
# `dot` (a test renders `trellis model show --format dot` with it), curl (the two-way example
# edits the emulator with it), and PostgreSQL's server programs when initdb is missing (the
# PostgreSQL tests and `trellis-bench postgres`
# start a throwaway cluster with them, Scripts/postgres-server.sh).
# Idempotent: does nothing when everything is present.
set -euo pipefail
need=()
dpkg -s libsqlite3-dev >/dev/null 2>&1 || need+=(libsqlite3-dev)
dpkg -s libxml2-dev >/dev/null 2>&1 || need+=(libxml2-dev)
dpkg -s libpq-dev >/dev/null 2>&1 || need+=(libpq-dev)
"$(dirname "$0")/postgres-server.sh" bindir >/dev/null 2>&1 || need+=(postgresql)
dpkg -s pkg-config >/dev/null 2>&1 || need+=(pkg-config)
dpkg -s sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
dpkg -s graphviz >/dev/null 2>&1 || command -v dot >/dev/null || need+=(graphviz)
dpkg -s python3 >/dev/null 2>&1 || command -v python3 >/dev/null || need+=(python3)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
