// The manifest of a prepared-data folder: which sources (with size, mtime and a sampled fingerprint)
// were tokenized with which tokenizer into which shards. manifest.json is published (atomically) only
// when every shard is written; while preparation runs, progress.json holds the same record for the
// shards finished so far, with the source position each one ends at, so a killed preparation resumes
// after its last finished shard.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/corpus_sources.h"

namespace mixerlab {

constexpr int kDataManifestVersion = 1;

struct ManifestSource {
  std::string path;
  uint64_t size_bytes = 0;
  int64_t mtime_ns = 0;
  std::string fingerprint;  // sourceFingerprint
  std::string format;       // corpusFormatName, resolved
  int64_t documents = -1;   // -1 until the source is read to its end
};

struct ManifestShard {
  std::string file;  // name inside the folder
  uint64_t documents = 0, tokens = 0, bytes = 0;
  // Where the shard's last document came from: the source index and the documents of that source
  // read up to and including it. Preparation resumes there.
  size_t end_source = 0;
  int64_t end_source_documents = 0;
};

struct DataManifest {
  std::string key;  // the folder's name is "data-<key>"
  std::vector<ManifestSource> sources;
  std::string json_field = "text";
  std::string newline = "token";
  std::string tokenizer_path, tokenizer_hash;
  int64_t vocab_size = 0;
  uint32_t token_bytes = 2;
  uint64_t shard_tokens = 0;  // a shard is closed after the document that reaches this many tokens
  std::vector<ManifestShard> shards;
  uint64_t documents = 0, tokens = 0, text_bytes = 0;
  double prepare_s = 0;  // wall-clock seconds of preparation (all sessions)
  bool complete = false;

  nlohmann::json toJson() const;
  // Throws MixerLabError naming `source` when a field is missing or has the wrong type.
  static DataManifest fromJson(const nlohmann::json& json, const std::filesystem::path& source);
};

// The record of a source as found now (size, mtime, fingerprint, format; documents not yet counted).
ManifestSource manifestSourceOf(const SourceFile& file);

// The sources' records as JSON (manifests and a trained tokenizer's sidecar share them).
nlohmann::json sourcesToJson(const std::vector<ManifestSource>& sources);
std::vector<ManifestSource> sourcesFromJson(const nlohmann::json& json);  // throws nlohmann::json::exception

std::filesystem::path manifestFile(const std::filesystem::path& data_folder);  // <folder>/manifest.json
std::filesystem::path progressFile(const std::filesystem::path& data_folder);  // <folder>/progress.json

// nullopt when the file does not exist; a damaged file throws MixerLabError naming it and the fix.
std::optional<DataManifest> readDataManifest(const std::filesystem::path& file);
// Writes atomically (temporary name, fsync, rename).
void writeDataManifest(const DataManifest& manifest, const std::filesystem::path& file);

}  // namespace mixerlab
