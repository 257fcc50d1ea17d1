// MIXERLAB_CRASH_AT is read once; hits are counted per point name that matches it (see crash_point.h).
#include "core/util/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "kernels/environment/process_environment.h"

namespace mixerlab {
namespace {

struct CrashRequest {
  bool armed = false;
  std::string point;
  long hit = 1;
};

CrashRequest readCrashRequest() {
  CrashRequest request;
  const std::optional<std::string> value = kernels::environmentValue(kernels::EnvironmentVariable::kCrashAt);
  if (!value) return request;
  const std::string text = *value;
  const auto at = text.find('@');
  request.point = text.substr(0, at);
  if (at != std::string::npos) {
    char* end = nullptr;
    request.hit = std::strtol(text.c_str() + at + 1, &end, 10);
    if (end == text.c_str() + at + 1 || *end != '\0' || request.hit < 1) return request;  // malformed: never fires
  }
  request.armed = !request.point.empty();
  return request;
}

}  // namespace

void crashPoint(const char* name) {
  static const CrashRequest request = readCrashRequest();
  if (!request.armed || request.point != name) return;
  static std::atomic<long> hits{0};
  if (++hits == request.hit) ::kill(::getpid(), SIGKILL);
}

}  // namespace mixerlab
