// A tiny HTTPS server on 127.0.0.1 for download tests that need TLS: it
// answers every request with a redirect to one URL, with a certificate for
// 127.0.0.1 it makes itself (self-signed, an hour long) and writes to a PEM
// file a client can trust (ca_file()). Like TinyHttpServer (http_server.hpp)
// it takes an ephemeral port, serves on one thread, bounds every loop and
// stops by itself. OpenSSL, which libcurl uses too; only the unit tests link it.
#pragma once
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "support/fakes.hpp"
#include "support/loopback_listener.hpp"

namespace wslgpu::testing {

class TinyHttpsRedirectServer {
 public:
  // Answers each request with STATUS (a 3xx) and "Location: LOCATION".
  explicit TinyHttpsRedirectServer(std::string location, int status = 302)
      : location_(std::move(location)), status_(status) {
    make_certificate();
    listener_ = listen_on_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }

  ~TinyHttpsRedirectServer() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }

  std::string url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(port_) + path; }
  // The server's certificate as PEM: the one authority a client should trust.
  const std::string& ca_file() const { return ca_file_; }
  // Requests answered (after a TLS handshake that worked).
  int requests() const { return requests_; }

 private:
  struct Free {
    void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
    void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
    void operator()(X509* p) const { X509_free(p); }
  };

  void make_certificate() {
    std::unique_ptr<EVP_PKEY, Free> key(EVP_EC_gen("P-256"));
    REQUIRE(key);
    std::unique_ptr<X509, Free> cert(X509_new());
    REQUIRE(cert);
    X509_set_version(cert.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
    X509_set_pubkey(cert.get(), key.get());
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1,
                               0);
    X509_set_issuer_name(cert.get(), name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert.get(), cert.get(), nullptr, nullptr, 0);
    // libcurl checks the address against subjectAltName, not the CN.
    for (auto [nid, value] :
         {std::pair{NID_subject_alt_name, "IP:127.0.0.1"}, std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
      REQUIRE(ext);
      X509_add_ext(cert.get(), ext, -1);
      X509_EXTENSION_free(ext);
    }
    REQUIRE(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0);

    ca_file_ = dir_.path() + "/ca.pem";
    std::FILE* f = std::fopen(ca_file_.c_str(), "w");
    REQUIRE(f);
    PEM_write_X509(f, cert.get());
    std::fclose(f);

    ctx_.reset(SSL_CTX_new(TLS_server_method()));
    REQUIRE(ctx_);
    REQUIRE(SSL_CTX_use_certificate(ctx_.get(), cert.get()) == 1);
    REQUIRE(SSL_CTX_use_PrivateKey(ctx_.get(), key.get()) == 1);
  }

  void serve() {
    // Bounded: at most 20 connections and 20 seconds, whatever the client does.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (int served = 0; served < 20 && !stop_ && std::chrono::steady_clock::now() < deadline;) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      ++served;
      // A client that connects and says nothing may not hang the server.
      timeval timeout{5, 0};
      ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
      ::setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
      SSL* ssl = SSL_new(ctx_.get());
      SSL_set_fd(ssl, c);
      if (SSL_accept(ssl) == 1) handle(ssl);
      SSL_free(ssl);
      ::close(c);
    }
  }

  void handle(SSL* ssl) {
    std::string request;
    char buf[4096];
    for (int i = 0; i < 100 && request.find("\r\n\r\n") == std::string::npos; ++i) {
      int got = SSL_read(ssl, buf, sizeof buf);
      if (got <= 0) return;
      request.append(buf, static_cast<std::size_t>(got));
    }
    ++requests_;
    std::string answer = "HTTP/1.1 " + std::to_string(status_) + " Moved\r\nLocation: " + location_ +
                         "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    SSL_write(ssl, answer.data(), static_cast<int>(answer.size()));
    SSL_shutdown(ssl);
  }

  std::string location_;
  int status_;
  TempDir dir_;
  std::string ca_file_;
  std::unique_ptr<SSL_CTX, Free> ctx_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace wslgpu::testing
