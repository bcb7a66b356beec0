#!/usr/bin/env python3
"""bench/http_server.py DIR PORT [CERT KEY]: serves DIR on 127.0.0.1:PORT
for the download benchmark (docs/performance.md, e); over TLS with CERT and
KEY (PEM files) when given.

It hands each file to the socket with sendfile(2), as nginx or a CDN's edge
does, so that the server costs little CPU and the clients' own work decides
their throughput. `python3 -m http.server` copies every 64 KiB through user
space instead: on two cores it took most of one, and the figures measured
how the client shared the machine with it more than the client itself."""
import http.server
import ssl
import sys


class SendfileHandler(http.server.SimpleHTTPRequestHandler):
    def copyfile(self, source, outputfile):
        outputfile.flush()
        self.connection.sendfile(source)

    def log_message(self, format, *args):
        pass


def main():
    directory, port = sys.argv[1], int(sys.argv[2])

    def handler(*args, **kwargs):
        return SendfileHandler(*args, directory=directory, **kwargs)

    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        if len(sys.argv) > 4:
            # sendfile cannot encrypt; the TLS server is only used for small files.
            SendfileHandler.copyfile = http.server.SimpleHTTPRequestHandler.copyfile
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[3], sys.argv[4])
            server.socket = context.wrap_socket(server.socket, server_side=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
