// Corpus inputs expanded into files, their compression and format, and their fingerprints (see
// corpus_sources.h).
#include "core/data/corpus_sources.h"

#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "core/data/compressed_reader.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

constexpr size_t kFormatProbeBytes = size_t(1) << 20;  // Auto looks for "<|endoftext|>" in this much text
constexpr uint64_t kFingerprintBlockBytes = 4096;
constexpr uint64_t kFingerprintBlocks = 16;

std::string lowercaseAscii(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

struct stat statOf(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw MixerLabError("cannot read corpus file " + path.string() + ": " + std::strerror(errno),
                        "check that the file exists and is readable");
  }
  return info;
}

// Names a folder scan passes over: hidden ones, and the temporary files of writers still at work.
bool isHiddenOrTemporaryName(const std::string& name) {
  return (!name.empty() && name[0] == '.') || (name.size() >= 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) ||
         name.find(".tmp-") != std::string::npos;
}

bool hasGlobCharacters(const std::string& input) { return input.find_first_of("*?[") != std::string::npos; }

// The regular files below `folder` (symbolic links to files included), sorted by path.
std::vector<fs::path> corpusFilesInFolder(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code ec;
  const auto refuse = [&] {
    throw MixerLabError("cannot list corpus folder " + folder.string() + ": " + ec.message(),
                        "check that the folder and the folders in it are readable");
  };
  fs::recursive_directory_iterator it(folder, ec);
  if (ec) refuse();
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) refuse();
    if (isHiddenOrTemporaryName(it->path().filename().string())) {
      it.disable_recursion_pending();
      continue;
    }
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) files.push_back(it->path());
  }
  if (ec) refuse();
  std::sort(files.begin(), files.end());
  return files;
}

// What glob(3) matches for `pattern`, sorted by path.
std::vector<fs::path> globMatches(const std::string& pattern) {
  glob_t found{};
  const int status = ::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &found);
  std::vector<fs::path> matches;
  if (status == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) matches.emplace_back(found.gl_pathv[i]);
  }
  ::globfree(&found);
  if (status != 0 && status != GLOB_NOMATCH) {
    throw MixerLabError("cannot expand the corpus pattern " + pattern + " (a folder could not be read)",
                        "check that the folders the pattern names are readable");
  }
  std::sort(matches.begin(), matches.end());
  return matches;
}

// Reads up to `size` bytes at `offset` into `buffer`; fewer at the end of the file.
size_t readAt(int fd, char* buffer, size_t size, uint64_t offset, const fs::path& path) {
  size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, buffer + done, size - done, static_cast<off_t>(offset + done));
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw MixerLabError("cannot read corpus file " + path.string() + ": " + std::strerror(errno),
                          "check the disk and the file");
    }
    done += static_cast<size_t>(got);
  }
  return done;
}

}  // namespace

std::string compressionName(Compression compression) {
  switch (compression) {
    case Compression::Gzip:
      return "gzip";
    case Compression::Zstd:
      return "zstd";
    case Compression::None:
      break;
  }
  return "none";
}

Compression detectCompression(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw MixerLabError("cannot open corpus file " + path.string() + ": " + std::strerror(errno),
                        "check that the file exists and is readable");
  }
  unsigned char magic[4] = {0, 0, 0, 0};
  size_t got = 0;
  try {
    got = readAt(fd, reinterpret_cast<char*>(magic), sizeof magic, 0, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (got >= 2 && magic[0] == 0x1F && magic[1] == 0x8B) return Compression::Gzip;
  if (got >= 4 && magic[0] == 0x28 && magic[1] == 0xB5 && magic[2] == 0x2F && magic[3] == 0xFD) {
    return Compression::Zstd;
  }
  return Compression::None;
}

CorpusFormat detectSourceFormat(const fs::path& path, Compression compression) {
  fs::path text_name = path;
  const std::string extension = lowercaseAscii(path.extension().string());
  if (extension == ".gz" || extension == ".zst" || extension == ".zstd") text_name = path.parent_path() / path.stem();
  std::string probe(kFormatProbeBytes, '\0');
  size_t filled = 0;
  const std::string text_extension = lowercaseAscii(text_name.extension().string());
  if (text_extension != ".jsonl" && text_extension != ".json") {
    const auto source = openByteSource(path, compression, size_t(64) << 10);
    while (filled < probe.size()) {
      const size_t got = source->read(probe.data() + filled, probe.size() - filled);
      if (got == 0) break;
      filled += got;
    }
  }
  probe.resize(filled);
  return detectCorpusFormat(text_name, probe);
}

SourceFile describeSourceFile(const fs::path& path, CorpusFormat format) {
  const struct stat info = statOf(path);
  SourceFile file;
  file.path = path;
  file.size_bytes = static_cast<uint64_t>(info.st_size);
  file.mtime_ns = static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  file.compression = detectCompression(path);
  file.format = format == CorpusFormat::Auto ? detectSourceFormat(path, file.compression) : format;
  return file;
}

std::vector<SourceFile> expandCorpusSources(const std::vector<std::string>& inputs, CorpusFormat format,
                                            const fs::path& base_dir) {
  std::vector<SourceFile> files;
  std::set<std::pair<dev_t, ino_t>> seen;  // the same file by another path is listed once
  const auto add = [&](const fs::path& path) {
    const struct stat info = statOf(path);
    if (seen.emplace(info.st_dev, info.st_ino).second) files.push_back(describeSourceFile(path, format));
  };
  const auto addFolder = [&](const fs::path& folder, const std::string& input) {
    const std::vector<fs::path> found = corpusFilesInFolder(folder);
    if (found.empty()) {
      throw MixerLabError("corpus folder " + input + " (" + folder.string() + ") holds no corpus file",
                          "put the corpus files in it or point the corpus at them (hidden files and names ending "
                          "in .tmp or holding .tmp- are skipped)");
    }
    for (const fs::path& file : found) add(file);
  };
  const std::string relative_to =
      base_dir.empty() ? "the current folder" : "the folder " + base_dir.string() + " (the project folder)";
  for (const std::string& input : inputs) {
    fs::path path(input);
    if (path.is_relative() && !base_dir.empty()) path = base_dir / path;
    path = path.lexically_normal();
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (fs::is_regular_file(status)) {
      add(path);
    } else if (fs::is_directory(status)) {
      addFolder(path, input);
    } else if (fs::exists(status)) {
      throw MixerLabError("corpus input " + input + " (" + path.string() + ") is neither a file nor a folder",
                          "point the corpus at text files, folders of them or a glob pattern");
    } else if (hasGlobCharacters(input)) {
      std::vector<fs::path> matches = globMatches(path.string());
      matches.erase(
          std::remove_if(matches.begin(), matches.end(),
                         [](const fs::path& match) { return isHiddenOrTemporaryName(match.filename().string()); }),
          matches.end());
      if (matches.empty()) {
        throw MixerLabError(
            "corpus pattern " + input + " (" + path.string() + ") matches no file",
            "check the pattern (glob syntax: * ? [...]); a relative pattern is read against " + relative_to);
      }
      for (const fs::path& match : matches) {
        if (fs::is_directory(match, ec)) {
          addFolder(match, match.string());
        } else if (fs::is_regular_file(match, ec)) {
          add(match);
        }
      }
    } else {
      throw MixerLabError("corpus input " + input + " does not exist (looked for " + path.string() + ")",
                          "check the path; a relative path is read against " + relative_to);
    }
  }
  return files;
}

std::string sourceIdentity(const SourceFile& file) {
  return file.path.string() + "|" + sourceFingerprint(file) + "|" + corpusFormatName(file.format);
}

std::string sourceFingerprint(const SourceFile& file) {
  const int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw MixerLabError("cannot open corpus file " + file.path.string() + " to fingerprint it: " + std::strerror(errno),
                        "check that the file exists and is readable");
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) info.st_size = 0;
  const auto size_bytes = static_cast<uint64_t>(info.st_size);
  const int64_t mtime_ns = static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  Fnv1aHasher hasher;
  hasher.update(file.path.string());
  hasher.update(std::string_view("\0", 1));
  hasher.update(&size_bytes, sizeof size_bytes);
  hasher.update(&mtime_ns, sizeof mtime_ns);
  std::string block(kFingerprintBlockBytes * kFingerprintBlocks, '\0');
  try {
    if (size_bytes < block.size()) {
      hasher.update(block.data(), readAt(fd, block.data(), size_bytes, 0, file.path));
    } else {
      // Block i starts i/15 of the way to the last block's start: the first at 0, the last ending at the end.
      const uint64_t last_start = size_bytes - kFingerprintBlockBytes;
      for (uint64_t i = 0; i < kFingerprintBlocks; ++i) {
        const uint64_t offset = i * last_start / (kFingerprintBlocks - 1);
        hasher.update(block.data(), readAt(fd, block.data(), kFingerprintBlockBytes, offset, file.path));
      }
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return hasher.hex();
}

}  // namespace mixerlab
