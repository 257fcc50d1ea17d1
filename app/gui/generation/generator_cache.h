// Loaded generators by checkpoint folder, shared by the generation panel's worker threads while the
// panel lives, so a model loads once however many generations use it. A Lease holds its generator
// exclusively (a Generator runs one generate() at a time): two columns on the same checkpoint take
// turns. The first lease of a checkpoint loads the model on the leasing (worker) thread.
#pragma once
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "core/analysis/generation.h"

namespace mixerlab::gui {

class GeneratorCache {
 public:
  class Lease {
   public:
    Generator& generator();
    bool loadedNow() const { return loaded_now_; }  // this lease loaded the model

   private:
    friend class GeneratorCache;
    struct Entry;
    std::shared_ptr<Entry> entry_;
    std::unique_lock<std::mutex> lock_;
    bool loaded_now_ = false;
  };

  // Blocks while another lease holds the checkpoint's generator; loads it when not cached yet.
  // Throws MixerLabError when the folder is no checkpoint of a next-token model.
  Lease acquire(const std::filesystem::path& checkpoint_dir);
  bool contains(const std::filesystem::path& checkpoint_dir) const;  // loaded (never blocks)
  int loadCount() const { return loads_.load(); }                    // models loaded so far

 private:
  static std::filesystem::path key(const std::filesystem::path& checkpoint_dir);
  mutable std::mutex mutex_;
  std::map<std::filesystem::path, std::shared_ptr<Lease::Entry>> entries_;
  std::atomic<int> loads_{0};
};

}  // namespace mixerlab::gui
