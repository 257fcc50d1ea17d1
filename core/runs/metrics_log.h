// The append-only metrics log of a run (metrics.jsonl, JSON Lines). One record per line; readers
// ignore a torn (unterminated or unparsable) last line, so they can read while the run writes.
// It is the interface between a training process and every viewer (CLI, GUI, pandas).
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mixerlab {

struct MetricsRecord {
  int64_t step = 0;
  int64_t tokens = 0;                // training tokens consumed so far (including pad positions)
  double wall_s = 0;                 // training wall-clock seconds so far (summed across resumes)
  std::optional<double> train_loss;  // mean over the steps since the previous train record
  std::optional<double> eval_loss;
  double learning_rate = 0;
  double tokens_per_s = 0;  // recent training throughput
  // L2 norm of the gradients of the logged step, before clipping (absent in older logs).
  std::optional<double> grad_norm;
  // Any other numeric field of the line (a metric a later version or a plug-in logs): kept so a
  // reader can plot it and a rewrite keeps it.
  std::map<std::string, double> extra_metrics;
  std::string toJsonLine() const;  // without the newline
};

class MetricsWriter {
 public:
  explicit MetricsWriter(const std::filesystem::path& path);  // opens for append
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;
  // One line, written straight to the file (no buffer). A write that fails part way (a full disk)
  // is undone: the file is cut back to its length before the line, so it never keeps a torn line,
  // and a MixerLabError says why.
  void append(const MetricsRecord& record);
  void sync();  // fsync (called at checkpoints)

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

// Parses a whole log; a torn final line is skipped. Malformed lines before the end are skipped too
// and counted in *skipped_lines when given.
std::vector<MetricsRecord> readMetrics(const std::filesystem::path& path, int* skipped_lines = nullptr);
// The same from a metrics log's text (complete lines only); the fuzz target's entry point.
std::vector<MetricsRecord> parseMetricsText(const std::string& text, int* skipped_lines = nullptr);

// Incremental reader for live views: returns only records completed since the last call.
// A rewrite of the file (a resume truncates it by writing a new file and renaming it over the old
// one) is detected by file identity (device, inode), by shrinking, and by the bytes just before
// the read offset no longer being the ones read, so a rewritten log that has already grown past
// the old offset is still noticed. After a rewrite poll() rereads from the start.
class MetricsTail {
 public:
  explicit MetricsTail(std::filesystem::path path) : path_(std::move(path)) {}
  std::vector<MetricsRecord> poll();
  // True when the last poll found the file rewritten: the caller should drop what it has and
  // take the records poll() returned (all of them, from the start) instead.
  bool wasReset() const { return reset_; }

 private:
  bool rewrittenSinceLastPoll(uint64_t size, uint64_t device, uint64_t inode) const;

  std::filesystem::path path_;
  uint64_t offset_ = 0;
  uint64_t device_ = 0, inode_ = 0;  // identity of the file read so far (valid when offset_ > 0)
  std::string consumed_tail_;        // the last bytes before offset_, as read
  bool reset_ = false;
};

// Keeps only records with step <= last_step (atomic rewrite). Used on resume so that steps redone
// after the last checkpoint are not logged twice. Returns how many unreadable lines it dropped, so
// the caller can say so.
int truncateMetricsAfterStep(const std::filesystem::path& path, int64_t last_step);

}  // namespace mixerlab
