#!/usr/bin/env python3
"""A minimal Parse-style REST server on 127.0.0.1, for benchmarks (not a Parse emulator).

Usage: parse_lite_server.py RECORDS.json PORT [CLASS [SHARDS]]
Serves GET /parse/classes/CLASS with `limit` (default 100), `skip`, `order` and `where`. With
SHARDS (N > 0), also /parse/classes/CLASS0 … CLASS(N-1): shard k holds the records whose
index % N == k, for benchmarks of several resources (sync workers).
Records get `objectId` ("o0000000"...) and `updatedAt` (ISO 8601, milliseconds, Z), every
1,000 records sharing one millisecond (ties at page boundaries). Sorted by (updatedAt, objectId).
`where` understands {"updatedAt": {"$gt"|"$gte": D}} and the keyset form
{"$or": [{"updatedAt": {"$gt": D}}, {"updatedAt": D, "objectId": {"$gt": ID}}]}, where D is a
Parse Date {"__type": "Date", "iso": "..."} or an ISO string. Responses are {"results": [...]}.
POST /parse/batch takes Parse's {"requests": [{method, path, body}]} (PUT, POST, DELETE of
classes/CLASS[/ID]) and answers one {"success": …} per operation (updatedAt, or objectId and
createdAt: the server's clock, milliseconds); a PUT's fields are kept beside the record (the
pages served stay as generated), for the push benchmark.
`where={"objectId": {"$in": [...]}}` (with `keys`: only objectId, updatedAt and those keys)
answers the records with those objectIds: the pre-read of server stamps a push makes under
`conflicts.detect: check`.
Requires no header. Prints "listening on PORT" when ready (PORT 0: a free port, the one printed).
Stops on SIGTERM. (Copied from ../shared/bench/sync/; the changes: port 0 prints the bound port; SHARDS.)
"""
import bisect, http.server, itertools, json, sys, time, urllib.parse

path, port = sys.argv[1], int(sys.argv[2])
cls = sys.argv[3] if len(sys.argv) > 3 else "Character"
shards = int(sys.argv[4]) if len(sys.argv) > 4 else 0
recs = json.load(open(path))
for i, r in enumerate(recs):
    ms = i // 1000
    r["objectId"] = "o%07d" % i
    r["updatedAt"] = "2024-01-01T%02d:%02d:%02d.%03dZ" % (ms // 3600000 % 24, ms // 60000 % 60, ms // 1000 % 60, ms % 1000)

def table(records):
    records = sorted(records, key=lambda r: (r["updatedAt"], r["objectId"]))
    return ([(r["updatedAt"], r["objectId"]) for r in records], [json.dumps(r, separators=(",", ":")).encode() for r in records])

tables = {cls: table(recs)}
for k in range(shards):
    tables[cls + str(k)] = table([r for i, r in enumerate(recs) if i % shards == k])
by_id = {r["objectId"]: r for r in recs}
keys, encoded = tables[cls]

def iso(v):
    return v["iso"] if isinstance(v, dict) else v

def start_index(where, keys):
    if not where:
        return 0
    if "$or" in where and len(where["$or"]) == 2:
        a, b = where["$or"]
        d = iso(a["updatedAt"]["$gt"])
        return bisect.bisect_right(keys, (iso(b["updatedAt"]), b["objectId"]["$gt"]))
    c = where.get("updatedAt", {})
    if "$gt" in c:
        return bisect.bisect_right(keys, (iso(c["$gt"]), "\uffff"))
    if "$gte" in c:
        return bisect.bisect_left(keys, (iso(c["$gte"]), ""))
    raise ValueError("unsupported where")

written = {}  # objectId -> the fields its PUTs set
created = itertools.count()

def now_iso():
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)

def batch(body):
    stamp = now_iso()
    results = []
    for sub in body.get("requests", []):
        method, parts = sub.get("method"), sub.get("path", "").strip("/").split("/")
        if method == "PUT" and len(parts) == 4:
            written.setdefault(parts[3], {}).update(sub.get("body") or {})
            results.append({"success": {"updatedAt": stamp}})
        elif method == "POST" and len(parts) == 3:
            results.append({"success": {"objectId": "c%07d" % next(created), "createdAt": stamp}})
        elif method == "DELETE" and len(parts) == 4:
            results.append({"success": {}})
        else:
            results.append({"error": {"code": 107, "error": "cannot route batch path %s" % sub.get("path")}})
    return results

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if urllib.parse.urlparse(self.path).path != "/parse/batch":
            return self.reply(404, b'{"code":101,"error":"Object not found."}')
        try:
            results = batch(json.loads(data))
        except Exception as e:
            return self.reply(400, json.dumps({"code": 107, "error": "bad batch: %s" % e}).encode())
        self.reply(200, json.dumps(results, separators=(",", ":")).encode())
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        name = u.path.rstrip("/")[len("/parse/classes/"):] if u.path.startswith("/parse/classes/") else None
        if name not in tables:
            return self.reply(404, b'{"code":101,"error":"Object not found."}')
        keys, encoded = tables[name]
        q = urllib.parse.parse_qs(u.query)
        try:
            limit = int(q.get("limit", ["100"])[0]); skip = int(q.get("skip", ["0"])[0])
            where = json.loads(q["where"][0]) if "where" in q else None
            wanted = where.get("objectId", {}).get("$in") if isinstance(where, dict) and isinstance(where.get("objectId"), dict) else None
            if wanted is not None:
                keep = set(q["keys"][0].split(",")) | {"objectId", "updatedAt"} if "keys" in q else None
                found = [by_id[o] for o in wanted if o in by_id][:limit]
                rows = [{k: v for k, v in r.items() if keep is None or k in keep} for r in found]
                return self.reply(200, json.dumps({"results": rows}, separators=(",", ":")).encode())
            i = start_index(where, keys) + skip
        except Exception as e:
            return self.reply(400, json.dumps({"code": 107, "error": "bad query: %s" % e}).encode())
        self.reply(200, b'{"results":[' + b",".join(encoded[i:i + limit]) + b"]}")
    def reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
print("listening on", server.server_address[1], flush=True)
server.serve_forever()
