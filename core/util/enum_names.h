// One table per enum of its values and the names they have in files, reports and on the command
// line, so that printing a value and parsing a name read the same list.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace mixerlab {

template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;
};

// The name `table` gives `value`; `fallback` when the table does not list it.
template <typename Enum, std::size_t N>
std::string enumName(const EnumName<Enum> (&table)[N], Enum value, const char* fallback) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return fallback;
}

// The value `table` names `name`; nothing when no entry has that name.
template <typename Enum, std::size_t N>
std::optional<Enum> enumFromName(const EnumName<Enum> (&table)[N], const std::string& name) {
  for (const EnumName<Enum>& entry : table) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace mixerlab
