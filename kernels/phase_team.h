// PhaseTeam: a few threads for work cut into many short phases that must run one after another,
// such as one decoder step (a dozen matrix-vector products of 5-50 microseconds each, every one
// needing the previous one's output). Waking threads through a condition variable or an OpenMP
// region for each phase costs about as much as the phase itself; here the workers watch for the
// next phase for a while (pausing, then yielding the core) and only then sleep.
//
// A phase is cut into chunks that the caller and the workers claim one at a time, so the caller
// never waits for a worker that has not started: when the workers share cores with other busy
// threads (BLAS or OpenMP threads still spinning after a large product), the caller simply does
// more chunks itself. The team does not depend on an OpenMP runtime, so it behaves the same with
// Debian's LibTorch and a PyTorch wheel (which brings its own libgomp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace mixerlab::kernels {

class PhaseTeam {
 public:
  // threads >= 1 (clamped); threads - 1 workers are started, the caller of forRanges is the last.
  explicit PhaseTeam(int threads);
  ~PhaseTeam();
  PhaseTeam(const PhaseTeam&) = delete;
  PhaseTeam& operator=(const PhaseTeam&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls range(begin, end) over contiguous ranges that cover [0, count) exactly once, each of at
  // least `min_items` items (but the last) with boundaries at multiples of `align`, spread over the
  // team; returns when every range is done. Work too small for two ranges runs on the calling thread
  // alone. `range` must not throw. One caller at a time.
  template <typename Range>
  void forRanges(int64_t count, int64_t min_items, int64_t align, const Range& range) {
    if (count <= 0) return;
    const int64_t chunk = chunkSize(count, min_items, align);
    if (size() == 1 || chunk >= count) {
      range(int64_t{0}, count);
      return;
    }
    const auto call = [](const void* context, int64_t begin, int64_t end) {
      (*static_cast<const Range*>(context))(begin, end);
    };
    dispatch(Phase{&range, call, count, chunk});
  }

  // The chunk size forRanges uses: about four chunks per thread, at least min_items, a multiple of align.
  int64_t chunkSize(int64_t count, int64_t min_items, int64_t align) const;

 private:
  using Call = void (*)(const void*, int64_t, int64_t);
  struct Phase {
    const void* context;
    Call call;
    int64_t count, chunk;
  };
  void dispatch(const Phase& phase);
  bool claimAndRun(uint64_t seen_ticket);  // false once the phase has no chunk left
  void workerLoop();

  std::vector<std::thread> workers_;
  // The current phase. Written by the caller only while no chunk can be claimed; workers read it
  // after reading a ticket that has chunks left, and use it only if their claim succeeds.
  std::atomic<const void*> context_{nullptr};
  std::atomic<Call> call_{nullptr};
  std::atomic<int64_t> count_{0}, chunk_{0};
  // Ticket: phase number (high 32 bits), chunks in the phase (16 bits), next unclaimed chunk (16 bits).
  std::atomic<uint64_t> ticket_{0};
  std::atomic<int64_t> finished_{0};  // chunks of the current phase done
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace mixerlab::kernels
