// 64-bit FNV-1a content hashing (see hashing.h).
#include "core/util/hashing.h"

#include <cstdio>
#include <fstream>
#include <vector>

#include "core/util/error.h"

namespace mixerlab {

void Fnv1aHasher::update(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint64_t h = state_;
  for (size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= 1099511628211ull;
  }
  state_ = h;
}

void Fnv1aHasher::update(std::string_view bytes) { update(bytes.data(), bytes.size()); }

std::string Fnv1aHasher::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(state_));
  return buf;
}

std::string hashHex(std::string_view bytes) {
  Fnv1aHasher h;
  h.update(bytes);
  return h.hex();
}

std::string hashFileHex(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MixerLabError("cannot open " + path.string() + " to hash it", "check that the file exists");
  Fnv1aHasher h;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.update(buf.data(), static_cast<size_t>(in.gcount()));
  }
  return h.hex();
}

}  // namespace mixerlab
