// One preparer per cache folder: an flock on <cache>/.prepare.lock, held while a tokenizer is trained
// or token shards are written there. Another process (a second run of the project, `mixerlab data
// prepare`, a rank) waits for it and then finds the published results; the kernel drops the lock of a
// killed holder, so a crash never leaves the folder locked.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "core/util/error.h"

namespace mixerlab {

// Thrown by preparation when its stop flag is set (SIGTERM, Ctrl-C, the workbench's Stop): finished
// shards are kept and the next start resumes after them.
class PreparationStopped : public MixerLabError {
 public:
  PreparationStopped() : MixerLabError("stop requested during data preparation") {}
};

// Throws PreparationStopped when `stop` is set.
void checkPreparationStop(const std::atomic<bool>* stop);

class PreparationLock {
 public:
  // Blocks until the lock is free (polling, so a set `stop` ends the wait with PreparationStopped);
  // `log` is told once who holds it.
  PreparationLock(const std::filesystem::path& cache_dir, const std::atomic<bool>* stop,
                  const std::function<void(const std::string&)>& log);
  ~PreparationLock();
  PreparationLock(const PreparationLock&) = delete;
  PreparationLock& operator=(const PreparationLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace mixerlab
