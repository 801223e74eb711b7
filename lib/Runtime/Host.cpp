//===- Host.cpp - an identifier of the host's processor -------------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum-c/Runtime.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

const char *einsumRuntimeHostId(void) {
  static const std::string id = [] {
    // FNV-1a over the first processor's model name and flags: code
    // compiled for one processor is not run on another.
    uint64_t hash = 0xcbf29ce484222325ull;
    auto mix = [&](const std::string &text) {
      for (unsigned char c : text) {
        hash ^= c;
        hash *= 0x100000001b3ull;
      }
    };
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    bool model = false, flags = false;
    while ((!model || !flags) && std::getline(cpuinfo, line)) {
      if (!model && line.rfind("model name", 0) == 0) {
        mix(line);
        model = true;
      } else if (!flags && line.rfind("flags", 0) == 0) {
        mix(line);
        flags = true;
      }
    }
    char text[17];
    std::snprintf(text, sizeof(text), "%016llx",
                  static_cast<unsigned long long>(hash));
    return std::string(text);
  }();
  return id.c_str();
}
