// GenerationWorker (see generation_worker.h).
#include "app/gui/generation/generation_worker.h"

#include <chrono>
#include <exception>

#include "app/gui/generation/generator_cache.h"

namespace mixerlab::gui {

GenerationWorker::GenerationWorker(GenerationJob job) : job_(std::move(job)) {}

void GenerationWorker::run() {
  try {
    GeneratorCache::Lease lease = job_.cache->acquire(job_.checkpoint_dir);
    Generator& generator = lease.generator();
    useCoreShare();  // after the lease: loading a model sets the threads to every core
    const bool reference = job_.settings.decoder == DecoderChoice::kReference;
    Q_EMIT loaded(job_.column, QString::fromStdString(generator.architecture()),
                  reference ? QString("reference") : QString::fromStdString(generator.fastDecoderName()));
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    int64_t count = 0;
    const auto on_token = [&](int sample, const GeneratedToken& token) {
      ++count;
      const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
      Q_EMIT tokenReady(job_.column, sample, token, elapsed_s > 0 ? static_cast<double>(count) / elapsed_s : 0.0);
    };
    std::vector<GenerationResult> results;
    if (job_.samples == 1) {
      results.push_back(generator.generate(
          job_.prompt, job_.settings, [&](const GeneratedToken& token) { on_token(0, token); }, cancelFlag()));
    } else {
      results = generator.generateSamples(job_.prompt, job_.settings, job_.samples, on_token, cancelFlag());
    }
    Q_EMIT finished(job_.column, results);
  } catch (const std::exception& e) {
    Q_EMIT failed(job_.column, QString::fromStdString(e.what()));
  }
}

}  // namespace mixerlab::gui
