// Listing and pruning prepared data (see prepared_data_folders.h).
#include "core/data/prepared_data_folders.h"

#include <algorithm>

#include "core/data/corpus_sources.h"
#include "core/data/tokenizer_sample.h"
#include "core/util/atomic_file.h"
#include "core/util/enum_names.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
constexpr EnumName<PreparedDataState> kPreparedDataStateNames[] = {{PreparedDataState::Current, "current"},
                                                                   {PreparedDataState::Unfinished, "unfinished"},
                                                                   {PreparedDataState::Stale, "stale"},
                                                                   {PreparedDataState::OldFormat, "old format"}};

uint64_t bytesOnDisk(const fs::path& path) {
  std::error_code ec;
  if (fs::is_symlink(path, ec)) return 0;
  if (!fs::is_directory(path, ec)) return fs::file_size(path, ec);
  uint64_t bytes = 0;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) bytes += it->file_size(ec);
  }
  return bytes;
}

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }
}  // namespace

std::string preparedDataStateName(PreparedDataState state) {
  return enumName(kPreparedDataStateNames, state, "current");
}

std::string changedSourceReason(const std::vector<ManifestSource>& sources) {
  for (const ManifestSource& source : sources) {
    std::error_code ec;
    if (!fs::is_regular_file(source.path, ec)) return "corpus file " + source.path + " is gone";
    SourceFile file;
    try {  // the file as it is now (the format is stored resolved: nothing is read to detect it)
      file = describeSourceFile(source.path, parseCorpusFormat(source.format));
    } catch (const MixerLabError&) {
      return "corpus file " + source.path + " cannot be read";
    }
    if (file.size_bytes != source.size_bytes) {
      return "corpus file " + source.path + " changed (" + std::to_string(source.size_bytes) + " -> " +
             std::to_string(file.size_bytes) + " bytes)";
    }
    if (file.mtime_ns != source.mtime_ns || sourceFingerprint(file) != source.fingerprint) {
      return "corpus file " + source.path + " changed (modified since it was prepared)";
    }
  }
  return "";
}

std::string tokenizerStaleReason(const fs::path& model) {
  const fs::path sidecar = tokenizerSourcesFile(model);
  std::error_code ec;
  if (!fs::is_regular_file(sidecar, ec)) return "";
  try {
    const std::string changed =
        changedSourceReason(sourcesFromJson(nlohmann::json::parse(readFile(sidecar)).at("sources")));
    return changed.empty() ? "" : "the tokenizer's " + changed;
  } catch (const nlohmann::json::exception& e) {
    return sidecar.string() + " is damaged (" + std::string(e.what()) + ")";
  }
}

std::string staleReason(const DataManifest& manifest) {
  if (std::string changed = changedSourceReason(manifest.sources); !changed.empty()) return changed;
  std::error_code ec;
  if (!fs::is_regular_file(manifest.tokenizer_path, ec)) return "tokenizer " + manifest.tokenizer_path + " is gone";
  if (hashFileHex(manifest.tokenizer_path) != manifest.tokenizer_hash) {
    return "tokenizer " + manifest.tokenizer_path + " changed";
  }
  return tokenizerStaleReason(manifest.tokenizer_path);
}

std::vector<PreparedDataEntry> listPreparedData(const fs::path& cache_dir) {
  std::vector<PreparedDataEntry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    PreparedDataEntry entry;
    entry.path = it->path();
    if (name.find(".tmp-") != std::string::npos) continue;
    if (startsWith(name, "tokenizer-") && it->path().extension() == ".model") {
      std::error_code sidecar_error;
      if (!fs::exists(tokenizerSourcesFile(entry.path), sidecar_error)) {
        entry.state = PreparedDataState::OldFormat;
        entry.reason = "a tokenizer of an earlier MixerLab version (keyed by the whole corpus's bytes)";
      } else {
        entry.reason = tokenizerStaleReason(entry.path);
        entry.state = entry.reason.empty() ? PreparedDataState::Current : PreparedDataState::Stale;
      }
    } else if (startsWith(name, "tokens-")) {
      entry.state = PreparedDataState::OldFormat;
      entry.reason = "a token cache of an earlier MixerLab version; shards replace it";
    } else if (startsWith(name, "data-") && it->is_directory(ec) && !it->is_symlink(ec)) {
      try {
        entry.manifest = readDataManifest(manifestFile(entry.path));
        if (!entry.manifest) entry.manifest = readDataManifest(progressFile(entry.path));
      } catch (const MixerLabError& e) {
        entry.state = PreparedDataState::Stale;
        entry.reason = e.problem();
      }
      if (entry.manifest) {
        entry.reason = staleReason(*entry.manifest);
        entry.state = !entry.reason.empty()      ? PreparedDataState::Stale
                      : entry.manifest->complete ? PreparedDataState::Current
                                                 : PreparedDataState::Unfinished;
      } else if (entry.reason.empty()) {
        entry.state = PreparedDataState::Unfinished;
      }
    } else {
      continue;
    }
    entry.bytes = bytesOnDisk(entry.path);
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return entries;
}

std::vector<PreparedDataEntry> pruneStalePreparedData(const fs::path& cache_dir) {
  std::vector<PreparedDataEntry> removed;
  for (PreparedDataEntry& entry : listPreparedData(cache_dir)) {
    if (entry.state != PreparedDataState::Stale && entry.state != PreparedDataState::OldFormat) continue;
    std::error_code ec;
    fs::remove_all(entry.path, ec);  // removes a symlink itself, never its target
    if (!ec && startsWith(entry.path.filename().string(), "tokenizer-"))
      fs::remove(tokenizerSourcesFile(entry.path), ec);
    if (ec) {
      throw MixerLabError("cannot remove " + entry.path.string() + ": " + ec.message(),
                          "check the permissions of " + cache_dir.string());
    }
    removed.push_back(std::move(entry));
  }
  return removed;
}

}  // namespace mixerlab
