// Prepared-data manifests: JSON form, reading and atomic writing (see data_manifest.h).
#include "core/data/data_manifest.h"

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

ManifestSource manifestSourceOf(const SourceFile& file) {
  return {
      file.path.string(), file.size_bytes, file.mtime_ns, sourceFingerprint(file), corpusFormatName(file.format), -1};
}

nlohmann::json sourcesToJson(const std::vector<ManifestSource>& sources) {
  nlohmann::json sources_json = nlohmann::json::array();
  for (const auto& s : sources) {
    sources_json.push_back({{"path", s.path},
                            {"size_bytes", s.size_bytes},
                            {"mtime_ns", s.mtime_ns},
                            {"fingerprint", s.fingerprint},
                            {"format", s.format},
                            {"documents", s.documents}});
  }
  return sources_json;
}

std::vector<ManifestSource> sourcesFromJson(const nlohmann::json& json) {
  std::vector<ManifestSource> sources;
  for (const auto& s : json) {
    sources.push_back({s.at("path").get<std::string>(), s.at("size_bytes").get<uint64_t>(),
                       s.at("mtime_ns").get<int64_t>(), s.at("fingerprint").get<std::string>(),
                       s.at("format").get<std::string>(), s.at("documents").get<int64_t>()});
  }
  return sources;
}

nlohmann::json DataManifest::toJson() const {
  const nlohmann::json sources_json = sourcesToJson(sources);
  nlohmann::json shards_json = nlohmann::json::array();
  for (const auto& s : shards) {
    shards_json.push_back({{"file", s.file},
                           {"documents", s.documents},
                           {"tokens", s.tokens},
                           {"bytes", s.bytes},
                           {"end_source", s.end_source},
                           {"end_source_documents", s.end_source_documents}});
  }
  return {{"version", kDataManifestVersion},
          {"key", key},
          {"complete", complete},
          {"sources", sources_json},
          {"json_field", json_field},
          {"newline", newline},
          {"tokenizer", {{"path", tokenizer_path}, {"hash", tokenizer_hash}, {"vocab_size", vocab_size}}},
          {"token_bytes", token_bytes},
          {"shard_tokens", shard_tokens},
          {"layout", "documents in source order, one entry per document (no separators)"},
          {"shards", shards_json},
          {"documents", documents},
          {"tokens", tokens},
          {"text_bytes", text_bytes},
          {"prepare_s", prepare_s}};
}

DataManifest DataManifest::fromJson(const nlohmann::json& json, const fs::path& source) {
  try {
    if (json.at("version").get<int>() != kDataManifestVersion) {
      throw MixerLabError(source.string() + " was written by another MixerLab version (manifest version " +
                              json.at("version").dump() + ")",
                          "delete its folder " + source.parent_path().string() + " to prepare the data again");
    }
    DataManifest m;
    m.key = json.at("key").get<std::string>();
    m.complete = json.at("complete").get<bool>();
    m.sources = sourcesFromJson(json.at("sources"));
    m.json_field = json.at("json_field").get<std::string>();
    m.newline = json.at("newline").get<std::string>();
    m.tokenizer_path = json.at("tokenizer").at("path").get<std::string>();
    m.tokenizer_hash = json.at("tokenizer").at("hash").get<std::string>();
    m.vocab_size = json.at("tokenizer").at("vocab_size").get<int64_t>();
    m.token_bytes = json.at("token_bytes").get<uint32_t>();
    m.shard_tokens = json.at("shard_tokens").get<uint64_t>();
    for (const auto& s : json.at("shards")) {
      m.shards.push_back({s.at("file").get<std::string>(), s.at("documents").get<uint64_t>(),
                          s.at("tokens").get<uint64_t>(), s.at("bytes").get<uint64_t>(),
                          s.at("end_source").get<size_t>(), s.at("end_source_documents").get<int64_t>()});
    }
    m.documents = json.at("documents").get<uint64_t>();
    m.tokens = json.at("tokens").get<uint64_t>();
    m.text_bytes = json.at("text_bytes").get<uint64_t>();
    m.prepare_s = json.at("prepare_s").get<double>();
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(source.string() + " is not a valid prepared-data manifest (" + std::string(e.what()) + ")",
                        "delete its folder " + source.parent_path().string() + " to prepare the data again");
  }
}

fs::path manifestFile(const fs::path& data_folder) { return data_folder / "manifest.json"; }
fs::path progressFile(const fs::path& data_folder) { return data_folder / "progress.json"; }

std::optional<DataManifest> readDataManifest(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) return std::nullopt;
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(readFile(file));
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(file.string() + " is not valid JSON (" + std::string(e.what()) + ")",
                        "delete its folder " + file.parent_path().string() + " to prepare the data again");
  }
  return DataManifest::fromJson(json, file);
}

void writeDataManifest(const DataManifest& manifest, const fs::path& file) {
  writeFileAtomic(file, manifest.toJson().dump(2) + "\n");
}

}  // namespace mixerlab
