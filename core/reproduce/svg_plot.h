// A small line-plot renderer that writes standalone SVG text: axes with ticks (linear or log x),
// lines with optional min/max bands and markers, and a legend in its own column right of the axes
// so it never covers or shrinks them. The reproduction report inlines these in report.html, which
// then needs nothing but a browser.
#pragma once
#include <string>
#include <vector>

namespace mixerlab {

struct PlotSeries {
  std::string label;
  std::string color = "#1f77b4";
  std::vector<double> x, y;
  std::vector<double> low, high;  // a shaded band (same length as x), or empty
  bool dashed = false;
  bool markers = false;
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_x = false;
  std::vector<PlotSeries> series;
};

std::string renderSvgPlot(const PlotSpec& spec, int width = 760, int height = 380);

// Text safe inside XML/HTML elements and attribute values (& < > " escaped); report.html uses it too.
std::string escapeXml(const std::string& text);

// A colour for the n-th series (a qualitative palette).
std::string seriesColor(size_t n);

}  // namespace mixerlab
