// The one bridge between Qt's JSON (QJsonValue/QJsonObject, what the GUI holds) and nlohmann::json
// (what the core parses). Values are converted directly, without a text round trip; a number
// with an integral value becomes an integer on the nlohmann side, as the core's integer fields expect.
#pragma once
#include <QJsonObject>
#include <QJsonValue>

#include <nlohmann/json.hpp>

namespace mixerlab::gui {

nlohmann::json toNlohmann(const QJsonValue& value);
inline nlohmann::json toNlohmann(const QJsonObject& object) { return toNlohmann(QJsonValue(object)); }
QJsonValue toQtValue(const nlohmann::json& value);
// The object `value` holds; {} when it is not an object.
QJsonObject toQtObject(const nlohmann::json& value);

// Two setting values are the same: numbers by value (an integer and a double of it), anything
// else as JSON. The forms use it to leave a value at its default out of the file.
inline bool sameSettingValue(const QJsonValue& a, const QJsonValue& b) {
  return a.isDouble() && b.isDouble() ? a.toDouble() == b.toDouble() : a == b;
}

}  // namespace mixerlab::gui
