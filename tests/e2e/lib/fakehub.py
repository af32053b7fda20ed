#!/usr/bin/python3
"""fakehub.py - a stand-in for the Hugging Face hub on 127.0.0.1, for tests.

    fakehub.py --repo ID=DIR [--repo ...] [--alias OLD=NEW] [--gated ID --token T]
               [--cdn-host NAME] [--prefix /PATH] [--faults FILE] [--log FILE]
               --port-file FILE

Serves HEAD and GET of /{ID}/resolve/{REVISION}/{FILE} as the hub does
(FILE may be in a subfolder of DIR, "0_BERT/config.json"):
REVISION is "main" or the repo's commit (the sha1 of its files' sha256s);
a small file answers 200 with ETag (its git blob id), X-Repo-Commit and
Content-Length; a *.safetensors file (an LFS file) answers 302 to
http://127.0.0.1:PORT/cdn/{sha256} (absolute, as the hub's CDN) with X-Linked-Etag (its sha256), X-Linked-Size, ETag and
X-Repo-Commit; /cdn/{sha256} serves the bytes, Range requests too (206).
An unknown repo is 404 RepoNotFound, an unknown revision 404
RevisionNotFound, a missing file 404 EntryNotFound; --alias answers the old
name with a relative 307 to the new one (a renamed repo); a --gated repo is
401 without "Authorization: Bearer T", 403 with another token (--token may
be given more than once: any of them; "secret" without).
--cdn-host names the CDN in the redirect by another name of this server
("localhost": another host to the client, whom the token must not follow);
--prefix serves everything under /PATH (a mirror: HF_ENDPOINT ends in it),
the renamed repo's relative 307 included.

Failures are chosen per request by FILE, read again on every request, one
rule a line: PATTERN ACTION [COUNT], PATTERN a substring of the path (or *),
COUNT how many matching requests it applies to (default: all); an ACTION
ending in @GET or @HEAD applies to that method only. ACTION:
  404 401 403 405   answer with that status (X-Error-Code as the hub's;
  500 501 503       STATUS:CODE another code, "401:RepoNotFound"); 503 with
                    Retry-After: 1
  429:S             429 with Retry-After: S (seconds), or with dateS an HTTP
                    date S seconds ahead ("429:date6")
  drop              send half of the body, then close the connection (GET)
  drop:N            send N bytes of the body, then close the connection (GET)
  badsum            flip a byte of the body (GET; a small file's too)
  trickle:RATE      send the body at RATE bytes a second (GET)
  stall             send half of the body, then nothing for 60 s (GET)
  norange           ignore a Range header (GET)
  hang              answer nothing for 60 s (any method)
  cdnhost:NAME      an LFS file's redirect to NAME in place of the CDN's host
  bigsize:N         an LFS file's X-Linked-Size N bytes more than its size
  absolute          a renamed repo's 307 to an absolute URL on this server
                    (http://127.0.0.1:PORT/NEW/...) in place of a relative one
  nolinked          an LFS file's redirect without X-Linked-Etag and
                    X-Linked-Size, its ETag the git id of its LFS pointer
                    (as the hub's own ETag there)
Every request is logged to --log as "METHOD PATH range=R auth=yes|no -> STATUS".
The port (bound to 0: a free one) is written to --port-file. Stdlib only.
"""
import argparse
import email.utils
import hashlib
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Repo:
    def __init__(self, repo_id, folder):
        self.id, self.files = repo_id, {}
        for top, dirs, names in os.walk(folder):  # subfolders' files as "0_BERT/config.json"
            dirs.sort()
            for n in sorted(names):
                path = os.path.join(top, n)
                name = os.path.relpath(path, folder).replace(os.sep, "/")
                data = open(path, "rb").read()
                self.files[name] = (data, hashlib.sha256(data).hexdigest())
        h = hashlib.sha1()
        for name, (_, sha) in sorted(self.files.items()):
            h.update(("%s %s\n" % (name, sha)).encode())
        self.commit = h.hexdigest()


class Faults:
    def __init__(self, path):
        self.path, self.used = path, {}

    def pick(self, path, kinds, method=None):
        """The first rule matching path (and method, for an action ending in
        @GET or @HEAD) whose action is one of kinds, counted."""
        if not self.path or not os.path.exists(self.path):
            return None
        with LOCK:
            for k, line in enumerate(open(self.path).read().splitlines()):
                parts = line.split()
                if len(parts) < 2 or parts[0].startswith("#"):
                    continue
                pat, action = parts[0], parts[1]
                action, _, only = action.partition("@")
                count = int(parts[2]) if len(parts) > 2 else None
                if action.split(":")[0] not in kinds or (pat != "*" and pat not in path):
                    continue
                if only and only != method:
                    continue
                key = (k, line)
                if count is not None and self.used.get(key, 0) >= count:
                    continue
                self.used[key] = self.used.get(key, 0) + 1
                return action
        return None


class Hub(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def log(self, status):
        a = self.server.args
        if a.log:
            with LOCK, open(a.log, "a") as f:
                f.write("%s %s range=%s auth=%s -> %s\n" % (
                    self.command, self.path, self.headers.get("Range", "-"),
                    "yes" if self.headers.get("Authorization") else "no", status))

    def answer(self, status, headers=(), body=b""):
        self.log(status)
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "GET":
            self.wfile.write(body)

    def error(self, status, code, commit=None):
        h = [("X-Error-Code", code)] + ([("X-Repo-Commit", commit)] if commit else [])
        self.answer(status, h, json.dumps({"error": code}).encode())

    def do_HEAD(self):
        self.route()

    def do_GET(self):
        self.route()

    def route(self):
        path = urllib.parse.urlparse(self.path).path
        prefix = self.server.args.prefix or ""
        if not path.startswith(prefix + "/"):
            return self.error(404, "RepoNotFound")
        path = path[len(prefix):]
        if self.server.faults.pick(path, ("hang",), self.command):
            time.sleep(60)
            self.close_connection = True
            return
        slow = self.server.faults.pick(path, ("429",), self.command)
        if slow:
            after = slow[4:]
            if after.startswith("date"):
                after = email.utils.formatdate(time.time() + int(after[4:]), usegmt=True)
            return self.answer(429, [("Retry-After", after), ("X-Error-Code", "TooManyRequests")])
        forced = self.server.faults.pick(path, ("404", "401", "403", "405", "500", "501", "503"),
                                         self.command)
        if forced:
            status, _, code = forced.partition(":")
            codes = {"404": "EntryNotFound", "401": "GatedRepo", "403": "GatedRepo",
                     "405": "MethodNotAllowed", "500": "Internal", "501": "NotImplemented",
                     "503": "Unavailable"}
            if status == "503":
                return self.answer(503, [("Retry-After", "1"), ("X-Error-Code", code or codes[status])])
            return self.error(int(status), code or codes[status])
        if path.startswith("/cdn/"):
            return self.cdn(path[5:])
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")]
        if "resolve" not in parts or parts.index("resolve") not in (1, 2):
            return self.error(404, "RepoNotFound")
        at = parts.index("resolve")
        repo_id, rest = "/".join(parts[:at]), parts[at + 1:]
        if len(rest) < 2:
            return self.error(404, "EntryNotFound")
        rev, name = rest[0], "/".join(rest[1:])
        a = self.server.args
        if repo_id in self.server.aliases:
            new = self.server.aliases[repo_id]
            loc = "%s/%s/resolve/%s/%s" % (prefix, new, urllib.parse.quote(rev, safe=""), name)
            if self.server.faults.pick(path, ("absolute",), self.command):
                loc = "http://%s:%d%s" % (self.server.server_address + (loc,))
            return self.answer(307, [("Location", loc)])
        repo = self.server.repos.get(repo_id)
        if repo is None:
            return self.error(404, "RepoNotFound")
        if repo_id in (a.gated or []):
            auth = self.headers.get("Authorization")
            if not auth:
                return self.error(401, "GatedRepo")
            if auth not in ["Bearer %s" % t for t in a.token or ["secret"]]:
                return self.error(403, "GatedRepo")
        if rev not in ("main", repo.commit):
            return self.error(404, "RevisionNotFound")
        if name not in repo.files:
            return self.error(404, "EntryNotFound", repo.commit)
        data, sha = repo.files[name]
        if name.endswith(".safetensors"):
            host = "http://%s:%d%s" % (a.cdn_host or self.server.server_address[0],
                                       self.server.server_address[1], prefix)
            other = self.server.faults.pick(path, ("cdnhost",), self.command)
            if other:
                host = "http://%s:%d%s" % (other[8:], self.server.server_address[1], prefix)
            h = [("Location", "%s/cdn/%s" % (host, sha)), ("X-Repo-Commit", repo.commit)]
            if self.server.faults.pick(path, ("nolinked",), self.command):
                pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n" % (
                    sha.encode(), len(data))
                return self.answer(302, h + [("ETag", '"%s"' % git_blob_id(pointer))])
            more = self.server.faults.pick(path, ("bigsize",), self.command)
            return self.answer(302, h + [("X-Linked-Etag", '"%s"' % sha),
                                         ("X-Linked-Size", str(len(data) + (int(more.split(":")[1]) if more else 0))),
                                         ("ETag", '"%s"' % git_blob_id(data))])
        body = data
        if self.command == "GET" and self.server.faults.pick(self.path, ("badsum",)):
            body = bytes([data[0] ^ 0xFF]) + data[1:]
        self.answer(200, [("ETag", '"%s"' % git_blob_id(data)), ("X-Repo-Commit", repo.commit)],
                    body)

    def cdn(self, sha):
        data = None
        for repo in self.server.repos.values():
            for d, s in repo.files.values():
                if s == sha:
                    data = d
        if data is None:
            return self.error(404, "EntryNotFound")
        start, status = 0, 200
        rng = self.headers.get("Range")
        if rng and self.command == "GET" and not self.server.faults.pick(self.path, ("norange",)):
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(data):
                return self.answer(416, [("Content-Range", "bytes */%d" % len(data))])
            status = 206
        body = data[start:]
        fault = self.server.faults.pick(self.path, ("drop", "badsum", "trickle", "stall")) \
            if self.command == "GET" else None
        if fault == "badsum":
            body = bytes([body[0] ^ 0xFF]) + body[1:]
        self.log(status)
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        self.end_headers()
        if self.command != "GET":
            return
        if fault and (fault.startswith("drop") or fault == "stall"):
            self.wfile.write(body[:int(fault[5:]) if fault.startswith("drop:") else len(body) // 2])
            self.wfile.flush()
            if fault == "stall":
                time.sleep(60)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault and fault.startswith("trickle"):
            rate = int(fault.split(":")[1]) if ":" in fault else 65536
            step = max(1, rate // 20)
            for k in range(0, len(body), step):
                self.wfile.write(body[k:k + step])
                self.wfile.flush()
                time.sleep(step / rate)
            return
        self.wfile.write(body)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", action="append", default=[])
    ap.add_argument("--alias", action="append", default=[])
    ap.add_argument("--gated", action="append")
    ap.add_argument("--token", action="append")
    ap.add_argument("--cdn-host")
    ap.add_argument("--prefix", default="")
    ap.add_argument("--faults")
    ap.add_argument("--log")
    ap.add_argument("--port-file", required=True)
    a = ap.parse_args(argv)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    srv.daemon_threads = True
    srv.args, srv.faults = a, Faults(a.faults)
    srv.repos = {}
    for r in a.repo:
        rid, folder = r.split("=", 1)
        srv.repos[rid] = Repo(rid, folder)
    srv.aliases = dict(x.split("=", 1) for x in a.alias)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
