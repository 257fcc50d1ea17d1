// JobWorker (see job_worker.h).
#include "app/gui/common/job_worker.h"

#include "core/train/device.h"

namespace mixerlab::gui {

namespace {
std::atomic<int> last_job_id{0};
}  // namespace

JobWorker::JobWorker() : job_id_(++last_job_id), cancel_(std::make_shared<std::atomic<bool>>(false)) {}

JobWorker::~JobWorker() = default;

void JobWorker::useCoreShare() const {
  if (cpu_threads_ > 0) configureCpuThreads(cpu_threads_);
}

}  // namespace mixerlab::gui
