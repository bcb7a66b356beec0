// A tiny HTTP/1.1 server on 127.0.0.1 that serves several paths, each
// with its own status, body, Content-Type and habits (a redirect, no
// Content-Length, HEAD refused, Range honoured or not), and records every
// request: its method, path, Accept and Range headers. For the tests of
// what is asked of a server without downloading (installer/net/
// url_query.hpp) and of a package index (installer/net/wheel_sizes.hpp).
// Like TinyHttpServer (http_server.hpp): an ephemeral port, one thread,
// every loop bounded, and it stops by itself. A request line with an
// absolute URL (what a client sends to a proxy) is matched by that URL.
#pragma once
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/loopback_listener.hpp"

namespace wslgpu::testing {

class TinyHttpSite {
 public:
  struct Page {
    int status = 200;
    std::string body{};
    std::string content_type{};  // "" sends no Content-Type
    bool send_length = true;     // false: no Content-Length, the body ends when the connection does
    std::string location{};      // sent as Location (with a 3xx status)
    bool refuse_head = false;    // HEAD is answered 405
    bool honour_range = false;   // "Range: bytes=A-B" is answered 206 with Content-Range
  };
  struct Request {
    std::string method{}, path{}, accept{}, range{};
  };

  explicit TinyHttpSite(std::map<std::string, Page> pages = {}) : pages_(std::move(pages)) {
    listener_ = listen_on_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }
  ~TinyHttpSite() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }
  TinyHttpSite(const TinyHttpSite&) = delete;
  TinyHttpSite& operator=(const TinyHttpSite&) = delete;

  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  // Serves PAGE at PATH from now on (pages that name the site's own URL are
  // set once the port is known).
  void set(const std::string& path, Page page) {
    std::lock_guard<std::mutex> lock(mutex_);
    pages_[path] = std::move(page);
  }
  std::vector<Request> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  // The paths requested, in order, as "METHOD PATH".
  std::vector<std::string> asked() const {
    std::vector<std::string> out;
    for (const auto& r : requests()) out.push_back(r.method + " " + r.path);
    return out;
  }

 private:
  void serve() {
    // Bounded: at most 300 connections and 60 seconds, whatever the client does.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int served = 0; served < 300 && !stop_ && std::chrono::steady_clock::now() < deadline;) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      ++served;
      handle(c);
      ::close(c);
    }
  }

  static void send_all(int c, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t w = ::send(c, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (w <= 0) return;
      done += static_cast<std::size_t>(w);
    }
  }

  static std::string header(const std::string& head, const std::string& name) {
    std::string lower;
    for (char ch : head) lower += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    auto at = lower.find("\r\n" + name + ":");
    if (at == std::string::npos) return "";
    at += name.size() + 3;
    while (at < head.size() && head[at] == ' ') ++at;
    return head.substr(at, head.find("\r\n", at) - at);
  }

  void handle(int c) {
    std::string head;
    char buf[4096];
    for (int i = 0; i < 100 && head.find("\r\n\r\n") == std::string::npos; ++i) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      ssize_t got = ::recv(c, buf, sizeof buf, 0);
      if (got <= 0) return;
      head.append(buf, static_cast<std::size_t>(got));
    }
    Request r;
    std::size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos) return;
    r.method = head.substr(0, sp1);
    r.path = head.substr(sp1 + 1, sp2 - sp1 - 1);
    r.accept = header(head, "accept");
    r.range = header(head, "range");
    Page page;
    bool found = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(r);
      auto it = pages_.find(r.path);
      if (it != pages_.end()) {
        page = it->second;
        found = true;
      }
    }
    if (!found) page.status = 404;
    bool head_only = r.method == "HEAD";
    if (head_only && page.refuse_head) {
      send_all(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    std::string body = page.status == 404 && !found ? "" : page.body;
    int status = page.status;
    std::string extra;
    if (status == 200 && page.honour_range && r.range.rfind("bytes=", 0) == 0 && !body.empty()) {
      std::size_t from = std::stoul(r.range.substr(6));
      std::size_t dash = r.range.find('-');
      std::size_t to = dash + 1 < r.range.size() ? std::stoul(r.range.substr(dash + 1)) : body.size() - 1;
      to = std::min(to, body.size() - 1);
      extra = "Content-Range: bytes " + std::to_string(from) + "-" + std::to_string(to) + "/" +
              std::to_string(body.size()) + "\r\n";
      body = body.substr(from, to - from + 1);
      status = 206;
    }
    std::string out = "HTTP/1.1 " + std::to_string(status) + " Whatever\r\n" + extra;
    if (!page.content_type.empty()) out += "Content-Type: " + page.content_type + "\r\n";
    if (!page.location.empty()) out += "Location: " + page.location + "\r\n";
    if (page.send_length) out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    out += "Connection: close\r\n\r\n";
    send_all(c, out);
    if (!head_only) send_all(c, body);
  }

  std::map<std::string, Page> pages_;
  std::vector<Request> requests_;
  mutable std::mutex mutex_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace wslgpu::testing
