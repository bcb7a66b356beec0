#include "installer/system/units.hpp"

#include <cstdio>

namespace wslgpu {

std::string human_size(std::uint64_t bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else if (v < 9.95)
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  else
    std::snprintf(buf, sizeof buf, "%.0f %s", v, kUnits[u]);
  return buf;
}

std::string human_duration(std::uint64_t s) {
  char buf[48];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%llu s", static_cast<unsigned long long>(s));
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%llu min %02llu s", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%llu h %02llu min", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s % 3600 / 60));
  return buf;
}

}  // namespace wslgpu
