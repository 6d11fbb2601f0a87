#!/usr/bin/env bash
# Times an incremental `trellis sync` (issue 29.1: the deferred indexes must not slow a small
# run into a large store): a store synced with the first BASE of the generated characters,
# then the server restarted with the first TOTAL, and `trellis sync` of the TOTAL - BASE new
# records (keyset pages of 1,000 after the watermark) timed RUNS times, each on a fresh copy
# of the BASE store. Prints one line per run and the medians (wall, user + system CPU seconds,
# peak RSS), e.g.
#
#   Benchmarks/sync/incremental_sync.sh .build/release/trellis 99000 100000 5
#
# Needs python3 and GNU time (/usr/bin/time); run from the repository root. With CALLGRIND=DIR
# each timed run is run under `valgrind --tool=callgrind` (see below).
set -euo pipefail
trellis=${1:?usage: incremental_sync.sh TRELLIS BASE TOTAL [RUNS]}
base=${2:?}
total=${3:?}
runs=${4:-5}
characters=Benchmarks/data/characters.json
[ -f "$characters" ] || python3 Benchmarks/data-generators/gen_characters.py 100000 "$characters"
work=$(mktemp -d /tmp/trellis-incremental-XXXXXX)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT

python3 - "$characters" "$base" "$total" "$work" <<'EOF'
import json, sys
records = json.load(open(sys.argv[1]))
base, total, work = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
json.dump(records[:base], open(work + "/base.json", "w"))
json.dump(records[:total], open(work + "/total.json", "w"))
EOF
cat > "$work/model.json" <<'EOF'
{"format": "trellis-model", "formatVersion": 1, "entities": [
  {"name": "Character", "identityAttributes": "objectId", "attributes": [
    {"name": "objectId", "type": "string", "jsonKeyPath": "objectId"},
    {"name": "updatedAt", "type": "date", "jsonKeyPath": "updatedAt"},
    {"name": "id", "type": "integer64", "jsonKeyPath": "id"},
    {"name": "name", "type": "string", "jsonKeyPath": "name"},
    {"name": "realName", "type": "string", "jsonKeyPath": "real_name"},
    {"name": "createdAt", "type": "date", "jsonKeyPath": "created_at", "transformer": "iso8601"},
    {"name": "rating", "type": "double", "jsonKeyPath": "rating"},
    {"name": "active", "type": "boolean", "jsonKeyPath": "active"}],
   "relationships": [
    {"name": "powers", "destination": "Power", "inverse": "characters", "toMany": true, "jsonKeyPath": "powers"},
    {"name": "publisher", "destination": "Publisher", "inverse": "characters", "jsonKeyPath": "publisher"}]},
  {"name": "Power", "identityAttributes": "id", "attributes": [
    {"name": "id", "type": "integer64", "jsonKeyPath": "id"}, {"name": "name", "type": "string", "jsonKeyPath": "name"}],
   "relationships": [{"name": "characters", "destination": "Character", "inverse": "powers", "toMany": true}]},
  {"name": "Publisher", "identityAttributes": "id", "attributes": [
    {"name": "id", "type": "integer64", "jsonKeyPath": "id"}, {"name": "name", "type": "string", "jsonKeyPath": "name"}],
   "relationships": [{"name": "characters", "destination": "Character", "inverse": "publisher", "toMany": true}]}]}
EOF

start_server() {
  python3 Benchmarks/sync/parse_lite_server.py "$1" 0 Character > "$work/server.out" &
  server=$!
  for _ in $(seq 600); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.1; done
  port=$(awk '{print $NF}' "$work/server.out")
  cat > "$work/source.json" <<EOF
{"format": "trellis-source", "formatVersion": 1,
 "client": {"baseURL": "http://127.0.0.1:$port/parse/", "dialect": "parse", "headers": {"X-Parse-Application-Id": "bench"}},
 "resources": [{"name": "characters", "entity": "Character", "path": "classes/Character", "records": "results",
                "params": {"limit": 1000}, "paginator": {"type": "parse"}, "incremental": {"cursor": "updatedAt"}}]}
EOF
}

# BASE_STORE=FILE: the BASE store is kept there, and taken from there when it exists (to time
# two builds on the same file: a store whose indexes were built at the end of a run, or kept up
# row by row, takes the same inserts at a slightly different cost).
if [ -n "${BASE_STORE:-}" ] && [ -f "$BASE_STORE" ]; then
  cp "$BASE_STORE" "$work/base.sqlite"
else
  start_server "$work/base.json"
  "$trellis" sync "$work/source.json" --model "$work/model.json" --store "$work/base.sqlite" > /dev/null
  kill $server; wait $server 2>/dev/null || true
  if [ -n "${BASE_STORE:-}" ]; then cp "$work/base.sqlite" "$BASE_STORE"; fi
fi
start_server "$work/total.json"

walls=(); cpus=(); rss=()
for run in $(seq "$runs"); do
  rm -f "$work"/run.sqlite*
  cp "$work/base.sqlite" "$work/run.sqlite"
  # CALLGRIND=DIR: each timed run under valgrind's callgrind, its profile kept as DIR/run-N.out
  # (instruction counts, for a machine too shared for wall or CPU seconds).
  wrap=()
  if [ -n "${CALLGRIND:-}" ]; then wrap=(valgrind --tool=callgrind --callgrind-out-file="$CALLGRIND/run-$run.out"); fi
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "${wrap[@]}" "$trellis" sync "$work/source.json" --model "$work/model.json" --store "$work/run.sqlite" > "$work/out"
  read -r wall user system peak < "$work/time"
  cpu=$(python3 -c "print(round($user + $system, 3))")
  echo "run $run: wall $wall s, cpu $cpu s, peak RSS $((peak / 1024)) MB: $(head -1 "$work/out")"
  walls+=("$wall"); cpus+=("$cpu"); rss+=("$peak")
done
python3 - "${walls[*]}" "${cpus[*]}" <<'EOF'
import statistics, sys
w = [float(x) for x in sys.argv[1].split()]; c = [float(x) for x in sys.argv[2].split()]
print("incremental sync: median wall %.3f s, median cpu %.3f s over %d runs" % (statistics.median(w), statistics.median(c), len(w)))
EOF
