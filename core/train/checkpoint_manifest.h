// A checkpoint folder's manifest.json: written last, it records the size and 64-bit FNV-1a checksum
// of every other file of the folder (weights, optimizer and RNG state, config, tokenizer and
// trainer_state.json itself), and every reader checks the bytes it reads against it. So a damaged
// or hand-edited file is refused instead of loaded, and a folder that lost files (a kill while it
// was written or deleted, a partial copy) is told apart and called incomplete, naming the files.
// Folders written before manifests existed (no manifest.json and no "checkpoint_format" in their
// trainer_state.json) still load as before: optimizer.pt and rng.pt against the checksums their
// trainer_state.json records, the other files unchecked.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace mixerlab {

inline constexpr const char* kCheckpointManifestFile = "manifest.json";
inline constexpr const char* kCheckpointStateFile = "trainer_state.json";
// trainer_state.json's key saying the folder has a manifest, so a missing one is noticed.
inline constexpr const char* kCheckpointFormatKey = "checkpoint_format";
inline constexpr int kCheckpointFormatWithManifest = 2;  // older folders have no such key (format 1)

// Writes dir/manifest.json listing every regular file of dir. Checksums the caller already has (by
// file name, of the bytes it wrote) are taken as given; the other files are read and hashed.
// saveCheckpoint calls it last; tools and tests that change a checkpoint's files on purpose call it
// to record the new contents.
void writeCheckpointManifest(const std::filesystem::path& dir,
                             const std::map<std::string, std::string>& known_fnv1a64 = {});

// MixerLabError "checkpoint DIR is incomplete: X is missing" when a file the folder must hold is
// absent: any file its manifest lists, the manifest itself when trainer_state.json says there is
// one, trainer_state.json, and any of `needed` (the files the caller reads). Looks only at which
// files exist (cheap). A folder of the older format is only checked for trainer_state.json and
// `needed` (its readers name any other missing file).
void requireCompleteCheckpoint(const std::filesystem::path& dir, const std::vector<std::string>& needed = {});
bool isCompleteCheckpoint(const std::filesystem::path& dir);  // requireCompleteCheckpoint as a test

// The bytes of dir/name, checked against the manifest (size and checksum). MixerLabError naming the
// file when it is missing (the checkpoint is incomplete), damaged or edited.
std::string readCheckpointFile(const std::filesystem::path& dir, const std::string& name);

}  // namespace mixerlab
