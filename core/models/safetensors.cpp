// safetensors reader/writer (see safetensors.h).
#include "core/models/safetensors.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace {

struct DtypeName {
  at::ScalarType type;
  const char* name;
};
constexpr DtypeName kDtypes[] = {
    {at::kFloat, "F32"}, {at::kDouble, "F64"}, {at::kHalf, "F16"}, {at::kBFloat16, "BF16"}, {at::kLong, "I64"},
    {at::kInt, "I32"},   {at::kShort, "I16"},  {at::kChar, "I8"},  {at::kByte, "U8"},       {at::kBool, "BOOL"},
};

const char* dtypeName(at::ScalarType t) {
  for (const auto& d : kDtypes) {
    if (d.type == t) return d.name;
  }
  throw MixerLabError(std::string("safetensors: unsupported tensor dtype ") + c10::toString(t));
}

at::ScalarType dtypeFromName(const std::string& name, const std::string& source) {
  for (const auto& d : kDtypes) {
    if (name == d.name) return d.type;
  }
  throw MixerLabError(source + ": unsupported safetensors dtype \"" + name + "\"",
                      "convert the file to F32/F16/BF16 in PyTorch first");
}

std::string shapeText(at::IntArrayRef sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

constexpr const char* kDamagedFix = "the file is damaged or not a safetensors file; re-export it";

// One tensor of the header, checked against the file before any tensor is allocated: a crafted
// shape ([-1, 64], [2^40, 2^40]) must end in a MixerLabError, never in LibTorch's allocator.
struct TensorEntry {
  std::string name;
  at::ScalarType type = at::kFloat;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte range in the data section (after the header)
};

[[noreturn]] void failEntry(const std::string& source, const std::string& name, const std::string& problem) {
  throw MixerLabError(source + ": tensor \"" + name + "\" " + problem, kDamagedFix);
}

// A header value as shown in an error: a hostile header can hold megabytes in one shape.
std::string shortJson(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 80) text = text.substr(0, 80) + "...";
  return text;
}

// Why a JSON value is not an integer in [0, max], or empty when it is one (stored in `out`).
std::string integerProblem(const nlohmann::json& value, uint64_t max, uint64_t& out) {
  if (!value.is_number_integer()) return "not an integer";
  if (!value.is_number_unsigned() && value.get<int64_t>() < 0) return "which is negative";
  out = value.get<uint64_t>();
  return out > max ? "which is too large" : "";
}

TensorEntry checkedEntry(const std::string& name, const nlohmann::json& entry, uint64_t data_size,
                         const std::string& source) {
  if (!entry.is_object()) failEntry(source, name, "has a header entry that is not a JSON object");
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!entry.contains(key)) failEntry(source, name, std::string("has no \"") + key + "\"");
  }
  TensorEntry e;
  e.name = name;
  if (!entry.at("dtype").is_string()) failEntry(source, name, "has a dtype that is not a string");
  e.type = dtypeFromName(entry.at("dtype").get<std::string>(), source);
  const nlohmann::json& shape = entry.at("shape");
  if (!shape.is_array()) failEntry(source, name, "has a shape that is not an array: " + shortJson(shape));
  // Element count times element size, in 64 bits without overflow: the byte count the shape needs.
  uint64_t bytes = c10::elementSize(e.type);
  for (size_t i = 0; i < shape.size(); ++i) {
    uint64_t dim = 0;
    const std::string problem = integerProblem(shape[i], std::numeric_limits<int64_t>::max(), dim);
    if (!problem.empty()) {
      failEntry(source, name,
                "has dimension " + std::to_string(i) + " of shape " + shortJson(shape) + " = " + shortJson(shape[i]) +
                    ", " + problem);
    }
    if (__builtin_mul_overflow(bytes, dim, &bytes)) {
      failEntry(source, name, "has shape " + shortJson(shape) + ", more bytes than 64 bits can count");
    }
    e.shape.push_back(static_cast<int64_t>(dim));
  }
  const nlohmann::json& offsets = entry.at("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2) {
    failEntry(source, name, "has data_offsets " + shortJson(offsets) + ", not a [begin, end] pair");
  }
  for (const size_t i : {0, 1}) {
    const std::string problem = integerProblem(offsets[i], std::numeric_limits<uint64_t>::max(), i ? e.end : e.begin);
    if (!problem.empty()) {
      failEntry(source, name,
                "has data_offsets " + shortJson(offsets) + " whose " + (i ? "end" : "begin") + " is " +
                    shortJson(offsets[i]) + ", " + problem);
    }
  }
  if (e.end < e.begin) {
    failEntry(source, name, "has data_offsets " + shortJson(offsets) + " that end before they begin");
  }
  if (e.end > data_size) {
    failEntry(source, name,
              "has data_offsets " + shortJson(offsets) + " past the end of the data (" + std::to_string(data_size) +
                  " bytes): the file is truncated or the offsets are wrong");
  }
  if (e.end - e.begin != bytes) {
    failEntry(source, name,
              "has shape " + shortJson(shape) + " (" + std::to_string(bytes) + " bytes of " + entry.at("dtype").dump() +
                  ") but data_offsets " + shortJson(offsets) + " hold " + std::to_string(e.end - e.begin) + " bytes");
  }
  return e;
}

// Two tensors sharing bytes would silently alias each other's weights.
void requireDisjointRanges(std::vector<TensorEntry> entries, const std::string& source) {
  std::sort(entries.begin(), entries.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const TensorEntry* furthest = nullptr;  // of the tensors before e, the one whose bytes end last
  for (const TensorEntry& e : entries) {
    if (e.begin == e.end) continue;  // empty tensors own no bytes
    if (furthest != nullptr && e.begin < furthest->end) {
      failEntry(source, e.name,
                "overlaps tensor \"" + furthest->name + "\" in the data (bytes " + std::to_string(e.begin) + "-" +
                    std::to_string(e.end) + " and " + std::to_string(furthest->begin) + "-" +
                    std::to_string(furthest->end) + ")");
    }
    if (furthest == nullptr || e.end > furthest->end) furthest = &e;
  }
}

}  // namespace

void saveSafetensors(const std::filesystem::path& path, const std::map<std::string, at::Tensor>& tensors,
                     const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  std::vector<at::Tensor> ordered;
  size_t offset = 0;
  for (const auto& [name, tensor] : tensors) {  // std::map: sorted names, deterministic files
    auto cpu = tensor.detach().to(at::kCPU).contiguous();
    const size_t bytes = cpu.numel() * cpu.element_size();
    header[name] = {{"dtype", dtypeName(cpu.scalar_type())},
                    {"shape", cpu.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    ordered.push_back(cpu);
  }
  std::string data(offset, '\0');
  char* at = data.data();
  for (const auto& t : ordered) {
    const size_t bytes = t.numel() * t.element_size();
    if (bytes) std::memcpy(at, t.data_ptr(), bytes);
    at += bytes;
  }
  // A checksum of the tensor bytes, so a damaged file fails to load instead of loading wrong weights.
  std::map<std::string, std::string> meta = metadata;
  meta[kSafetensorsChecksumKey] = hashHex(data);
  header["__metadata__"] = meta;
  std::string header_text = header.dump();
  header_text.append((8 - header_text.size() % 8) % 8, ' ');  // keep the data 8-byte aligned
  std::string blob(8 + header_text.size(), '\0');
  const uint64_t header_size = header_text.size();
  for (int i = 0; i < 8; ++i) blob[i] = static_cast<char>((header_size >> (8 * i)) & 0xff);
  std::memcpy(blob.data() + 8, header_text.data(), header_text.size());
  blob += data;
  writeFileAtomic(path, blob);
}

SafetensorsFile loadSafetensors(const std::filesystem::path& path) {
  return parseSafetensors(readFile(path), path.string());
}

SafetensorsFile parseSafetensors(const std::string& blob, const std::string& source) {
  const std::string fix = kDamagedFix;
  if (blob.size() < 8) throw MixerLabError(source + ": too short to be a safetensors file", fix);
  uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= static_cast<uint64_t>(static_cast<unsigned char>(blob[i])) << (8 * i);
  if (header_size > blob.size() - 8) throw MixerLabError(source + ": header length exceeds the file size", fix);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(blob.substr(8, header_size));
  } catch (const std::exception& e) {
    throw MixerLabError(source + ": malformed safetensors header: " + e.what(), fix);
  }
  const size_t data_start = 8 + header_size;
  const size_t data_size = blob.size() - data_start;
  if (!header.is_object()) throw MixerLabError(source + ": the safetensors header is not a JSON object", fix);
  const nlohmann::json* metadata = header.contains("__metadata__") ? &header["__metadata__"] : nullptr;
  if (metadata != nullptr && metadata->is_object() && metadata->contains(kSafetensorsChecksumKey)) {
    // Found by fuzz/safetensors_fuzzer: a checksum that is not a string threw nlohmann's type_error.
    if (!metadata->at(kSafetensorsChecksumKey).is_string()) {
      throw MixerLabError(source + ": the header's checksum is not a string", fix);
    }
    const std::string stored = metadata->at(kSafetensorsChecksumKey).get<std::string>();
    const std::string computed = hashHex(std::string_view(blob).substr(data_start));
    if (stored != computed) {
      throw MixerLabError(
          source + ": the tensor data does not match its checksum (stored " + stored + ", computed " + computed +
              "): the file is damaged",
          "use an earlier checkpoint (train --resume falls back to the newest intact one) or re-export it");
    }
  }
  SafetensorsFile file;
  std::vector<TensorEntry> entries;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      for (const auto& [k, v] : entry.items()) file.metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
      continue;
    }
    entries.push_back(checkedEntry(name, entry, data_size, source));
  }
  requireDisjointRanges(entries, source);
  // Only now, with every shape and byte range checked against the file, are tensors allocated.
  for (const TensorEntry& e : entries) {
    auto tensor = at::empty(e.shape, at::TensorOptions().dtype(e.type));
    const size_t bytes = e.end - e.begin;
    if (bytes) std::memcpy(tensor.data_ptr(), blob.data() + data_start + e.begin, bytes);
    file.tensors[e.name] = tensor;
  }
  return file;
}

void loadIntoModule(torch::nn::Module& module, const SafetensorsFile& file, const std::string& source_name,
                    bool allow_extra, const std::function<std::string(const std::string&)>& file_name_of) {
  torch::NoGradGuard no_grad;
  std::set<std::string> used;
  auto copy_into = [&](const std::string& name, at::Tensor& target) {
    auto it = file.tensors.find(name);
    const std::string shown = file_name_of ? file_name_of(name) : name;
    if (it == file.tensors.end()) {
      throw MixerLabError(source_name + ": missing tensor \"" + shown + "\"",
                          "the checkpoint was saved for a different architecture or config");
    }
    if (it->second.sizes() != target.sizes()) {
      throw MixerLabError(source_name + ": tensor \"" + shown + "\" has shape " + shapeText(it->second.sizes()) +
                              " but the model expects " + shapeText(target.sizes()),
                          "use the config the checkpoint was trained with (d_model, context_length, vocab_size...)");
    }
    target.copy_(it->second.to(target.options()));
    used.insert(name);
  };
  for (auto& item : module.named_parameters(true)) copy_into(item.key(), item.value());
  for (auto& item : module.named_buffers(true)) copy_into(item.key(), item.value());
  if (!allow_extra) {
    for (const auto& [name, tensor] : file.tensors) {
      if (!used.count(name)) {
        throw MixerLabError(source_name + ": unexpected tensor \"" + name + "\" that the model does not have",
                            "the checkpoint was saved for a different architecture or config");
      }
    }
  }
}

}  // namespace mixerlab
