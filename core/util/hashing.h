// Stable content hashes (64-bit FNV-1a) used as cache keys for corpora, tokenizers and token caches.
// Stable across runs and machines, unlike std::hash.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace mixerlab {

class Fnv1aHasher {
 public:
  void update(std::string_view bytes);
  void update(const void* data, size_t size);
  uint64_t digest() const { return state_; }
  std::string hex() const;

 private:
  uint64_t state_ = 14695981039346656037ull;
};

std::string hashHex(std::string_view bytes);
// Hash of a file's bytes, read in chunks; throws MixerLabError if it cannot be read.
std::string hashFileHex(const std::filesystem::path& path);

}  // namespace mixerlab
