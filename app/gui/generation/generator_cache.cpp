// GeneratorCache (see generator_cache.h).
#include "app/gui/generation/generator_cache.h"

namespace mixerlab::gui {

struct GeneratorCache::Lease::Entry {
  std::mutex mutex;  // held by the lease using (or loading) the generator
  std::unique_ptr<Generator> generator;
  std::atomic<bool> loaded{false};  // read without the mutex (contains())
};

Generator& GeneratorCache::Lease::generator() { return *entry_->generator; }

std::filesystem::path GeneratorCache::key(const std::filesystem::path& checkpoint_dir) {
  std::error_code error;
  const auto canonical = std::filesystem::weakly_canonical(checkpoint_dir, error);
  return error ? checkpoint_dir.lexically_normal() : canonical;
}

GeneratorCache::Lease GeneratorCache::acquire(const std::filesystem::path& checkpoint_dir) {
  Lease lease;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& entry = entries_[key(checkpoint_dir)];
    if (!entry) entry = std::make_shared<Lease::Entry>();
    lease.entry_ = entry;
  }
  lease.lock_ = std::unique_lock<std::mutex>(lease.entry_->mutex);
  if (!lease.entry_->generator) {  // a failed load leaves the entry empty: the next lease tries again
    lease.entry_->generator = std::make_unique<Generator>(checkpoint_dir);
    lease.entry_->loaded = true;
    lease.loaded_now_ = true;
    ++loads_;
  }
  return lease;
}

bool GeneratorCache::contains(const std::filesystem::path& checkpoint_dir) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key(checkpoint_dir));
  return it != entries_.end() && it->second->loaded.load();
}

}  // namespace mixerlab::gui
