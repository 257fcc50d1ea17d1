// Every declared bound of a project file, exactly at its ends: for each integer and number field of
// the schema (project fields, run fields, every family's model keys and options), the lowest and
// the highest accepted value parse without a range error, and the next representable value beyond
// each end is refused with a message naming the field and its range. The fields come from the
// schema and the family registry, so a new field or family is covered without touching this file.
#include <QtTest/QtTest>

#include <cmath>
#include <limits>

#include "core/config/config_schema.h"
#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"
#include "tests/schema_fixtures.h"
#include "tests/test_support.h"

using namespace mixerlab;
using namespace mixerlab::testing;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Edge {
  json value;
  std::string shown;
};

// The two ends of a bounded field and the values just beyond them (ends without a limit left out).
void edgesOf(const FieldSpec& spec, std::vector<Edge>& inside, std::vector<Edge>& outside) {
  const bool integer = spec.type == FieldType::Integer;
  const double top = integer ? 9.2e18 : 1e300;  // beyond: no upper limit to test
  const auto add = [&](std::vector<Edge>& to, double v) {
    if (integer) {
      to.push_back({json(static_cast<int64_t>(v)), std::to_string(static_cast<int64_t>(v))});
    } else {
      to.push_back({json(v), json(v).dump()});
    }
  };
  if (spec.min > -top) {
    add(inside, spec.min);
    add(outside, integer ? spec.min - 1 : std::nextafter(spec.min, -INFINITY));
  }
  if (spec.max < top) {
    add(inside, spec.max);
    add(outside, integer ? spec.max + 1 : std::nextafter(spec.max, INFINITY));
  }
}

// The range as the field readers word it: "between 1 and 1048576".
std::string declaredRange(const FieldSpec& spec) {
  if (spec.type == FieldType::Number) return "between " + json(spec.min).dump() + " and " + json(spec.max).dump();
  const auto bound = [](double v) {
    return v >= 9.2e18 ? std::to_string(std::numeric_limits<int64_t>::max()) : std::to_string(static_cast<int64_t>(v));
  };
  return "between " + bound(spec.min) + " and " + bound(spec.max);
}

}  // namespace

class TestFieldBounds : public QObject {
  Q_OBJECT

  // Checks every bounded field of `specs`: run fields inside the project's one run, project fields
  // at the top level.
  void checkSpecs(const std::vector<FieldSpec>& specs, bool run_fields, int& checked) {
    for (const auto& spec : specs) {
      if (!spec.hasBounds()) continue;
      const std::string arch = run_fields ? familyFor(spec) : "masked_mixer";
      QVERIFY2(!arch.empty(), spec.key.c_str());
      const json base = baseProject(arch);
      QVERIFY2(projectError(base).empty(), projectError(base).c_str());
      std::vector<Edge> inside, outside;
      edgesOf(spec, inside, outside);
      const std::string leaf = spec.key.substr(spec.key.rfind('.') + 1);
      for (const auto& edge : inside) {
        json project = base;
        setAt(run_fields ? project["runs"][0] : project, spec.key, edge.value);
        // A field whose real limit depends on another (a bottleneck up to d_model) may refuse a
        // declared end, but never with its declared range.
        const std::string error = projectError(project);
        const std::string declared = declaredRange(spec);
        QVERIFY2(error.find(leaf + ": expected") == std::string::npos || error.find(declared) == std::string::npos,
                 (spec.key + " = " + edge.shown + " (" + arch + ") is inside its range but: " + error).c_str());
      }
      for (const auto& edge : outside) {
        json project = base;
        setAt(run_fields ? project["runs"][0] : project, spec.key, edge.value);
        const std::string error = projectError(project);
        QVERIFY2(error.find(leaf + ": expected") != std::string::npos &&
                     error.find(declaredRange(spec)) != std::string::npos,
                 (spec.key + " = " + edge.shown + " (" + arch + ") is outside its range but gave: \"" + error + "\"")
                     .c_str());
        ++checked;
      }
    }
  }

 private Q_SLOTS:
  void everyRunFieldHoldsAtItsEnds() {
    int checked = 0;
    checkSpecs(runFieldSpecs(), true, checked);
    QVERIFY2(checked > 40, qPrintable(QString::number(checked)));
  }

  void everyProjectFieldHoldsAtItsEnds() {
    int checked = 0;
    checkSpecs(projectFieldSpecs(), false, checked);
    QVERIFY2(checked >= 1, qPrintable(QString::number(checked)));
  }
};

QTEST_APPLESS_MAIN(TestFieldBounds)
#include "test_field_bounds.moc"
