// Reading and writing the safetensors format (8-byte little-endian header length, a JSON header
// mapping names to dtype/shape/byte offsets, then raw little-endian data), so weights move between
// MixerLab and the PyTorch reference code unchanged.
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include <ATen/ATen.h>

namespace torch::nn {
class Module;
}

namespace mixerlab {

struct SafetensorsFile {
  std::map<std::string, at::Tensor> tensors;  // CPU, contiguous
  std::map<std::string, std::string> metadata;
};

// Metadata key of the FNV-1a checksum of the tensor bytes that saveSafetensors records and
// loadSafetensors verifies when present (files from elsewhere have none and load unchecked).
inline constexpr const char* kSafetensorsChecksumKey = "mixerlab_data_fnv1a64";

// Writes atomically (temporary name + rename). Tensors are moved to CPU and made contiguous.

void saveSafetensors(const std::filesystem::path& path, const std::map<std::string, at::Tensor>& tensors,
                     const std::map<std::string, std::string>& metadata = {});

// Throws MixerLabError naming the file for a missing file, a truncated file or a malformed header.
// Every header entry is checked before any tensor is allocated, the error naming the tensor: each
// dimension a non-negative integer, the shape's byte count (computed without overflow) equal to its
// data_offsets range, the range inside the file and not overlapping another tensor's.
SafetensorsFile loadSafetensors(const std::filesystem::path& path);
// The same from the file's bytes (`source` names it in errors); the fuzz target's entry point.
SafetensorsFile parseSafetensors(const std::string& bytes, const std::string& source);

// Copies tensors into a module's parameters and buffers by name. Every parameter must be present
// with the same shape (error names the tensor and both shapes); extra tensors in the file are an
// error unless allow_extra.
// file_name_of (optional) gives the name a module path has in the file, for error messages.
void loadIntoModule(torch::nn::Module& module, const SafetensorsFile& file, const std::string& source_name,
                    bool allow_extra = false,
                    const std::function<std::string(const std::string&)>& file_name_of = nullptr);

}  // namespace mixerlab
