// Finding a doctor finding by id, for the doctor's unit tests.
#pragma once
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "installer/doctor/doctor.hpp"

namespace wslgpu::testing {

inline const Finding* lookup(const std::vector<Finding>& findings, const std::string& id) {
  for (const auto& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

// The finding ID, which must be there.
inline Finding get(const std::vector<Finding>& findings, const std::string& id) {
  const Finding* f = lookup(findings, id);
  INFO("finding " << id);
  REQUIRE(f != nullptr);
  return *f;
}

}  // namespace wslgpu::testing
