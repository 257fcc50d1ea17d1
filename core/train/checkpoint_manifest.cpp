// Checkpoint manifests and the checked reads of checkpoint files (see checkpoint_manifest.h).
#include "core/train/checkpoint_manifest.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
// trainer_state.json's checksums of optimizer.pt and rng.pt in folders written before manifests.
constexpr const char* kLegacyChecksumsKey = "file_fnv1a64";
// The files every checkpoint writer leaves (tokenizer.model is optional), named when missing from
// a folder whose manifest is missing too.
const std::vector<std::string> kCoreFiles = {"config.json", "model.safetensors", "optimizer.pt", "rng.pt",
                                             kCheckpointStateFile};

const std::string kUseAnother =
    "use another checkpoint: train --resume falls back to the newest intact one by itself; eval, generate, "
    "score and --fork-from take the run folder (its latest complete checkpoint) or another checkpoints/step-N folder";

struct ManifestEntry {
  std::optional<uintmax_t> bytes;  // absent in the older format's checksums
  std::string fnv1a64;
};

struct Manifest {
  std::string source;  // the file the checksums come from, for messages ("" when there are none)
  std::map<std::string, ManifestEntry> files;
  bool lists_every_file = false;  // a real manifest: a file it does not list is not part of the checkpoint
};

[[noreturn]] void throwIncomplete(const fs::path& dir, const std::vector<std::string>& missing) {
  std::string names;
  for (size_t i = 0; i < missing.size(); ++i) names += (i == 0 ? "" : ", ") + missing[i];
  throw MixerLabError("checkpoint " + dir.string() + " is incomplete: " + names +
                          (missing.size() == 1 ? " is" : " are") +
                          " missing (a process was stopped while it wrote or deleted the folder, or files were "
                          "removed from it)",
                      kUseAnother + "; delete the incomplete folder once nothing else is needed from it");
}

std::optional<nlohmann::json> readStateJson(const fs::path& dir) {
  try {
    return nlohmann::json::parse(readFile(dir / kCheckpointStateFile));
  } catch (const std::exception&) {
    return std::nullopt;  // readTrainerState reports a missing or malformed state file
  }
}

bool stateDeclaresManifest(const std::optional<nlohmann::json>& state) {
  return state && state->is_object() && state->contains(kCheckpointFormatKey) &&
         (*state)[kCheckpointFormatKey].is_number_integer() &&
         (*state)[kCheckpointFormatKey].get<int64_t>() >= kCheckpointFormatWithManifest;
}

std::vector<std::string> missingCoreFiles(const fs::path& dir) {
  std::vector<std::string> missing;
  for (const std::string& name : kCoreFiles) {
    if (!fs::exists(dir / name)) missing.push_back(name);
  }
  return missing;
}

Manifest parseManifest(const fs::path& path) {
  const std::string problem = path.string() + " is malformed: the checkpoint's manifest is damaged";
  Manifest m;
  m.source = kCheckpointManifestFile;
  m.lists_every_file = true;
  try {
    const nlohmann::json j = nlohmann::json::parse(readFile(path));
    for (const auto& [name, entry] : j.at("files").items()) {
      if (name.empty() || name.find('/') != std::string::npos || !entry.at("bytes").is_number_unsigned() ||
          !entry.at("fnv1a64").is_string()) {
        throw MixerLabError(problem + " (entry \"" + name + "\")", kUseAnother);
      }
      m.files[name] = ManifestEntry{entry.at("bytes").get<uintmax_t>(), entry.at("fnv1a64").get<std::string>()};
    }
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(problem + " (" + e.what() + ")", kUseAnother);
  }
  return m;
}

// The checksums a folder's files are checked against: its manifest, or in an older folder the
// ones its trainer_state.json records. A folder that should have a manifest and has none is incomplete.
Manifest readManifest(const fs::path& dir) {
  if (fs::exists(dir / kCheckpointManifestFile)) return parseManifest(dir / kCheckpointManifestFile);
  const auto state = readStateJson(dir);
  if (stateDeclaresManifest(state)) {
    std::vector<std::string> missing = missingCoreFiles(dir);
    missing.insert(missing.begin(), kCheckpointManifestFile);
    throwIncomplete(dir, missing);
  }
  Manifest m;
  if (state && state->is_object() && state->contains(kLegacyChecksumsKey) &&
      (*state)[kLegacyChecksumsKey].is_object()) {
    m.source = kCheckpointStateFile;
    for (const auto& [name, hash] : (*state)[kLegacyChecksumsKey].items()) {
      if (hash.is_string()) m.files[name] = ManifestEntry{std::nullopt, hash.get<std::string>()};
    }
  }
  return m;
}
}  // namespace

void writeCheckpointManifest(const fs::path& dir, const std::map<std::string, std::string>& known_fnv1a64) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name == kCheckpointManifestFile) continue;
    const auto known = known_fnv1a64.find(name);
    files[name] = {{"bytes", entry.file_size()},
                   {"fnv1a64", known != known_fnv1a64.end() ? known->second : hashFileHex(entry.path())}};
  }
  writeFileAtomic(dir / kCheckpointManifestFile, nlohmann::json{{"files", files}}.dump(2) + "\n");
}

void requireCompleteCheckpoint(const fs::path& dir, const std::vector<std::string>& needed) {
  std::vector<std::string> missing;
  if (fs::exists(dir / kCheckpointManifestFile)) {
    for (const auto& [name, entry] : parseManifest(dir / kCheckpointManifestFile).files) {
      if (!fs::exists(dir / name)) missing.push_back(name);
    }
  } else if (!fs::exists(dir / kCheckpointStateFile)) {
    missing = missingCoreFiles(dir);
  } else {
    readManifest(dir);  // throws when trainer_state.json says a manifest was written
  }
  for (const std::string& name : needed) {
    if (!fs::exists(dir / name) && std::find(missing.begin(), missing.end(), name) == missing.end()) {
      missing.push_back(name);
    }
  }
  if (!missing.empty()) throwIncomplete(dir, missing);
}

bool isCompleteCheckpoint(const fs::path& dir) {
  try {
    requireCompleteCheckpoint(dir);
    return fs::exists(dir / kCheckpointStateFile);
  } catch (const std::exception&) {
    return false;
  }
}

std::string readCheckpointFile(const fs::path& dir, const std::string& name) {
  const fs::path path = dir / name;
  const Manifest manifest = readManifest(dir);
  if (!fs::exists(path)) throwIncomplete(dir, {name});
  std::string bytes = readFile(path);
  const auto entry = manifest.files.find(name);
  if (entry == manifest.files.end()) {
    if (manifest.lists_every_file) {
      throw MixerLabError(path.string() + " is not listed in the checkpoint's " + manifest.source +
                              ": it was added or renamed after the checkpoint was written",
                          kUseAnother);
    }
    return bytes;  // an older folder's file that had no checksum
  }
  if (entry->second.bytes && *entry->second.bytes != bytes.size()) {
    throw MixerLabError(path.string() + " has " + std::to_string(bytes.size()) + " bytes but the checkpoint's " +
                            manifest.source + " records " + std::to_string(*entry->second.bytes) +
                            ": the file is damaged or was edited",
                        kUseAnother);
  }
  const std::string& stored = entry->second.fnv1a64;
  const std::string computed = hashHex(bytes);
  if (stored != computed) {
    throw MixerLabError(path.string() + ": does not match the checksum in " + manifest.source + " (stored " + stored +
                            ", computed " + computed + "): the file is damaged or was edited",
                        kUseAnother);
  }
  return bytes;
}

}  // namespace mixerlab
