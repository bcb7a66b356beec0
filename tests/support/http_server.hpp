// A tiny HTTP/1.1 server on 127.0.0.1 for download tests: it serves one
// body, honours Range requests (or not), and can misbehave on purpose (cut
// connections, 500s, a 404), counting the requests and the ranges asked for.
#pragma once
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/loopback_listener.hpp"

namespace wslgpu::testing {

class TinyHttpServer {
 public:
  struct Behaviour {
    std::string body;
    bool honour_range = true;
    int drop_first = 0;              // requests that get cut off after DROP_AFTER body bytes
    std::size_t drop_after = 0;
    int fail_first_with_500 = 0;     // requests answered with 500 first
    int status = 200;                // 404 to test a permanent error
  };

  explicit TinyHttpServer(Behaviour b) : behaviour_(std::move(b)) {
    listener_ = listen_on_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }

  ~TinyHttpServer() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }

  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  int requests() const { return requests_; }
  std::vector<std::string> ranges() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ranges_;
  }

 private:
  void serve() {
    // Bounded: at most 20 connections and 20 seconds, whatever the client does.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (int served = 0; served < 20 && !stop_ && std::chrono::steady_clock::now() < deadline;) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      ++served;
      handle(c);
      ::close(c);
    }
  }

  void send_all(int c, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t w = ::send(c, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (w <= 0) return;
      done += static_cast<std::size_t>(w);
    }
  }

  void handle(int c) {
    std::string request;
    char buf[4096];
    for (int i = 0; i < 100 && request.find("\r\n\r\n") == std::string::npos; ++i) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      ssize_t got = ::recv(c, buf, sizeof buf, 0);
      if (got <= 0) return;
      request.append(buf, static_cast<std::size_t>(got));
    }
    int n = ++requests_;
    std::size_t from = 0;
    std::string range;
    auto r = request.find("Range: bytes=");
    if (r != std::string::npos) {
      range = request.substr(r + 13, request.find("\r\n", r) - r - 13);
      from = std::stoul(range);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ranges_.push_back(range);
    }
    const std::string& body = behaviour_.body;
    if (behaviour_.status != 200) {
      send_all(c, "HTTP/1.1 " + std::to_string(behaviour_.status) + " Nope\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    if (n <= behaviour_.fail_first_with_500) {
      send_all(c, "HTTP/1.1 500 Busy\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    std::string payload;
    std::string head;
    if (!range.empty() && behaviour_.honour_range) {
      if (from >= body.size()) {
        send_all(c, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" + std::to_string(body.size()) +
                        "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
      }
      payload = body.substr(from);
      head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(from) + "-" +
             std::to_string(body.size() - 1) + "/" + std::to_string(body.size()) + "\r\n";
    } else {
      payload = body;
      head = "HTTP/1.1 200 OK\r\n";
    }
    head += "Content-Length: " + std::to_string(payload.size()) + "\r\nConnection: close\r\n\r\n";
    send_all(c, head);
    if (n <= behaviour_.drop_first) {
      send_all(c, payload.substr(0, behaviour_.drop_after));
      return;  // the connection closes mid-body
    }
    send_all(c, payload);
  }

  Behaviour behaviour_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  mutable std::mutex mutex_;
  std::vector<std::string> ranges_;
  std::thread thread_;
};

}  // namespace wslgpu::testing
