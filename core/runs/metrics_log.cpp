// Metrics log writer and readers (see metrics_log.h).
#include "core/runs/metrics_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_numbers.h"
#include "core/util/no_follow.h"

namespace mixerlab {
namespace fs = std::filesystem;

std::string MetricsRecord::toJsonLine() const {
  nlohmann::json j = {
      {"step", step}, {"tokens", tokens}, {"wall_s", wall_s}, {"lr", learning_rate}, {"tokens_per_s", tokens_per_s}};
  if (train_loss) j["train_loss"] = *train_loss;
  if (eval_loss) j["eval_loss"] = *eval_loss;
  if (grad_norm) j["grad_norm"] = *grad_norm;
  for (const auto& [name, value] : extra_metrics) {
    if (!j.contains(name)) j[name] = value;
  }
  return j.dump();
}

namespace {
std::optional<MetricsRecord> parseLine(const std::string& line) {
  try {
    auto j = nlohmann::json::parse(line);
    MetricsRecord r;
    const auto step = exactInt64(j.at("step"));
    const auto tokens = j.contains("tokens") ? exactInt64(j.at("tokens")) : std::optional<int64_t>(0);
    if (!step || !tokens) return std::nullopt;  // a value no integer holds: an unreadable line
    r.step = *step;
    r.tokens = *tokens;
    r.wall_s = j.value("wall_s", 0.0);
    r.learning_rate = j.value("lr", 0.0);
    r.tokens_per_s = j.value("tokens_per_s", 0.0);
    if (j.contains("train_loss") && j.at("train_loss").is_number()) r.train_loss = j.at("train_loss").get<double>();
    if (j.contains("eval_loss") && j.at("eval_loss").is_number()) r.eval_loss = j.at("eval_loss").get<double>();
    if (j.contains("grad_norm") && j.at("grad_norm").is_number()) r.grad_norm = j.at("grad_norm").get<double>();
    static const char* const kKnown[] = {"step",         "tokens",     "wall_s",    "lr",
                                         "tokens_per_s", "train_loss", "eval_loss", "grad_norm"};
    for (const auto& [name, value] : j.items()) {
      if (!value.is_number() || std::find(std::begin(kKnown), std::end(kKnown), name) != std::end(kKnown)) continue;
      const double number = value.get<double>();
      if (std::isfinite(number)) r.extra_metrics[name] = number;
    }
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Parses complete (newline-terminated) lines of `text`; returns bytes consumed.
size_t parseCompleteLines(const std::string& text, std::vector<MetricsRecord>& out, int* skipped) {
  size_t start = 0;
  while (true) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) break;
    const std::string line = text.substr(start, end - start);
    if (!line.empty()) {
      if (auto r = parseLine(line)) {
        out.push_back(*r);
      } else if (skipped) {
        ++*skipped;
      }
    }
    start = end + 1;
  }
  return start;
}
}  // namespace

MetricsWriter::MetricsWriter(const fs::path& path) : path_(path) {
  refuseSymlink(path);
  // A torn last line from a killed process must not merge with the next record.
  if (fs::exists(path) && fs::file_size(path) > 0) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(-1, std::ios::end);
    char last = '\n';
    in.get(last);
    if (last != '\n') {
      std::string text = readFile(path);
      text.erase(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
      writeFileAtomic(path, text);
    }
  }
  fd_ = openNoFollow(path, O_WRONLY | O_APPEND | O_CREAT);
  if (fd_ < 0) throw MixerLabError("cannot open " + path.string() + " for appending: " + std::strerror(errno));
}

MetricsWriter::~MetricsWriter() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {
std::string appendErrorText(int err) { return err == ENOSPC ? "the disk is full" : std::strerror(err); }
}  // namespace

void MetricsWriter::append(const MetricsRecord& record) {
  const std::string line = record.toJsonLine() + "\n";
  struct stat before {};
  if (::fstat(fd_, &before) != 0) {
    throw MixerLabError("cannot append to " + path_.string() + ": " + std::strerror(errno), "check the run folder");
  }
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n > 0) {
      written += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      const int err = n < 0 ? errno : ENOSPC;  // a write of 0 bytes: no room left
      // Cut the torn part off again (shrinking a file needs no space), so the log ends with a whole line.
      const bool cut = ::ftruncate(fd_, before.st_size) == 0;
      throw MixerLabError("cannot append to " + path_.string() + ": " + appendErrorText(err) +
                              (cut ? "" : " (and the partly written line could not be removed)"),
                          "free disk space");
    }
  }
}

void MetricsWriter::sync() { ::fsync(fd_); }

std::vector<MetricsRecord> parseMetricsText(const std::string& text, int* skipped_lines) {
  std::vector<MetricsRecord> out;
  parseCompleteLines(text, out, skipped_lines);
  return out;
}

std::vector<MetricsRecord> readMetrics(const fs::path& path, int* skipped_lines) {
  std::vector<MetricsRecord> out;
  if (!fs::exists(path)) return out;
  parseCompleteLines(readFile(path), out, skipped_lines);
  return out;
}

namespace {
constexpr size_t kTailSignatureBytes = 64;

// The `length` bytes of `path` starting at `offset` (fewer at the end of the file).
std::string readRange(const fs::path& path, uint64_t offset, uint64_t length) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string text(length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return text;
}
}  // namespace

bool MetricsTail::rewrittenSinceLastPoll(uint64_t size, uint64_t device, uint64_t inode) const {
  if (offset_ == 0) return false;
  if (size < offset_ || device != device_ || inode != inode_) return true;
  return readRange(path_, offset_ - consumed_tail_.size(), consumed_tail_.size()) != consumed_tail_;
}

std::vector<MetricsRecord> MetricsTail::poll() {
  std::vector<MetricsRecord> out;
  reset_ = false;
  struct stat info {};
  if (::stat(path_.c_str(), &info) != 0) return out;
  const auto size = static_cast<uint64_t>(info.st_size);
  const auto device = static_cast<uint64_t>(info.st_dev), inode = static_cast<uint64_t>(info.st_ino);
  if (rewrittenSinceLastPoll(size, device, inode)) {
    offset_ = 0;
    consumed_tail_.clear();
    reset_ = true;
  }
  device_ = device;
  inode_ = inode;
  if (size == offset_) return out;
  const std::string text = readRange(path_, offset_, size - offset_);
  const size_t consumed = parseCompleteLines(text, out, nullptr);
  if (consumed > 0) {
    const size_t fresh = std::min(consumed, kTailSignatureBytes);
    consumed_tail_ += text.substr(consumed - fresh, fresh);
    if (consumed_tail_.size() > kTailSignatureBytes)
      consumed_tail_.erase(0, consumed_tail_.size() - kTailSignatureBytes);
  }
  offset_ += consumed;
  return out;
}

int truncateMetricsAfterStep(const fs::path& path, int64_t last_step) {
  if (!fs::exists(path)) return 0;
  std::string kept;
  int skipped = 0;
  for (const auto& r : readMetrics(path, &skipped)) {
    if (r.step <= last_step) kept += r.toJsonLine() + "\n";
  }
  writeFileAtomic(path, kept);
  return skipped;
}

}  // namespace mixerlab
