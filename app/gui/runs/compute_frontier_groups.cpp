// The Scaling tab's groups, frontiers and fits (see compute_frontier_groups.h).
#include "app/gui/runs/compute_frontier_groups.h"

#include <QMap>
#include <QStringList>

#include "app/gui/runs/run_group_names.h"
#include "app/gui/runs/run_list_model.h"
#include "core/config/train_config.h"
#include "core/runs/compute_points.h"
#include "core/runs/power_law_fit.h"

namespace mixerlab::gui {

QString frontierGroupKey(const QVariantMap& settings, widgets::FrontierGrouping grouping) {
  const QString arch = settings.value("model.arch").toString();
  switch (grouping) {
    case widgets::FrontierGrouping::Architecture:
      return arch;
    case widgets::FrontierGrouping::ArchitectureAndWidth:
      return arch + " D=" + settings.value("model.d_model").toString();
    case widgets::FrontierGrouping::AllButSeed: {
      QStringList parts;
      for (auto it = settings.begin(); it != settings.end(); ++it) {
        if (it.key() == "train.seed" || it.key() == "name" || isExecutionSetting(it.key().toStdString())) continue;
        parts << it.key() + "=" + it.value().toString();
      }
      return parts.join(';');
    }
  }
  return arch;
}

QVector<widgets::FrontierGroup> computeFrontierGroups(const RunListModel& runs, widgets::FrontierGrouping grouping,
                                                      const std::function<bool(const QString&)>& shown) {
  QMap<QString, std::vector<ComputePoint>> points;
  QMap<QString, int> run_counts;
  QMap<QString, QString> labels;       // key -> what the table shows
  QMap<QString, QString> colour_keys;  // key -> the name its colour goes by (as the Curves group of those runs)
  QStringList order;
  for (const QString& run : runs.runNames()) {
    const widgets::LossSeries* series = runs.series(run);
    if (!series || !(shown ? shown(run) : runs.isOverlaid(run)) || series->eval.isEmpty()) continue;
    const QVariantMap settings = runs.settings(run);
    // Language-model runs only: a retrieval run has no architecture and no training FLOPs.
    if (settings.value("model.arch").toString().isEmpty() || !(series->eval.back().flops > 0)) continue;
    const QString key = frontierGroupKey(settings, grouping);
    if (!points.contains(key)) {
      order << key;
      const bool by_seed = grouping == widgets::FrontierGrouping::AllButSeed;
      labels[key] = by_seed ? seedGroupName(run) : key;
      colour_keys[key] = by_seed                                               ? seedGroupName(run)
                         : grouping == widgets::FrontierGrouping::Architecture ? settingGroupName("model.arch", key)
                                                                               : key;
    }
    ++run_counts[key];
    for (const auto& p : series->eval) points[key].push_back({p.flops, p.loss, run.toStdString()});
  }
  QVector<widgets::FrontierGroup> groups;
  for (const QString& key : order) {
    widgets::FrontierGroup g;
    g.label = labels.value(key);
    g.colour_key = colour_keys.value(key);
    g.runs = run_counts.value(key);
    for (const auto& p : points[key]) g.points << QPointF(p.flops, p.loss);
    const auto frontier = paretoFrontier(points[key]);
    for (const auto& p : frontier) g.frontier << QPointF(p.flops, p.loss);
    const PowerLawFit fit = fitPowerLaw(frontier);
    g.fitted = fit.ok;
    g.problem = QString::fromStdString(fit.problem);
    g.a = fit.a;
    g.b = fit.b;
    g.c = fit.c;
    g.a_std = fit.a_std;
    g.b_std = fit.b_std;
    g.c_std = fit.c_std;
    g.rmse = fit.rmse;
    groups << g;
  }
  return groups;
}

}  // namespace mixerlab::gui
