// safetensors reader/writer (see safetensors.h).
#include "core/models/safetensors.h"

#include <cstring>
#include <set>

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
  const std::string fix = "the file is damaged or not a safetensors file; re-export it";
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
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      for (const auto& [k, v] : entry.items()) file.metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
      continue;
    }
    try {
      const auto type = dtypeFromName(entry.at("dtype").get<std::string>(), source);
      const auto shape = entry.at("shape").get<std::vector<int64_t>>();
      const auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
      auto tensor = at::empty(shape, at::TensorOptions().dtype(type));
      const size_t bytes = tensor.numel() * tensor.element_size();
      if (offsets.size() != 2 || offsets[1] < offsets[0] || offsets[1] - offsets[0] != bytes ||
          offsets[1] > data_size) {
        throw MixerLabError(source + ": tensor \"" + name + "\" has data offsets that do not match its shape " +
                                shapeText(shape) + " or run past the end of the file (truncated?)",
                            fix);
      }
      if (bytes) std::memcpy(tensor.data_ptr(), blob.data() + data_start + offsets[0], bytes);
      file.tensors[name] = tensor;
    } catch (const nlohmann::json::exception& e) {
      throw MixerLabError(source + ": malformed header entry for \"" + name + "\": " + e.what(), fix);
    }
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
