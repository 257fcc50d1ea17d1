// libFuzzer target: the metrics log reader (parseMetricsText) on arbitrary text. It never throws:
// unreadable lines are skipped and counted.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/runs/metrics_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  int skipped = 0;
  for (const auto& record : mixerlab::parseMetricsText(text, &skipped)) {
    (void)record.toJsonLine();  // every record read must write back
  }
  return 0;
}
