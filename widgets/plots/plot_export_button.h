// The Export button every plot view carries (Curves panels, Scaling, Inspect's charts): SVG, PNG
// and CSV of what the view draws, through one menu, one file dialog and one failure message, so
// every view exports the same three formats and a failed write is never silent.
#pragma once
#include <QString>
#include <functional>

class QCustomPlot;
class QToolButton;
class QWidget;

namespace mixerlab::widgets {

// Each writer gets a path that already ends in its format's extension and returns false on failure.
struct PlotWriters {
  std::function<bool(const QString&)> svg, png, csv;
};

// "Export" with SVG…, PNG… and CSV…; `what` names the plot in the dialog's title ("loss plot").
QToolButton* makeExportButton(QWidget* parent, const QString& what, PlotWriters writers);

// `path` with `suffix` appended when the name typed has no extension ("fig" -> "fig.png").
QString withExportSuffix(const QString& path, const char* suffix);

// Whether a figure shows the plot's own legend (in the axes' corner) when the view leaves it out on
// screen (a table or a side list names its series there).
enum class FigureLegend { AsOnScreen, Shown };

// The writers for a plain QCustomPlot view: the plot as drawn at its size (960x600 when it has
// none), and `csv_text` (what the view draws, as a table) written atomically.
PlotWriters plotWriters(QCustomPlot* plot, const QString& title, std::function<QString()> csv_text,
                        FigureLegend legend = FigureLegend::AsOnScreen);

// Puts `button` at the right end of a row above the rest of `owner`'s vertical layout.
void placeExportButton(QWidget* owner, QToolButton* button);

// Every named graph of the plot as rows "series,<x label>,<y label>" (the data as set, so nothing
// drawn is left out): the CSV of charts whose graphs hold their whole data.
QString graphsCsv(const QCustomPlot* plot);

// One CSV field: quoted when it holds a comma, a quote or a line break.
QString csvField(const QString& text);

// Writes `text` to `path` through a temporary file renamed into place; false when it cannot.
bool writeTextFile(const QString& path, const QString& text);

}  // namespace mixerlab::widgets
