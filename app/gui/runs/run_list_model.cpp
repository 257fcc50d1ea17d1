// Per-run state behind the runs table, the plot and the comparison (see run_list_model.h).
#include "app/gui/runs/run_list_model.h"

#include "core/analysis/format.h"

#include <QColor>
#include <QJsonDocument>
#include <algorithm>

namespace mixerlab::gui {

namespace {
// "cpu (2 threads, BLAS /usr/lib/...)" -> "cpu (2 threads)": the BLAS path is in run.json.
QString shortDevice(const QString& device) {
  const int blas = device.indexOf(", BLAS");
  return blas < 0 ? device : device.left(blas) + ")";
}

// The shared formatter: 125.7 s -> "2:06", 3725 s -> "1:02:05".
QString elapsedText(double seconds) { return QString::fromStdString(formatDuration(seconds)); }

widgets::RunCurve curveOf(const widgets::LossSeries& series, const QByteArray& config_json) {
  widgets::RunCurve curve;
  curve.run = series.run;
  curve.config = QJsonDocument::fromJson(config_json).object();
  for (const auto& p : series.train)
    curve.points.push_back({p.step, p.tokens, p.wall_s, p.flops, p.loss, widgets::kNoLoss});
  for (const auto& p : series.eval)
    curve.points.push_back({p.step, p.tokens, p.wall_s, p.flops, widgets::kNoLoss, p.loss});
  std::sort(curve.points.begin(), curve.points.end(),
            [](const widgets::CurvePoint& a, const widgets::CurvePoint& b) { return a.step < b.step; });
  const QVector<widgets::LossPoint> others = series.metrics.value("other_cpu_cores");
  if (!others.isEmpty()) {
    double sum = 0;
    for (const auto& p : others) sum += p.loss;
    curve.other_cpu_cores = sum / others.size();
  }
  return curve;
}
}  // namespace

RunListModel::RunListModel(QObject* parent) : QAbstractTableModel(parent) {
  // A hyperparameter column's number format depends on every row's value: forget the formats
  // whenever rows come or go (the settings changes clear them where they happen).
  const auto forget = [this] { number_formats_.clear(); };
  connect(this, &QAbstractItemModel::rowsInserted, this, forget);
  connect(this, &QAbstractItemModel::rowsRemoved, this, forget);
  connect(this, &QAbstractItemModel::modelReset, this, forget);
}

// The format of a hyperparameter column, from the numbers its rows hold (computed once per change,
// not once per painted cell).
const ColumnNumberFormat& RunListModel::numberFormat(const QString& key) const {
  auto found = number_formats_.find(key);
  if (found == number_formats_.end()) {
    QVector<double> values;
    for (const RunRow& row : rows_) {
      const QVariant v = settingsOf(row).value(key);
      if (v.isValid() && v.typeId() != QMetaType::QString && v.typeId() != QMetaType::Bool) values << v.toDouble();
    }
    found = number_formats_.insert(key, columnNumberFormat(values));
  }
  return found.value();
}

int RunListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_.size(); }

int RunListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount + hyper_columns_.size();
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  static const QStringList kLabels = {"run",      "architecture", "status", "progress", "step", "tokens", "best eval",
                                      "tokens/s", "elapsed",      "ETA",    "device",   "tags", "notes"};
  if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
  if (role == Qt::ToolTipRole && section >= ColumnCount)
    return "setting " + hyper_columns_.value(section - ColumnCount);
  if (role == Qt::ToolTipRole && (section == Tags || section == Notes)) return QString("double-click a cell to edit");
  if (role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  if (section >= ColumnCount) return hyper_columns_.value(section - ColumnCount).section('.', -1);
  return kLabels.value(section);
}

Qt::ItemFlags RunListModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  const Qt::ItemFlags base = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.column() == Tags || index.column() == Notes) return base | Qt::ItemIsEditable;
  return index.column() == Run ? base | Qt::ItemIsUserCheckable : base;
}

const QVariantMap& RunListModel::settingsOf(const RunRow& row) const {
  return row.run_settings.isEmpty() ? row.project_settings : row.run_settings;
}

qint64 RunListModel::totalSteps(const RunRow& row) const {
  return settingsOf(row).value("train.max_steps").toLongLong();
}

namespace {
// How far through its budget a run is (steps, else tokens, else wall-clock), -1 when unknown.
double progressFraction(const QVariantMap& settings, qint64 step, qint64 tokens, double wall_s) {
  const double max_steps = settings.value("train.max_steps").toDouble();
  const double max_tokens = settings.value("train.max_tokens").toDouble();
  const double max_wall_s = settings.value("train.max_wall_s").toDouble();
  double fraction = -1;
  if (max_steps > 0) fraction = std::max(fraction, step / max_steps);
  if (max_tokens > 0) fraction = std::max(fraction, tokens / max_tokens);
  if (max_wall_s > 0) fraction = std::max(fraction, wall_s / max_wall_s);
  return fraction < 0 ? -1 : std::min(fraction, 1.0);
}
}  // namespace

QVariant RunListModel::sortValue(const RunRow& row, int column) const {
  const double fraction = progressFraction(settingsOf(row), row.step, row.tokens, row.wall_s);
  switch (column) {
    case Progress:
      return row.state == RunState::Finished ? 1.0 : fraction;
    case Step:
      return row.reported ? row.step : -1;
    case Tokens:
      return row.reported ? row.tokens : -1;
    case BestEval:
      return row.best_eval_loss >= 0 ? row.best_eval_loss : 1e300;  // runs without an eval last
    case TokensPerS:
      return row.tokens_per_s;
    case Elapsed:
      return row.wall_s;
    case Eta:
      return row.state == RunState::Running && fraction > 0 ? row.wall_s * (1 - fraction) / fraction : 1e300;
    default:
      break;
  }
  if (column >= ColumnCount) {
    const QVariant value = settingsOf(row).value(hyper_columns_.value(column - ColumnCount));
    bool numeric = false;
    const double number = value.toDouble(&numeric);
    return numeric && value.typeId() != QMetaType::QString ? QVariant(number) : QVariant(value.toString());
  }
  return displayText(row, column);
}

QVariant RunListModel::displayText(const RunRow& row, int column) const {
  switch (column) {
    case Run:
      return row.run;
    case Architecture:
      return row.arch;
    case Status: {
      const QString state = row.launch_failed ? QString("failed to start")
                            : row.state       ? QString::fromStdString(runStateName(*row.state))
                                              : QString("not started");
      return row.reason.isEmpty() ? state : state + ": " + row.reason;
    }
    case Step:
      return row.reported ? QString::number(row.step) : QString();
    case Tokens:
      return row.reported ? QString::number(row.tokens) : QString();
    case BestEval:
      return row.best_eval_loss >= 0 ? QString::fromStdString(formatLoss(row.best_eval_loss)) : QString();
    case TokensPerS:
      return row.tokens_per_s > 0 ? QString::number(row.tokens_per_s, 'f', 0) : QString();
    case Elapsed:
      return row.reported ? elapsedText(row.wall_s) : QString();
    case Device:
      return shortDevice(row.device);
    case Progress: {
      if (row.state == RunState::Finished) return QString("100%");
      const double fraction = progressFraction(settingsOf(row), row.step, row.tokens, row.wall_s);
      return fraction < 0 || !row.reported ? QString() : QString::number(int(fraction * 100)) + "%";
    }
    case Eta: {
      const double fraction = progressFraction(settingsOf(row), row.step, row.tokens, row.wall_s);
      if (row.state != RunState::Running || fraction <= 0 || row.wall_s <= 0) return QString();
      return elapsedText(row.wall_s * (1 - fraction) / fraction);
    }
    case Tags:
      return row.tags.join(", ");
    case Notes:
      return row.notes;
  }
  if (column >= ColumnCount) {
    const QString key = hyper_columns_.value(column - ColumnCount);
    const QVariant value = settingsOf(row).value(key);
    if (!value.isValid()) return QString();
    bool numeric = false;
    const double number = value.toDouble(&numeric);
    if (!numeric || value.typeId() == QMetaType::QString || value.typeId() == QMetaType::Bool) return value.toString();
    return numberFormat(key).format(number);  // the column's numbers decide the format
  }
  return {};
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size()) return {};
  const RunRow& row = rows_[index.row()];
  if (role == Qt::DisplayRole) return displayText(row, index.column());
  if (role == Qt::EditRole && (index.column() == Tags || index.column() == Notes))
    return displayText(row, index.column());
  if (role == SortRole) return sortValue(row, index.column());
  if (role == Qt::CheckStateRole && index.column() == Run) return row.overlaid ? Qt::Checked : Qt::Unchecked;
  if (role == Qt::ToolTipRole) {
    if (index.column() == Run) return QString("untick to hide this run from the plot and the comparison");
    if (index.column() == Status) return row.reason;
    if (index.column() == Device) return row.device;
    if (index.column() == Notes) return row.notes;
    if (index.column() == Architecture) return row.arch;
    if (index.column() == Eta) return QString("estimated from the run's progress so far");
  }
  // A run whose loss has diverged (a warning while it trains or after, or a stop for it) stands out.
  if (index.column() == Status && (role == Qt::BackgroundRole || role == Qt::ForegroundRole) && divergedRow(row)) {
    return role == Qt::BackgroundRole ? QVariant(QColor(255, 214, 170)) : QVariant(QColor(150, 60, 0));
  }
  return {};
}

bool RunListModel::divergedRow(const RunRow& row) {
  return row.reason.contains("diverged") &&
         (row.reason.startsWith("warning: ") || row.reason.startsWith("diverged: ") || row.state == RunState::Failed);
}

bool RunListModel::diverged(const QString& run) const {
  const int r = rowOf(run);
  return r >= 0 && divergedRow(rows_[r]);
}

bool RunListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.row() >= rows_.size()) return false;
  if (role == Qt::EditRole && (index.column() == Tags || index.column() == Notes)) {
    RunRow& row = rows_[index.row()];
    if (index.column() == Tags) {
      QStringList tags;
      for (const QString& tag : value.toString().split(',', Qt::SkipEmptyParts)) {
        if (!tag.trimmed().isEmpty() && !tags.contains(tag.trimmed())) tags << tag.trimmed();
      }
      row.tags = tags;
    } else {
      row.notes = value.toString().trimmed();
    }
    Q_EMIT dataChanged(index, index);
    Q_EMIT annotationEdited(row.run);
    return true;
  }
  if (index.column() != Run || role != Qt::CheckStateRole) return false;
  setOverlaid(rows_[index.row()].run, value.toInt() == Qt::Checked);
  return true;
}

void RunListModel::setProjectRuns(const QVector<ProjectRunSummary>& runs) {
  beginResetModel();
  rows_.clear();
  for (const auto& run : runs) {
    if (rowOf(run.name) >= 0) continue;
    RunRow row;
    row.run = row.series.run = run.name;
    row.arch = run.arch;
    rows_.push_back(row);
  }
  endResetModel();
}

void RunListModel::syncProjectRuns(const QVector<ProjectRunSummary>& runs) {
  QStringList names;
  for (const auto& run : runs) names << run.name;
  for (int r = rows_.size() - 1; r >= 0; --r) {
    if (names.contains(rows_[r].run) || !rows_[r].in_project || rows_[r].reported) continue;
    beginRemoveRows({}, r, r);
    rows_.removeAt(r);
    endRemoveRows();
  }
  for (const auto& run : runs) {
    const int r = ensureRow(run.name, run.arch, true);
    rows_[r].in_project = true;
    if (!rows_[r].reported && rows_[r].arch != run.arch) {  // once reported, run.json's architecture wins
      rows_[r].arch = run.arch;
      Q_EMIT dataChanged(index(r, Architecture), index(r, Architecture));
    }
  }
  orderLikeProject(names);
}

void RunListModel::orderLikeProject(const QStringList& project_runs) {
  QVector<RunRow> ordered;
  for (const QString& name : project_runs) {
    const int r = rowOf(name);
    if (r >= 0) ordered.push_back(rows_[r]);
  }
  for (const RunRow& row : rows_) {
    if (!project_runs.contains(row.run)) ordered.push_back(row);
  }
  QStringList order;
  for (const RunRow& row : ordered) order << row.run;
  if (order == runNames()) return;
  Q_EMIT layoutAboutToBeChanged();
  const QModelIndexList before = persistentIndexList();  // the view's selection, say
  QModelIndexList after;
  for (const QModelIndex& old_index : before)
    after << index(order.indexOf(rows_[old_index.row()].run), old_index.column());
  rows_ = ordered;
  changePersistentIndexList(before, after);
  Q_EMIT layoutChanged();
}

int RunListModel::ensureRow(const QString& run, const QString& arch, bool in_project) {
  const int existing = rowOf(run);
  if (existing >= 0) return existing;
  RunRow row;
  row.run = row.series.run = run;
  row.arch = arch;
  row.in_project = in_project;
  beginInsertRows({}, rows_.size(), rows_.size());
  rows_.push_back(row);
  endInsertRows();
  return rows_.size() - 1;
}

void RunListModel::applySnapshot(const RunSnapshot& s) {
  const int r = ensureRow(s.run, s.arch, false);
  RunRow& row = rows_[r];
  row.reported = true;
  if (!row.launch_failed || s.state != RunState::Pending) {
    row.launch_failed = false;
    row.state = s.state;
    row.reason = s.reason;
  }
  row.step = s.step;
  row.tokens = s.tokens;
  row.best_eval_loss = s.best_eval_loss;
  row.tokens_per_s = s.tokens_per_s;
  row.wall_s = s.wall_s;
  if (!s.arch.isEmpty()) row.arch = s.arch;
  row.device = s.device;
  if (!s.run_config_json.isEmpty() && s.run_config_json != row.config_json) {
    row.config_json = s.run_config_json;
    row.run_settings.clear();
    number_formats_.clear();
    const auto flat = widgets::flattenConfig(QJsonDocument::fromJson(row.config_json).object());
    for (auto it = flat.cbegin(); it != flat.cend(); ++it) row.run_settings[it.key()] = it.value().toVariant();
  }
  const widgets::LossSeries points{s.run, s.new_train, s.new_eval, s.new_metrics};
  if (s.reset) row.series.clear();
  row.series.append(points);
  Q_EMIT dataChanged(index(r, 0), index(r, columnCount() - 1), {Qt::DisplayRole, Qt::ToolTipRole});
  if (s.reset) {
    Q_EMIT seriesChanged(s.run);
  } else if (!s.new_train.isEmpty() || !s.new_eval.isEmpty() || !s.new_metrics.isEmpty()) {
    Q_EMIT pointsAppended(points);
  }
}

void RunListModel::setLaunchError(const QString& run, const QString& error) {
  const int r = ensureRow(run, QString(), false);
  RunRow& row = rows_[r];
  row.launch_failed = true;
  row.state.reset();
  row.reason = QString(error).replace('\n', ' ');
  Q_EMIT dataChanged(index(r, 0), index(r, columnCount() - 1), {Qt::DisplayRole, Qt::ToolTipRole});
}

void RunListModel::setProjectSettings(const QString& run, const QVariantMap& flattened) {
  const int r = rowOf(run);
  if (r < 0) return;
  rows_[r].project_settings = flattened;
  number_formats_.clear();
  Q_EMIT dataChanged(index(r, 0), index(r, columnCount() - 1));
}

QVariantMap RunListModel::settings(const QString& run) const {
  const int r = rowOf(run);
  return r < 0 ? QVariantMap() : settingsOf(rows_[r]);
}

void RunListModel::setHyperparameterColumns(const QStringList& keys) {
  if (keys == hyper_columns_) return;
  beginResetModel();  // columns come and go: views re-read the header
  hyper_columns_ = keys;
  endResetModel();
}

QStringList RunListModel::availableHyperparameters() const {
  QStringList keys;
  for (const RunRow& row : rows_) keys += settingsOf(row).keys();
  keys.removeDuplicates();
  keys.removeAll("name");
  keys.sort();
  return keys;
}

void RunListModel::setAnnotation(const QString& run, const QStringList& tags, const QString& notes) {
  const int r = ensureRow(run, QString(), false);
  rows_[r].tags = tags;
  rows_[r].notes = notes;
  Q_EMIT dataChanged(index(r, Tags), index(r, Notes));
}

void RunListModel::forgetRunFolder(const QString& run) {
  const int r = rowOf(run);
  if (r < 0) return;
  if (!rows_[r].in_project) {
    beginRemoveRows({}, r, r);
    rows_.removeAt(r);
    endRemoveRows();
    return;
  }
  RunRow fresh;
  fresh.run = fresh.series.run = run;
  fresh.arch = rows_[r].arch;
  fresh.overlaid = rows_[r].overlaid;
  fresh.project_settings = rows_[r].project_settings;
  fresh.tags = rows_[r].tags;
  fresh.notes = rows_[r].notes;
  rows_[r] = fresh;
  Q_EMIT dataChanged(index(r, 0), index(r, columnCount() - 1));
  Q_EMIT seriesChanged(run);
}

QStringList RunListModel::tags(const QString& run) const {
  const int r = rowOf(run);
  return r < 0 ? QStringList() : rows_[r].tags;
}

QString RunListModel::notes(const QString& run) const {
  const int r = rowOf(run);
  return r < 0 ? QString() : rows_[r].notes;
}

int RunListModel::rowOf(const QString& run) const {
  for (int r = 0; r < rows_.size(); ++r) {
    if (rows_[r].run == run) return r;
  }
  return -1;
}

QString RunListModel::runAt(int row) const { return row >= 0 && row < rows_.size() ? rows_[row].run : QString(); }

QStringList RunListModel::runNames() const {
  QStringList names;
  for (const auto& row : rows_) names << row.run;
  return names;
}

std::optional<RunState> RunListModel::state(const QString& run) const {
  const int r = rowOf(run);
  return r < 0 ? std::nullopt : rows_[r].state;
}

bool RunListModel::launchFailed(const QString& run) const {
  const int r = rowOf(run);
  return r >= 0 && rows_[r].launch_failed;
}

bool RunListModel::isOverlaid(const QString& run) const {
  const int r = rowOf(run);
  return r < 0 || rows_[r].overlaid;
}

void RunListModel::setOverlaid(const QString& run, bool overlaid) {
  const int r = rowOf(run);
  if (r < 0 || rows_[r].overlaid == overlaid) return;
  rows_[r].overlaid = overlaid;
  Q_EMIT dataChanged(index(r, Run), index(r, Run), {Qt::CheckStateRole});
  Q_EMIT overlayChanged(run, overlaid);
}

const widgets::LossSeries* RunListModel::series(const QString& run) const {
  const int r = rowOf(run);
  return r >= 0 && rows_[r].reported ? &rows_[r].series : nullptr;
}

QByteArray RunListModel::runConfigJson(const QString& run) const {
  const int r = rowOf(run);
  return r < 0 ? QByteArray() : rows_[r].config_json;
}

QVector<widgets::RunCurve> RunListModel::overlaidCurves() const {
  QVector<const RunRow*> shown;
  for (const auto& row : rows_) {
    if (row.overlaid && row.reported) shown.push_back(&row);
  }
  std::sort(shown.begin(), shown.end(), [](const RunRow* a, const RunRow* b) { return a->run < b->run; });
  QVector<widgets::RunCurve> curves;
  for (const RunRow* row : shown) {
    widgets::RunCurve curve = curveOf(row->series, row->config_json);
    if (!curve.points.isEmpty()) curves.push_back(curve);
  }
  return curves;
}

}  // namespace mixerlab::gui
