// PhaseTeam (see phase_team.h). A phase is published as a ticket (phase number, chunk count, next
// chunk); claiming a chunk is one compare-and-swap on it, so a chunk is run by exactly one thread,
// and the phase's description is written only while no chunk can be claimed. Idle workers pause
// for a few microseconds, then yield the core until ~2 ms have passed, then sleep on a condition
// variable; the caller takes the mutex to wake them only when one sleeps.
#include "kernels/phase_team.h"

#include <algorithm>
#include <chrono>

namespace mixerlab::kernels {
namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

using Clock = std::chrono::steady_clock;
constexpr int kPauseSpins = 256;  // then yield between looks
constexpr auto kYieldBeforeSleep = std::chrono::milliseconds(2);
constexpr int64_t kChunksPerThread = 4;
constexpr int64_t kMaxChunks = 0xFFFF;

uint64_t phaseOf(uint64_t ticket) { return ticket >> 32; }
uint64_t chunksOf(uint64_t ticket) { return (ticket >> 16) & 0xFFFF; }
uint64_t nextOf(uint64_t ticket) { return ticket & 0xFFFF; }
bool hasWork(uint64_t ticket) { return nextOf(ticket) < chunksOf(ticket); }

}  // namespace

PhaseTeam::PhaseTeam(int threads) {
  const int workers = std::max(1, threads) - 1;
  workers_.reserve(static_cast<size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { workerLoop(); });
}

PhaseTeam::~PhaseTeam() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

int64_t PhaseTeam::chunkSize(int64_t count, int64_t min_items, int64_t align) const {
  const int64_t step = std::max<int64_t>(1, align);
  const int64_t target = (count + kChunksPerThread * size() - 1) / (kChunksPerThread * size());
  int64_t chunk = std::max({target, min_items, (count + kMaxChunks - 1) / kMaxChunks, int64_t{1}});
  chunk = (chunk + step - 1) / step * step;
  return std::min(chunk, count);
}

void PhaseTeam::dispatch(const Phase& phase) {
  // No chunk of the previous phase is claimable now, so nobody reads these while they change.
  context_.store(phase.context, std::memory_order_relaxed);
  call_.store(phase.call, std::memory_order_relaxed);
  count_.store(phase.count, std::memory_order_relaxed);
  chunk_.store(phase.chunk, std::memory_order_relaxed);
  finished_.store(0, std::memory_order_relaxed);
  const auto chunks = static_cast<uint64_t>((phase.count + phase.chunk - 1) / phase.chunk);
  const uint64_t number = (phaseOf(ticket_.load(std::memory_order_relaxed)) + 1) & 0xFFFFFFFFu;
  ticket_.store((number << 32) | (chunks << 16));  // sequentially consistent: before the read of sleepers_
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);  // a sleeper is either waiting or re-checking the ticket
    wake_.notify_all();
  }
  while (claimAndRun(number)) {
  }
  for (int spins = 0; finished_.load(std::memory_order_acquire) != static_cast<int64_t>(chunks); ++spins) {
    if (spins < 1024) {
      cpuRelax();
    } else {
      std::this_thread::yield();  // a worker was preempted inside its chunk
    }
  }
}

bool PhaseTeam::claimAndRun(uint64_t number) {
  uint64_t ticket = ticket_.load(std::memory_order_acquire);
  for (;;) {
    if (phaseOf(ticket) != number || !hasWork(ticket)) return false;
    const void* context = context_.load(std::memory_order_relaxed);
    const Call call = call_.load(std::memory_order_relaxed);
    const int64_t count = count_.load(std::memory_order_relaxed), chunk = chunk_.load(std::memory_order_relaxed);
    if (ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
      const int64_t begin = static_cast<int64_t>(nextOf(ticket)) * chunk;
      call(context, begin, std::min(count, begin + chunk));
      finished_.fetch_add(1, std::memory_order_release);
      return true;
    }
  }
}

void PhaseTeam::workerLoop() {
  auto idle_since = Clock::now();
  for (int spins = 0;; ++spins) {
    if (stop_.load(std::memory_order_relaxed)) return;
    const uint64_t ticket = ticket_.load(std::memory_order_acquire);
    if (hasWork(ticket)) {
      while (claimAndRun(phaseOf(ticket))) {
      }
      spins = 0;
      idle_since = Clock::now();
      continue;
    }
    if (spins < kPauseSpins) {
      cpuRelax();
    } else if (Clock::now() - idle_since < kYieldBeforeSleep) {
      std::this_thread::yield();
    } else {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1);  // before the ticket is looked at again under the lock
      wake_.wait(lock, [&] { return stop_.load() || hasWork(ticket_.load()); });
      sleepers_.fetch_sub(1);
      spins = 0;
      idle_since = Clock::now();
    }
  }
}

}  // namespace mixerlab::kernels
