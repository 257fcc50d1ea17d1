// The worker side of a BackgroundJob (see background_job.h): a job's code derives from JobWorker
// and runs on the job's thread. It reads what the job set before starting it: the cancel flag to
// poll (cancelled(), or cancelFlag() passed to the core's long loops), its share of the cores as
// LibTorch threads (useCoreShare()), and a throttle for progress reports (progressDue()). Its
// reports are its own Qt signals, which the job delivers to the GUI thread tagged with jobId(), so
// the reports of a job that was stopped or replaced are dropped there.
#pragma once
#include <QObject>
#include <atomic>
#include <memory>

#include "app/gui/common/progress_throttle.h"

namespace mixerlab::gui {

class JobWorker : public QObject {
  Q_OBJECT
 public:
  static constexpr int kProgressIntervalMs = 50;  // at most one progress report per interval

  JobWorker();  // takes the next job id, unique in the process
  ~JobWorker() override;

  int jobId() const { return job_id_; }

  // On the job's thread, first. A one-shot job's whole work: its thread ends when this returns. A
  // resident job's setup: the calls the job posts follow, until it is stopped.
  virtual void run() {}

 protected:
  bool cancelled() const { return cancel_->load(); }
  const std::atomic<bool>* cancelFlag() const { return cancel_.get(); }
  // Sets this thread's LibTorch intra-op threads to the job's share of the cores; call it after
  // loading a model (loading sets them to every core). Does nothing when the job gave no share.
  void useCoreShare() const;
  // True when a progress report is due: `kProgressIntervalMs` since the last one, or `force` (a
  // report that must not be skipped, such as the last step of a layer).
  bool progressDue(bool force = false) { return progress_throttle_.due(force); }

 private:
  friend class BackgroundJob;  // sets the share of the cores and holds the cancel flag

  const int job_id_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  int cpu_threads_ = 0;  // 0: leave LibTorch's threads as they are
  ProgressThrottle progress_throttle_{kProgressIntervalMs};
};

}  // namespace mixerlab::gui
