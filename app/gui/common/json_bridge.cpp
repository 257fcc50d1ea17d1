// Qt <-> nlohmann JSON conversion (see json_bridge.h).
#include "app/gui/common/json_bridge.h"

#include <QJsonArray>
#include <cmath>
#include <limits>

namespace mixerlab::gui {

namespace {
// 2^63: doubles at or above it do not fit an int64.
constexpr double kInt64Bound = 9223372036854775808.0;

nlohmann::json numberToNlohmann(double d) {
  if (std::isfinite(d) && std::floor(d) == d && d >= -kInt64Bound && d < kInt64Bound) {
    return static_cast<std::int64_t>(d);
  }
  return d;
}
}  // namespace

nlohmann::json toNlohmann(const QJsonValue& value) {
  switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
      return nullptr;
    case QJsonValue::Bool:
      return value.toBool();
    case QJsonValue::Double: {
      // Qt keeps integers it parsed as integers; toInteger() reads them without a detour via double.
      const qint64 sentinel = std::numeric_limits<qint64>::min();
      const qint64 integer = value.toInteger(sentinel);
      if (integer != sentinel) return static_cast<std::int64_t>(integer);
      return numberToNlohmann(value.toDouble());
    }
    case QJsonValue::String:
      return value.toString().toStdString();
    case QJsonValue::Array: {
      nlohmann::json out = nlohmann::json::array();
      for (const QJsonValue& item : value.toArray()) out.push_back(toNlohmann(item));
      return out;
    }
    case QJsonValue::Object: {
      nlohmann::json out = nlohmann::json::object();
      const QJsonObject object = value.toObject();
      for (auto it = object.begin(); it != object.end(); ++it) out[it.key().toStdString()] = toNlohmann(it.value());
      return out;
    }
  }
  return nullptr;
}

QJsonValue toQtValue(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return QJsonValue::Null;
    case nlohmann::json::value_t::boolean:
      return value.get<bool>();
    case nlohmann::json::value_t::number_integer:
      return static_cast<qint64>(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      const auto u = value.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<qint64>::max())) return static_cast<qint64>(u);
      return static_cast<double>(u);
    }
    case nlohmann::json::value_t::number_float:
      return value.get<double>();
    case nlohmann::json::value_t::string:
      return QString::fromStdString(value.get<std::string>());
    case nlohmann::json::value_t::array: {
      QJsonArray out;
      for (const auto& item : value) out.append(toQtValue(item));
      return out;
    }
    case nlohmann::json::value_t::object: {
      QJsonObject out;
      for (auto it = value.begin(); it != value.end(); ++it)
        out.insert(QString::fromStdString(it.key()), toQtValue(it.value()));
      return out;
    }
    case nlohmann::json::value_t::binary:
      return QJsonValue::Null;
  }
  return QJsonValue::Null;
}

QJsonObject toQtObject(const nlohmann::json& value) {
  return value.is_object() ? toQtValue(value).toObject() : QJsonObject();
}

}  // namespace mixerlab::gui
