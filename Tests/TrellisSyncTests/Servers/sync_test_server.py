#!/usr/bin/env python3
"""Loopback HTTP server for the TrellisSync tests (127.0.0.1 only; nothing leaves the machine).

Usage: sync_test_server.py [--port 0] [--github FILE] [--nytimes DIR] [--heroes N] [--ties N] [--items N] [--app-id ID]
Prints "listening on PORT foreign HOST:PORT" once bound (port 0: the OS picks a free one),
then serves until SIGTERM or stdin closes. The second listener ("foreign", on 127.0.0.2 where
the loopback has it, else another port of 127.0.0.1) serves the same routes: it is another
origin, for next links that leave the API's host; its requests are logged apart
(/control/log?server=foreign). Routes:

  /parse/classes/CLASS   a Parse REST emulator: where ($gt $gte $lt $lte $ne $in $exists, $or,
                         $and, equality; Date and Pointer values), order (fields, -desc), limit
                         (default 100, at most 1000), skip, keys; typed values (Date, Pointer,
                         File, GeoPoint, Bytes, Relation); error bodies {"code":N,"error":"..."};
                         requires X-Parse-Application-Id. Data: N heroes ("Hero"), TIES of them
                         sharing one updatedAt millisecond, and 12 teams ("Team"). /control/config
                         parseMaxLimit caps `limit` silently, as Parse Server's maxLimit does.
  /github/...            the recorded GitHub pages (--github: paginate-issues.json), their
                         https://api.github.com links rewritten to this server; If-None-Match
                         with the recorded ETag gives 304.
  /items                 a list of N items (--items, 30) sorted by updated_at (desc, or asc with
                         direction=asc), paged by style=page|link|offset|cursor|cursorurl|next
                         (per_page/limit), `since` filter, per-page ETag; Date header from the
                         server's fake clock. Misbehaving modes: past_end=last|first|mixed (page
                         numbers past the end answer the last page, page 1, or earlier records
                         in another order), foreign=1 (next links, cursor URLs point at the
                         foreign listener), /control/config itemsMaxLimit (offset pages clamp
                         `limit`, the body's total stays right).
  /nytimes/svc/search/v2/articlesearch.json   recorded article search pages (page=0..), needs
                         api-key=KEY (the --app-id value).
  /parse/classes/CLASS (POST), /parse/classes/CLASS/ID (GET, PUT, DELETE), /parse/batch (POST)
                         the Parse write API: a create answers 201 {objectId, createdAt} (a client-
                         supplied objectId only with /control/config allowCustomObjectId, as Parse
                         Server's option; else 105; a duplicate gives 137), an update 200 {updatedAt}
                         (missing object: 101), a delete 200 {} (101); createdAt/updatedAt from the
                         fake clock. Batch {"requests": [{method, path, body}]} (paths with the mount
                         path, "/parse/classes/X", at most 50) answers 200 with one {"success": …} or
                         {"error": {code, error}} per operation. X-Parse-Request-Id as Parse Server's
                         idempotency middleware (ParseServer `idempotencyOptions`, paths classes/.*):
                         the id is recorded before the request is processed, a repeat is answered 400
                         {"code": 159, "error": "Duplicate request"} and nothing is replayed; inside a
                         batch every sub-request carries the batch's id (Parse 7's batch.js passes
                         req.info on), so only its first create passes. Every applied write is logged
                         (GET /control/writes).
  /rest/COLLECTION[/ID]  a generic REST API with ETags (collection "notes": --notes N records {id, title,
                         body, etag}): GET of the collection answers {"items": [...]} (each record with its
                         "etag"), GET/PUT/PATCH/DELETE of /rest/notes/ID and POST /rest/notes answer the record
                         with an ETag header (a strong validator, '"…"'; DELETE: 204). If-Match (RFC 9110
                         §13.1.1: a list of ETags, or *) that does not match the record's current ETag answers
                         412 {"error": "precondition failed"} with the current ETag, and nothing is applied; a
                         missing record is 404. PATCH merges the body's keys (null removes one), PUT replaces
                         every key but the id; POST takes a client "id" or makes one ("r000001"), and
                         Idempotency-Key as Stripe's: the first answer is kept and a repeat gets it again,
                         unapplied. Every applied write is logged (/control/writes).
  /redirect/same, /redirect/other   302 to a page on this host / on "localhost" (another host).
  /control/...           POST JSON: /control/faults [{match, method (GET unless given; "*": any), skip, times, status, retryAfter,
                         headers, body, reset, truncate, html, delay, gzip, after: [mutations],
                         drop (writes: apply, then reset the connection half-way through the answer),
                         before: [mutations] (writes: applied just before the write is processed, as
                         another client's write landing between a read and this one),
                         opError {index, code, error} (that operation of a batch fails, unapplied)}],
                         selfNext (a "next" URL equal to the page's own), /control/mutate
                         [{op: update|delete|insert, class, objectId (or id for items and rest/notes), set}],
                         /control/config {parseMaxLimit, itemsMaxLimit (null: no cap),
                         allowCustomObjectId}; GET /control/data?class=C (every object),
                         /control/log[?server=foreign] (requests), /control/writes (the applied
                         writes: [{method, path, objectId, requestId}]).
"""
import argparse, base64, functools, gzip, hashlib, http.server, json, os, socket, struct, sys, threading, time, urllib.parse

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--github", default=None, help="the recorded GitHub pages (paginate-issues.json)")
parser.add_argument("--nytimes", default=None, help="a directory of articlesearch-pageN.json responses")
parser.add_argument("--heroes", type=int, default=2500)
parser.add_argument("--ties", type=int, default=500)
parser.add_argument("--items", type=int, default=30)
parser.add_argument("--notes", type=int, default=3)
parser.add_argument("--app-id", default="test-app")
args = parser.parse_args()

lock = threading.RLock()
log = []          # [{"path":..., "headers":{...}}]
foreign_log = []  # the same, for the foreign listener
config = {"parseMaxLimit": None, "itemsMaxLimit": None, "allowCustomObjectId": False}
writes = []       # the applied Parse writes: [{"method", "path", "objectId", "requestId"}]
request_ids = set()  # X-Parse-Request-Id values seen (recorded before processing, as Parse's _Idempotency)
id_counter = [0]
foreign_base = [None]  # "http://127.0.0.2:PORT" once bound
faults = []       # active fault specs
clock_ms = [1704067200000 + 10_000_000]  # the fake clock for mutations: after every generated stamp


def iso(ms):
    t = time.gmtime(ms // 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + ".%03dZ" % (ms % 1000)


@functools.lru_cache(maxsize=100000)
def parse_iso(text):
    base, _, rest = text.partition(".")
    frac = rest.rstrip("Z") if rest else "0"
    t = time.strptime(base.rstrip("Z"), "%Y-%m-%dT%H:%M:%S")
    import calendar
    return calendar.timegm(t) * 1000 + int((frac + "000")[:3])


def tick():
    with lock:
        clock_ms[0] += 7
        return clock_ms[0]

# ---------------------------------------------------------------- Parse data

classes = {"Hero": [], "Team": []}
for t in range(12):
    classes["Team"].append({"objectId": "team%02d" % t, "createdAt": iso(1704067200000), "updatedAt": iso(1704067200000 + t),
                            "name": "Team %d" % t})
start = 1704067200000
tie_at = args.heroes // 2 - args.ties // 2
for i in range(args.heroes):
    if tie_at <= i < tie_at + args.ties:
        ms = start + 1000 + tie_at
    else:
        ms = start + 1000 + i
    oid = "h%05d" % ((i * 7919) % 100000)  # objectIds not in stamp order
    hero = {"objectId": oid, "createdAt": iso(start), "updatedAt": iso(ms), "name": "Hero %d" % i, "power": i % 97,
            "born": {"__type": "Date", "iso": iso(start - 86400000 * (i % 5000) - i)},
            "team": {"__type": "Pointer", "className": "Team", "objectId": "team%02d" % (i % 12)},
            "friends": {"__type": "Relation", "className": "Hero"}}
    if i % 3 == 0:
        hero["avatar"] = {"__type": "File", "name": "a%d.png" % i, "url": "http://files.example/a%d.png" % i}
    if i % 4 == 0:
        hero["location"] = {"__type": "GeoPoint", "latitude": 40.0 + i / 10000.0, "longitude": -73.5}
    if i % 5 == 0:
        hero["sigil"] = {"__type": "Bytes", "base64": base64.b64encode(("sigil-%d" % i).encode()).decode()}
    if i == 7:
        hero["mystery"] = {"__type": "Polygon", "coordinates": [[0, 0], [1, 1]]}
    classes["Hero"].append(hero)
classes["Hero"].sort(key=lambda h: (h["updatedAt"], h["objectId"]))


class ParseError(Exception):
    def __init__(self, code, message, status=400):
        self.code, self.message, self.status = code, message, status


def value_key(v):
    if isinstance(v, dict) and v.get("__type") == "Date":
        return ("d", parse_iso(v["iso"]))
    if isinstance(v, dict) and v.get("__type") == "Pointer":
        return ("p", v.get("objectId"))
    if isinstance(v, str) and len(v) >= 20 and v[4:5] == "-" and v[10:11] == "T":
        try:
            return ("d", parse_iso(v))
        except Exception:
            pass
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, (int, float)):
        return ("n", v)
    if isinstance(v, str):
        return ("s", v)
    return ("x", json.dumps(v, sort_keys=True))


def matches(obj, where):
    if not isinstance(where, dict):
        raise ParseError(102, "where must be a JSON object")
    for key, cond in where.items():
        if key == "$or":
            if not isinstance(cond, list) or not any(matches(obj, c) for c in cond):
                return False
            continue
        if key == "$and":
            if not isinstance(cond, list) or not all(matches(obj, c) for c in cond):
                return False
            continue
        if key.startswith("$"):
            raise ParseError(102, "unknown top-level operator: %s" % key)
        have = obj.get(key)
        if isinstance(cond, dict) and any(k.startswith("$") for k in cond):
            for op, want in cond.items():
                if op == "$exists":
                    if (have is not None) != bool(want):
                        return False
                    continue
                if op == "$in":
                    if value_key(have) not in [value_key(w) for w in want]:
                        return False
                    continue
                if have is None:
                    return False
                a, b = value_key(have), value_key(want)
                if a[0] != b[0] and op != "$ne":
                    return False
                if op == "$gt" and not a[1] > b[1]: return False
                if op == "$gte" and not a[1] >= b[1]: return False
                if op == "$lt" and not a[1] < b[1]: return False
                if op == "$lte" and not a[1] <= b[1]: return False
                if op == "$ne" and a == b: return False
                if op not in ("$gt", "$gte", "$lt", "$lte", "$ne"):
                    raise ParseError(102, "bad constraint: %s" % op)
        else:
            if have is None or value_key(have) != value_key(cond):
                return False
    return True


def parse_query(cls, q):
    if cls not in classes:
        return {"results": []}
    try:
        where = json.loads(q["where"][0]) if "where" in q else {}
    except ValueError:
        raise ParseError(107, "invalid JSON in where")
    limit = int(q.get("limit", ["100"])[0])
    if limit > 1000:
        limit = 1000
    if config["parseMaxLimit"] is not None:
        limit = min(limit, config["parseMaxLimit"])  # Parse Server's maxLimit: silent
    skip = int(q.get("skip", ["0"])[0])
    order = q.get("order", [""])[0]
    with lock:
        rows = [r for r in classes[cls] if matches(r, where)]
    if order:
        for field in reversed(order.split(",")):
            desc = field.startswith("-")
            name = field.lstrip("-")
            if not name.replace("_", "").isalnum():
                raise ParseError(105, "Invalid field name: %s." % name)
            rows.sort(key=lambda r: value_key(r.get(name)), reverse=desc)
    rows = rows[skip:skip + limit]
    if "keys" in q:
        keep = set(q["keys"][0].split(",")) | {"objectId", "createdAt", "updatedAt"}
        rows = [{k: v for k, v in r.items() if k in keep} for r in rows]
    return {"results": rows}

# ---------------------------------------------------------------- /items (positional walks)

items = []
for i in range(args.items):
    items.append({"id": i + 1, "name": "Item %d" % (i + 1), "updated_at": iso(1704067200000 + 60000 * (i + 1))})


def items_page(q, own_base):
    since = q.get("since", [None])[0]
    direction = q.get("direction", ["desc"])[0]
    style = q.get("style", ["page"])[0]
    per = int(q.get("per_page", q.get("limit", ["7"]))[0])
    past_end = q.get("past_end", [None])[0]
    with lock:
        rows = [dict(r) for r in items if since is None or parse_iso(r["updated_at"]) >= parse_iso(since)]
    rows.sort(key=lambda r: (parse_iso(r["updated_at"]), r["id"]), reverse=(direction != "asc"))
    base = (foreign_base[0] if q.get("foreign", ["0"])[0] == "1" else own_base) + "/items"
    def url_with(**changes):
        params = {k: v[0] for k, v in q.items()}
        params.update({k: str(v) for k, v in changes.items()})
        return base + "?" + urllib.parse.urlencode(params)
    headers = {}
    if style in ("page", "link"):
        page = int(q.get("page", ["1"])[0])
        last = max(1, (len(rows) + per - 1) // per)
        if page > last and past_end == "last":
            page = last
        elif page > last and past_end == "first":
            page = 1
        chunk = rows[(page - 1) * per: page * per]
        if int(q.get("page", ["1"])[0]) > last and past_end == "mixed":
            # Records seen before, in another order: no page repeats, nothing is new.
            k = int(q["page"][0]) % last
            chunk = list(reversed(rows[k * per: (k + 1) * per]))
        body = chunk
        if style == "link" and page * per < len(rows):
            headers["Link"] = '<%s>; rel="next", <%s>; rel="last"' % (url_with(page=page + 1), url_with(page=(len(rows) + per - 1) // per))
    elif style == "offset":
        offset = int(q.get("offset", ["0"])[0])
        limit = per if config["itemsMaxLimit"] is None else min(per, config["itemsMaxLimit"])
        body = {"data": rows[offset:offset + limit], "total": len(rows)}
        if q.get("total", ["1"])[0] == "0":
            del body["total"]
    elif style in ("cursor", "cursorurl"):
        after = int(q.get("cursor", ["0"])[0])
        chunk = rows[after:after + per]
        more = after + per < len(rows)
        cursor = (url_with(cursor=after + per) if style == "cursorurl" else str(after + per)) if more else None
        body = {"items": chunk, "meta": {"next_cursor": cursor}}
    else:  # next
        page = int(q.get("page", ["1"])[0])
        chunk = rows[(page - 1) * per: page * per]
        body = {"results": chunk, "next": url_with(page=page + 1) if page * per < len(rows) else None}
    return body, headers

# ---------------------------------------------------------------- GitHub and NYT fixtures

github = json.load(open(args.github)) if args.github else []
nytimes = {}
nyt_dir = args.nytimes
if nyt_dir and os.path.isdir(nyt_dir):
    for name in os.listdir(nyt_dir):
        if name.startswith("articlesearch-page") and name.endswith(".json"):
            nytimes[int(name[len("articlesearch-page"):-5])] = open(os.path.join(nyt_dir, name), "rb").read()

# ---------------------------------------------------------------- mutations and faults


def mutate(ops):
    with lock:
        for op in ops:
            cls = op.get("class", "Hero")
            if cls == "items":
                target = [r for r in items if r["id"] == op["id"]]
                if op["op"] == "delete":
                    items[:] = [r for r in items if r["id"] != op["id"]]
                elif op["op"] == "update":
                    target[0].update(op.get("set", {}))
                    target[0]["updated_at"] = iso(tick())
                elif op["op"] == "insert":
                    row = dict(op["set"]); row["updated_at"] = iso(tick()); items.append(row)
                continue
            if cls.startswith("rest/"):
                rest_mutate(cls[len("rest/"):], op)
                continue
            rows = classes.setdefault(cls, [])
            if op["op"] == "delete":
                rows[:] = [r for r in rows if r["objectId"] != op["objectId"]]
            elif op["op"] == "update":
                for r in rows:
                    if r["objectId"] == op["objectId"]:
                        r.update(op.get("set", {}))
                        r["updatedAt"] = op.get("updatedAt") or iso(tick())
            elif op["op"] == "insert":
                row = dict(op["set"]); row["objectId"] = op["objectId"]
                row.setdefault("createdAt", iso(tick())); row["updatedAt"] = op.get("updatedAt") or iso(tick())
                rows.append(row)
            rows.sort(key=lambda h: (h["updatedAt"], h["objectId"]))


def take_fault(path, method="GET"):
    """The fault for this request, if one applies (counting skips and times)."""
    with lock:
        for f in faults:
            if f.get("match", "") not in path:
                continue
            if f.get("method", "GET") not in (method, "*"):
                continue  # a fault without a method is for GETs
            if f.get("skip", 0) > 0:
                f["skip"] -= 1
                continue
            if f.get("times", 1) <= 0:
                continue
            f["times"] = f.get("times", 1) - 1
            return dict(f)
    return None



# ---------------------------------------------------------------- the Parse write API

WRITE_PATH = "/parse/"
IDEMPOTENT_PATHS = ("classes/", "users", "installations", "functions/", "jobs/")


def new_object_id():
    with lock:
        id_counter[0] += 1
        return "n%09d" % id_counter[0]


def find(cls, oid):
    for r in classes.get(cls, []):
        if r.get("objectId") == oid:
            return r
    return None


def apply_fields(row, body):
    for k, v in body.items():
        if k in ("objectId", "createdAt", "updatedAt", "ACL"):
            continue
        if isinstance(v, dict) and v.get("__op") == "Delete":
            row.pop(k, None)
        elif isinstance(v, dict) and "__op" in v:
            raise ParseError(111, "unsupported operation %s on %s" % (v["__op"], k))
        elif v is None:
            row.pop(k, None)
        else:
            row[k] = v


def write_one(method, path, body, request_id):
    """Applies one write (`path` after the mount path: classes/X[/ID]); returns (status, result)
    or raises ParseError. Runs under `lock`."""
    parts = path.strip("/").split("/")
    if not parts or parts[0] != "classes" or len(parts) not in (2, 3):
        raise ParseError(101, "cannot route %s %s" % (method, path), 404)
    cls = parts[1]
    if request_id is not None and path.lstrip("/").startswith(IDEMPOTENT_PATHS) and method in ("POST", "PUT", "DELETE"):
        # Parse records the id before the request is processed: a repeat is refused whatever
        # the first one's fate, and its response is not replayed (parse-server#9294).
        if request_id in request_ids:
            raise ParseError(159, "Duplicate request")
        request_ids.add(request_id)
    if body is not None and not isinstance(body, dict):
        raise ParseError(107, "the body must be a JSON object")
    body = body or {}
    rows = classes.setdefault(cls, [])
    if method == "POST" and len(parts) == 2:
        oid = body.get("objectId")
        if oid is not None:
            if not config["allowCustomObjectId"]:
                raise ParseError(105, "objectId is an invalid field name.")
            if not isinstance(oid, str) or not oid:
                raise ParseError(105, "objectId must be a non-empty string")
            if find(cls, oid) is not None:
                raise ParseError(137, "A duplicate value for a field with unique values was provided")
        else:
            oid = new_object_id()
        stamp = iso(tick())
        row = {"objectId": oid, "createdAt": stamp, "updatedAt": stamp}
        apply_fields(row, body)
        rows.append(row)
        writes.append({"method": "POST", "path": path, "objectId": oid, "requestId": request_id})
        return 201, {"objectId": oid, "createdAt": stamp}
    if len(parts) != 3:
        raise ParseError(101, "cannot route %s %s" % (method, path), 404)
    oid = parts[2]
    row = find(cls, oid)
    if method == "PUT":
        if row is None:
            raise ParseError(101, "Object not found.", 404)
        apply_fields(row, body)
        row["updatedAt"] = iso(tick())
        writes.append({"method": "PUT", "path": path, "objectId": oid, "requestId": request_id})
        return 200, {"updatedAt": row["updatedAt"]}
    if method == "DELETE":
        if row is None:
            raise ParseError(101, "Object not found.", 404)
        rows.remove(row)
        writes.append({"method": "DELETE", "path": path, "objectId": oid, "requestId": request_id})
        return 200, {}
    raise ParseError(101, "cannot route %s %s" % (method, path), 404)


def resort(cls):
    classes.get(cls, []).sort(key=lambda h: (h["updatedAt"], h["objectId"]))


def handle_write(method, path, body, request_id, fault):
    """A write request to the Parse mount (`path` after /parse/): (status, body)."""
    with lock:
        if path.strip("/") == "batch":
            if method != "POST":
                raise ParseError(101, "cannot route %s batch" % method, 404)
            requests = (body or {}).get("requests") if isinstance(body, dict) else None
            if not isinstance(requests, list):
                raise ParseError(107, "requests must be an array")
            if len(requests) > 50:
                raise ParseError(107, "too many requests in one batch (%d, at most 50)" % len(requests))
            op_error = (fault or {}).get("opError")
            results = []
            touched = set()
            for i, sub in enumerate(requests):
                try:
                    if not isinstance(sub, dict) or not isinstance(sub.get("path"), str):
                        raise ParseError(107, "a batch request needs method and path")
                    sub_path = sub["path"]
                    if not sub_path.startswith(WRITE_PATH):
                        raise ParseError(107, "cannot route batch path " + sub_path)
                    if op_error is not None and op_error.get("index") == i:
                        raise ParseError(op_error.get("code", 142), op_error.get("error", "injected validation error"))
                    _, result = write_one(sub.get("method", "").upper(), sub_path[len(WRITE_PATH):], sub.get("body"), request_id)
                    touched.add(sub_path[len(WRITE_PATH):].strip("/").split("/")[1])
                    results.append({"success": result})
                except ParseError as e:
                    results.append({"error": {"code": e.code, "error": e.message}})
            for cls in touched:
                resort(cls)
            return 200, results
        status, result = write_one(method, path, body, request_id)
        resort(path.strip("/").split("/")[1])
        return status, result


# ---------------------------------------------------------------- the generic REST API with ETags

REST_PATH = "/rest/"
rest = {"notes": []}
rest_versions = {}   # (collection, id) -> version, bumped by every write
idempotency = {}     # Idempotency-Key -> (status, body, headers) of its first answer
for i in range(args.notes):
    rest["notes"].append({"id": "note%d" % (i + 1), "title": "Note %d" % (i + 1), "body": "text %d" % (i + 1)})
    rest_versions[("notes", "note%d" % (i + 1))] = 1


def rest_etag(coll, rid):
    digest = hashlib.sha1(("%s/%s/%d" % (coll, rid, rest_versions.get((coll, rid), 0))).encode()).hexdigest()[:12]
    return '"%s"' % digest


def rest_record(coll, row):
    out = dict(row)
    out["etag"] = rest_etag(coll, row["id"])
    return out


def rest_find(coll, rid):
    for r in rest.get(coll, []):
        if r["id"] == rid:
            return r
    return None


def if_match_fails(header, coll, rid):
    """RFC 9110 §13.1.1: false when the header is absent, `*` (the record exists) or lists the current ETag."""
    if header is None:
        return False
    tags = [t.strip() for t in header.split(",")]
    return "*" not in tags and rest_etag(coll, rid) not in tags


def rest_mutate(coll, op):
    rows = rest.setdefault(coll, [])
    rid = op.get("id") or op.get("objectId")
    if op["op"] == "delete":
        rows[:] = [r for r in rows if r["id"] != rid]
    elif op["op"] == "update":
        row = rest_find(coll, rid)
        if row is not None:
            row.update(op.get("set", {}))
            rest_versions[(coll, rid)] = rest_versions.get((coll, rid), 0) + 1
    elif op["op"] == "insert":
        row = dict(op.get("set", {})); row["id"] = rid
        rows.append(row)
        rest_versions[(coll, rid)] = 1


def rest_write(method, path, body, headers):
    """A write to /rest/COLLECTION[/ID] (`path` after /rest/): (status, body, headers)."""
    parts = path.strip("/").split("/")
    coll = parts[0]
    if coll not in rest or len(parts) > 2:
        return 404, {"error": "no collection %s" % path}, {}
    key = headers.get("Idempotency-Key")
    if key is not None and key in idempotency:
        return idempotency[key]
    if body is not None and not isinstance(body, dict):
        return 400, {"error": "the body must be a JSON object"}, {}
    body = body or {}
    if method == "POST" and len(parts) == 1:
        rid = body.get("id")
        if rid is None:
            id_counter[0] += 1
            rid = "r%06d" % id_counter[0]
        elif rest_find(coll, rid) is not None:
            return 409, {"error": "a record with id %s exists" % rid}, {}
        row = {k: v for k, v in body.items() if k != "etag" and v is not None}
        row["id"] = rid
        rest[coll].append(row)
        rest_versions[(coll, rid)] = 1
        answer = (201, rest_record(coll, row), {"ETag": rest_etag(coll, rid), "Location": "/rest/%s/%s" % (coll, rid)})
        writes.append({"method": "POST", "path": path, "objectId": rid, "requestId": key})
    elif len(parts) == 2 and method in ("PUT", "PATCH", "DELETE"):
        rid = parts[1]
        row = rest_find(coll, rid)
        if row is None:
            return 404, {"error": "not found"}, {}
        if if_match_fails(headers.get("If-Match"), coll, rid):
            return 412, {"error": "precondition failed", "etag": rest_etag(coll, rid)}, {"ETag": rest_etag(coll, rid)}
        if method == "DELETE":
            rest[coll].remove(row)
            answer = (204, b"", {})
        else:
            if method == "PUT":
                for k in [k for k in row if k != "id"]:
                    del row[k]
            for k, v in body.items():
                if k in ("id", "etag"):
                    continue
                if v is None:
                    row.pop(k, None)
                else:
                    row[k] = v
            rest_versions[(coll, rid)] = rest_versions.get((coll, rid), 0) + 1
            answer = (200, rest_record(coll, row), {"ETag": rest_etag(coll, rid)})
        writes.append({"method": method, "path": path, "objectId": rid, "requestId": key})
    else:
        return 405, {"error": "cannot %s %s" % (method, path)}, {}
    if key is not None:
        idempotency[key] = answer
    return answer


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body, headers=None, fault=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body, separators=(",", ":")).encode()
        headers = dict(headers or {})
        headers.setdefault("Content-Type", "application/json; charset=utf-8")
        headers.setdefault("Date", time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(clock_ms[0] // 1000)))
        if fault and fault.get("gzip") and "gzip" in (self.headers.get("Accept-Encoding") or ""):
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        if fault and fault.get("truncate"):
            # No Content-Length: the body ends when the connection closes, half-way.
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if fault and fault.get("reset"):
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        self.wfile.write(body)

    def do_PUT(self):
        self.do_write("PUT")

    def do_DELETE(self):
        self.do_write("DELETE")

    def do_PATCH(self):
        self.do_write("PATCH")

    def drop(self, status, body):
        """The answer's status line and headers, half its body, then a reset: the client
        cannot tell whether the request was applied. (Dropping the connection before any
        complete header is no good emulation here: libcurl, under URLSession on Linux, then
        sends the request again on a fresh connection, without its body.)"""
        data = json.dumps(body, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def do_write(self, method):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        u = urllib.parse.urlparse(self.path)
        with lock:
            log.append({"path": self.path, "method": method, "headers": {k: v for k, v in self.headers.items()}})
        fault = take_fault(self.path, method)
        if fault:
            if fault.get("delay"):
                time.sleep(fault["delay"])
            if fault.get("status"):
                headers = dict(fault.get("headers", {}))
                if "retryAfter" in fault:
                    headers["Retry-After"] = fault["retryAfter"]
                return self.reply(fault["status"], json.dumps(fault.get("body", {"error": "injected %d" % fault["status"]})).encode(), headers)
        if fault and fault.get("before"):
            mutate(fault["before"])
        if u.path.startswith(REST_PATH):
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                return self.reply(400, {"error": "invalid JSON"})
            with lock:
                status, result, headers = rest_write(method, u.path[len(REST_PATH):], body, self.headers)
            if fault and fault.get("drop"):
                return self.drop(status, result)
            self.reply(status, result, headers, fault)
            if fault and fault.get("after"):
                mutate(fault["after"])
            return
        if not u.path.startswith(WRITE_PATH):
            return self.reply(404, {"error": "no route %s %s" % (method, u.path)})
        if self.headers.get("X-Parse-Application-Id") != args.app_id:
            return self.reply(403, {"error": "unauthorized"})
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return self.reply(400, {"code": 107, "error": "invalid JSON"})
        try:
            status, result, headers = *handle_write(method, u.path[len(WRITE_PATH):], body, self.headers.get("X-Parse-Request-Id"), fault), {}
        except ParseError as e:
            status, result, headers = e.status, {"code": e.code, "error": e.message}, {}
        if fault and fault.get("drop"):
            return self.drop(status, result)
        self.reply(status, result, headers, fault)
        if fault and fault.get("after"):
            mutate(fault["after"])

    def do_POST(self):
        if not self.path.startswith("/control/"):
            return self.do_write("POST")
        length = int(self.headers.get("Content-Length", "0"))
        payload = json.loads(self.rfile.read(length) or b"null")
        if self.path == "/control/faults":
            with lock:
                faults[:] = payload
            return self.reply(200, {"ok": True})
        if self.path == "/control/mutate":
            mutate(payload)
            return self.reply(200, {"ok": True})
        if self.path == "/control/reset-log":
            with lock:
                log[:] = []
                foreign_log[:] = []
                writes[:] = []
            return self.reply(200, {"ok": True})
        if self.path == "/control/config":
            with lock:
                config.update(payload)
            return self.reply(200, {"ok": True})
        self.reply(404, {"error": "no such control"})

    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query, keep_blank_values=True)
        if u.path == "/control/data":
            cls = q.get("class", ["Hero"])[0]
            with lock:
                if cls.startswith("rest/"):
                    coll = cls[len("rest/"):]
                    return self.reply(200, [rest_record(coll, r) for r in rest.get(coll, [])])
                return self.reply(200, items if cls == "items" else classes.get(cls, []))
        if u.path == "/control/writes":
            with lock:
                return self.reply(200, writes)
        if u.path == "/control/log":
            with lock:
                return self.reply(200, foreign_log if q.get("server", [""])[0] == "foreign" else log)
        with lock:
            (foreign_log if self.server.foreign else log).append({"path": self.path, "headers": {k: v for k, v in self.headers.items()}})
        fault = take_fault(self.path)
        if fault:
            if fault.get("delay"):
                time.sleep(fault["delay"])
            if fault.get("status"):
                headers = dict(fault.get("headers", {}))
                if "retryAfter" in fault:
                    headers["Retry-After"] = fault["retryAfter"]
                if fault.get("html"):
                    body = ("<!DOCTYPE html><html><head><title>%s</title></head><body><h1>Bad gateway</h1></body></html>"
                            % fault.get("title", "502 Bad Gateway")).encode()
                    headers["Content-Type"] = "text/html; charset=utf-8"
                else:
                    body = json.dumps(fault.get("body", {"error": "injected %d" % fault["status"]})).encode()
                return self.reply(fault["status"], body, headers)
        try:
            status, body, headers = self.route(u, q, fault or {})
        except ParseError as e:
            status, body, headers = e.status, {"code": e.code, "error": e.message}, {}
        self.reply(status, body, headers, fault)
        if fault and fault.get("after"):
            mutate(fault["after"])

    def route(self, u, q, fault):
        port = self.server.server_address[1]
        own_base = "http://%s:%d" % self.server.server_address[:2]
        if u.path.startswith("/parse/"):
            if self.headers.get("X-Parse-Application-Id") != args.app_id:
                return 403, {"error": "unauthorized"}, {}
            parts = u.path.split("/")
            if len(parts) == 4 and parts[2] == "classes":
                return 200, parse_query(parts[3], q), {}
            if len(parts) == 5 and parts[2] == "classes":
                with lock:
                    row = find(parts[3], parts[4])
                    if row is not None:
                        return 200, dict(row), {}
            return 404, {"code": 101, "error": "Object not found."}, {}
        if u.path.startswith(REST_PATH):
            parts = u.path[len(REST_PATH):].strip("/").split("/")
            with lock:
                if len(parts) == 1 and parts[0] in rest:
                    return 200, {"items": [rest_record(parts[0], r) for r in sorted(rest[parts[0]], key=lambda r: r["id"])]}, {}
                row = rest_find(parts[0], parts[1]) if len(parts) == 2 else None
                if row is None:
                    return 404, {"error": "not found"}, {}
                etag = rest_etag(parts[0], row["id"])
                if self.headers.get("If-None-Match") == etag:
                    return 304, b"", {"ETag": etag}
                return 200, rest_record(parts[0], row), {"ETag": etag}
        if u.path.startswith("/github/"):
            want = self.path[len("/github"):]
            for entry in github:
                if entry["path"] == want:
                    headers = {}
                    for k, v in entry["headers"].items():
                        if k.lower() in ("content-length", "connection", "transfer-encoding", "content-encoding"):
                            continue
                        headers[k] = str(v).replace("https://api.github.com", "http://127.0.0.1:%d/github" % port)
                    if self.headers.get("If-None-Match") == entry["headers"].get("etag"):
                        return 304, b"", {k: v for k, v in headers.items() if k.lower() in ("etag", "link", "date")}
                    return entry["status"], entry["response"], headers
            return 404, {"message": "Not Found"}, {}
        if u.path == "/items":
            body, headers = items_page(q, own_base)
            if fault.get("selfNext"):
                body["next"] = "http://127.0.0.1:%d%s" % (port, self.path)
            data = json.dumps(body, separators=(",", ":")).encode()
            etag = '"%s"' % hashlib.sha1(data).hexdigest()[:16]
            headers["ETag"] = etag
            if self.headers.get("If-None-Match") == etag:
                return 304, b"", headers
            return 200, data, headers
        if u.path == "/nytimes/svc/search/v2/articlesearch.json":
            if q.get("api-key", [None])[0] != args.app_id:
                return 401, {"fault": {"faultstring": "Invalid ApiKey", "detail": {"errorcode": "oauth.v2.InvalidApiKey"}}}, {}
            page = int(q.get("page", ["0"])[0])
            if page in nytimes:
                return 200, nytimes[page], {}
            return 200, {"status": "OK", "response": {"docs": [], "meta": {"hits": 0, "offset": page * 10, "time": 1}}}, {}
        if u.path == "/redirect/same":
            return 302, b"", {"Location": "/items?style=page&per_page=50"}
        if u.path == "/redirect/other":
            return 302, b"", {"Location": "http://localhost:%d/items?style=page&per_page=50" % port}
        return 404, {"error": "no route %s" % u.path}, {}


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    foreign = False


server = Server(("127.0.0.1", args.port), Handler)
try:
    foreign = Server(("127.0.0.2", 0), Handler)
except OSError:
    foreign = Server(("127.0.0.1", 0), Handler)
foreign.foreign = True
foreign_base[0] = "http://%s:%d" % foreign.server_address[:2]
print("listening on", server.server_address[1], "foreign", "%s:%d" % foreign.server_address[:2], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
threading.Thread(target=foreign.serve_forever, daemon=True).start()
try:
    sys.stdin.read()   # the test closes stdin (or is killed): stop
except KeyboardInterrupt:
    pass
server.shutdown()
foreign.shutdown()
