#!/usr/bin/env bash
# Installs the system packages Trellis builds against (Debian): SQLite's and libxml2's headers,
# pkg-config, and the sqlite3 shell (tests inspect stores with it).
# Idempotent: does nothing when everything is present.
set -euo pipefail
need=()
dpkg -s libsqlite3-dev >/dev/null 2>&1 || need+=(libsqlite3-dev)
dpkg -s libxml2-dev >/dev/null 2>&1 || need+=(libxml2-dev)
dpkg -s pkg-config >/dev/null 2>&1 || need+=(pkg-config)
dpkg -s sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
dpkg -s python3 >/dev/null 2>&1 || command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
