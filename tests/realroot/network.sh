# tests/realroot/network.sh: the network of a root's scenario (sourced by
# lib.sh): a loopback HTTPS server standing for a vendor's (serve_https), a
# CONNECT proxy in front of it (serve_proxy), and no network at all
# (network_off). Each runs inside the root's own network namespace, so
# nothing here reaches the machine's network.

# serve_https DIR: serves DIR over HTTPS on 127.0.0.1 inside this root's
# network namespace, and sets HTTPS_URL to its address (https://127.0.0.1:PORT,
# no trailing slash). For downloads a profile makes (the librocdxg .deb):
# the tool fetches them through libcurl, as from a vendor's server. The
# namespace's loopback is brought up (it has nothing else); the certificate
# is the run's (testrepo.sh, _testrepo_tls), whose CA is added to the CA
# bundle libcurl reads (/etc/ssl/certs/ca-certificates.crt, bound over in
# this mount namespace only, and written into the root's own when it has
# one, for pip inside the root). The server (python3's http.server) ends with the
# namespace. Call it from a with_root function, before the snapshot the
# test compares with (the root's bundle is part of every later snapshot).
# REALROOT_HTTPS_SLOW=GLOB (with REALROOT_HTTPS_RATE=BYTES_PER_SECOND,
# default 512) makes it a vendor's server seen over a slow line, for tests of
# an interrupted download: the files whose name matches GLOB (fnmatch) are
# sent at that rate, every file answers a Range request (206, or 416 past
# its end) as most web servers do, and each GET's Range header and bytes
# sent are logged ("served PATH range=... status=... sent=N [cut]") in
# $REALROOT_SCENARIO_TMP/https.log. Unset, the server is http.server's own.
# REALROOT_HTTPS_ONLY_FROM=ADDRESS answers 403 to a client from any other
# address (serve_proxy's tunnels come from 127.0.0.5).
serve_https() {
  local dir=${1:?serve_https needs a folder} port=8443 bundle=$REALROOT_SCENARIO_TMP/ca-bundle.crt i
  ip link set lo up || fail "serve_https: cannot bring up the loopback of the root's network namespace"
  { cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null; cat "$TESTREPO_TLS_DIR/ca.pem"; } >"$bundle"
  [[ -e /etc/ssl/certs/ca-certificates.crt ]] || fail "serve_https: the host has no /etc/ssl/certs/ca-certificates.crt to add the test CA to (HOST-PACKAGES: ca-certificates)"
  mount --bind "$bundle" /etc/ssl/certs/ca-certificates.crt
  # And the root's own, which pip in a venv of the root reads (Debian's pip
  # uses the system bundle), when the root has one: written into the root
  # rather than bound over, so that snapshots keep hashing only the upper
  # layer (a bind would make them hash every file).
  if [[ -n ${ROOT:-} && -f $ROOT/etc/ssl/certs/ca-certificates.crt && ! -L $ROOT/etc/ssl/certs/ca-certificates.crt ]]; then
    cat "$TESTREPO_TLS_DIR/ca.pem" >>"$ROOT/etc/ssl/certs/ca-certificates.crt"
  fi
  /usr/bin/python3 - "$dir" "$port" "$TESTREPO_TLS_DIR" "${REALROOT_HTTPS_SLOW:-}" "${REALROOT_HTTPS_RATE:-512}" \
    "${REALROOT_HTTPS_ONLY_FROM:-}" >"$REALROOT_SCENARIO_TMP/https.log" 2>&1 <<'EOF' &
import fnmatch, functools, http.server, os, re, ssl, sys, time
folder, port, tls, slow, rate, only_from = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]


class Handler(http.server.SimpleHTTPRequestHandler):
    """With ONLY_FROM: a request from any other address gets 403 (serve_proxy)."""

    def parse_request(self):
        if not super().parse_request():
            return False
        if only_from and self.client_address[0] != only_from:
            self.send_error(403, "reached directly, not through the proxy")
            return False
        return True


class SlowRangeHandler(Handler):
    """Range requests (one range) for every file, and the SLOW files at RATE."""

    def do_GET(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            return super().do_GET()
        size = os.path.getsize(path)
        want = self.headers.get("Range")
        start, end, status = 0, size - 1, 200
        if want:
            m = re.fullmatch(r"bytes=(\d+)-(\d*)", want.strip())
            if not m:
                self.send_error(400, "unsupported Range")
                return
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                self.log_message("served %s range=%s status=416 sent=0", self.path, want)
                return
            status = 206
        self.send_response(status)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        throttled = fnmatch.fnmatch(os.path.basename(path), slow)
        chunk = max(1, rate // 8) if throttled else 1 << 20
        sent, cut = 0, ""
        with open(path, "rb") as f:
            f.seek(start)
            try:
                while sent < end - start + 1:
                    data = f.read(min(chunk, end - start + 1 - sent))
                    if not data:
                        break
                    self.wfile.write(data)
                    self.wfile.flush()
                    sent += len(data)
                    if throttled:
                        time.sleep(len(data) / rate)
            except (OSError, ssl.SSLError):
                cut = " cut"
        self.log_message("served %s range=%s status=%d sent=%d%s", self.path, want or "none", status, sent, cut)


handler_class = SlowRangeHandler if slow else Handler
handler = functools.partial(handler_class, directory=folder)
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(tls + "/server.pem", tls + "/server.key")
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
EOF
  for ((i = 0; i < 100; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  ((i < 100)) || fail "serve_https: the server did not listen on 127.0.0.1:$port: $(cat "$REALROOT_SCENARIO_TMP/https.log")"
  HTTPS_URL=https://127.0.0.1:$port
}

# serve_proxy: an HTTP proxy on the root's loopback (CONNECT only, what a
# client sends for an https:// URL) at $PROXY_URL, which opens each tunnel
# from 127.0.0.5 and logs a "CONNECT HOST:PORT" line per tunnel to
# $PROXY_LOG. With REALROOT_HTTPS_ONLY_FROM=127.0.0.5 set for serve_https,
# the server answers 403 to whatever reaches it directly: a program that
# was not given the proxy variables fails instead of passing.
serve_proxy() {
  local port=3128 i
  PROXY_LOG=$REALROOT_SCENARIO_TMP/proxy.log
  ip link set lo up || fail "serve_proxy: cannot bring up the loopback of the root's network namespace"
  /usr/bin/python3 - "$port" >"$PROXY_LOG" 2>&1 <<'EOF' &
import select, socket, socketserver, sys


class Tunnel(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline(65536).decode("latin-1").strip()
        while self.rfile.readline(65536) not in (b"\r\n", b"\n", b""):
            pass
        words = line.split()
        if len(words) != 3 or words[0] != "CONNECT":
            self.wfile.write(b"HTTP/1.1 405 only CONNECT\r\nContent-Length: 0\r\n\r\n")
            print("refused", line, flush=True)
            return
        host, _, port = words[1].rpartition(":")
        try:
            upstream = socket.create_connection((host, int(port)), timeout=30, source_address=("127.0.0.5", 0))
        except OSError as e:
            self.wfile.write(b"HTTP/1.1 502 cannot connect\r\nContent-Length: 0\r\n\r\n")
            print("failed", words[1], e, flush=True)
            return
        print("CONNECT", words[1], flush=True)
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        ends = [self.connection, upstream]
        while True:
            ready, _, _ = select.select(ends, [], [], 60)
            if not ready:
                break
            for s in ready:
                data = s.recv(1 << 16)
                if not data:
                    upstream.close()
                    return
                (upstream if s is self.connection else self.connection).sendall(data)


socketserver.ThreadingTCPServer.allow_reuse_address = True
socketserver.ThreadingTCPServer.daemon_threads = True
socketserver.ThreadingTCPServer(("127.0.0.1", int(sys.argv[1])), Tunnel).serve_forever()
EOF
  for ((i = 0; i < 100; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  ((i < 100)) || fail "serve_proxy: the proxy did not listen on 127.0.0.1:$port: $(cat "$PROXY_LOG")"
  PROXY_URL=http://127.0.0.1:$port
}

# network_off: takes the root's network namespace down to nothing (its
# loopback down, so that not even serve_https answers), and checks that a
# connection now fails. For "converged, with no network".
network_off() {
  ip link set lo down || fail "network_off: cannot bring the loopback down"
  # With the loopback down a connect may hang until TCP gives up (about
  # 130 s), not fail at once: a connection within 2 s is the failure.
  if timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/8443' 2>/dev/null; then fail "network_off: 127.0.0.1:8443 still answers"; fi
  return 0
}
