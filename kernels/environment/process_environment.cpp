// The one reader of the process environment (see process_environment.h).
#include "kernels/environment/process_environment.h"

#include <cstdlib>

namespace mixerlab::kernels {

std::optional<std::string> environmentValue(EnvironmentVariable variable) {
  const char* value = std::getenv(environmentVariableName(variable));
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

void setEnvironmentValue(EnvironmentVariable variable, const std::string& value) {
  ::setenv(environmentVariableName(variable), value.c_str(), 1);
}

void clearEnvironmentValue(EnvironmentVariable variable) { ::unsetenv(environmentVariableName(variable)); }

}  // namespace mixerlab::kernels
