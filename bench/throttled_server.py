#!/usr/bin/env python3
"""bench/throttled_server.py DIR PORT RATE: serves the wheels of DIR on
127.0.0.1:PORT over plain HTTP at RATE bytes per second per connection, for
bench/wheel_downloads.sh (issue 54; docs/performance.md, "Wheel set
downloads").

Why a throttle per connection: a CDN such as download.pytorch.org's gives
each connection a share, not a link its full speed, and that is what makes
several downloads at once worth having. Unthrottled, a loopback server
would measure how fast two cores copy memory instead.

What it serves:
  /files/FILE            the file, with `Range: bytes=N-` (and N-M) answered
                         206 with Content-Range, as a resumed download asks
  /simple/               a PEP 503 index of the wheels' projects
  /simple/NAME/          a project's wheels, each linked as
                         /files/FILE#sha256=HEX, for `pip download -i`

The hashes come from DIR/SHA256SUMS (sha256sum's format) when it is there,
as the benchmark writes it while making the wheels; else the wheels are
hashed at start. The bytes go out by sendfile(2) in slices paced to the
rate, so that the server costs little CPU on a small machine."""
import hashlib
import html
import http.server
import os
import re
import sys
import time
import urllib.parse

SLICE = 256 * 1024  # bytes per sendfile call: small enough to pace smoothly at a few MB/s


def normalize(name):
    """A project name as PEP 503 writes it in URLs."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_hashes(directory):
    hashes = {}
    sums = os.path.join(directory, "SHA256SUMS")
    if os.path.exists(sums):
        with open(sums) as f:
            for line in f:
                digest, _, name = line.strip().partition("  ")
                if name:
                    hashes[name.lstrip("*")] = digest
    for name in os.listdir(directory):
        if name.endswith(".whl") and name not in hashes:
            h = hashlib.sha256()
            with open(os.path.join(directory, name), "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            hashes[name] = h.hexdigest()
    return hashes


def make_handler(directory, rate, hashes):
    projects = {}
    for name in sorted(hashes):
        projects.setdefault(normalize(name.split("-", 1)[0]), []).append(name)

    class Handler(http.server.BaseHTTPRequestHandler):
        # Keep-alive, as a CDN does: pip fetches its wheels over one connection.
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def send_page(self, title, links, head_only):
            body = "<!DOCTYPE html>\n<html><head><title>{0}</title></head><body>\n{1}</body></html>\n".format(
                html.escape(title), "".join('<a href="{0}">{1}</a><br/>\n'.format(html.escape(href), html.escape(text))
                                            for href, text in links)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head_only:
                self.wfile.write(body)

        def send_empty(self, code, extra=()):
            self.send_response(code)
            for key, value in extra:
                self.send_header(key, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def serve(self, head_only):
            path = urllib.parse.unquote(self.path.split("?", 1)[0].split("#", 1)[0])
            if path in ("/simple", "/simple/"):
                return self.send_page("Simple index", [("/simple/%s/" % p, p) for p in sorted(projects)], head_only)
            m = re.fullmatch(r"/simple/([^/]+)/?", path)
            if m:
                files = projects.get(normalize(m.group(1)))
                if files is None:
                    return self.send_empty(404)
                links = [("/files/%s#sha256=%s" % (urllib.parse.quote(f), hashes[f]), f) for f in files]
                return self.send_page("Links for " + m.group(1), links, head_only)
            m = re.fullmatch(r"/files/([^/]+)", path)
            if not m or m.group(1) not in hashes:
                return self.send_empty(404)
            self.send_file(os.path.join(directory, m.group(1)), head_only)

        def send_file(self, file_path, head_only):
            size = os.path.getsize(file_path)
            start, end = 0, size - 1
            wanted = self.headers.get("Range")
            m = re.fullmatch(r"bytes=(\d+)-(\d*)", wanted.strip()) if wanted else None
            if m:
                start = int(m.group(1))
                if m.group(2):
                    end = min(int(m.group(2)), size - 1)
                if start >= size or start > end:
                    return self.send_empty(416, [("Content-Range", "bytes */%d" % size)])
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
            else:
                self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(end - start + 1))
            self.end_headers()
            if head_only:
                return
            self.wfile.flush()
            with open(file_path, "rb") as f:
                offset, left = start, end - start + 1
                began = time.monotonic()
                sent = 0
                while left > 0:
                    n = self.connection.sendfile(f, offset, min(SLICE, left))
                    if n == 0:
                        break
                    offset, left, sent = offset + n, left - n, sent + n
                    # Paced from the start of the response, so that a late
                    # slice is made up for rather than lost.
                    ahead = began + sent / rate - time.monotonic()
                    if ahead > 0:
                        time.sleep(ahead)

        def do_GET(self):
            try:
                self.serve(head_only=False)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client stopped: a killed download

        def do_HEAD(self):
            self.serve(head_only=True)

    return Handler


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: throttled_server.py DIR PORT BYTES_PER_SECOND")
    directory, port, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    handler = make_handler(directory, rate, read_hashes(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
