// SVG line plots for the reproduction report (see svg_plot.h).
#include "core/reproduce/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace mixerlab {
namespace {

std::string number(double v) {
  if (std::abs(v) < 1e-12) return "0";  // a tick at -1e-17 reads 0, not -0
  char buf[32];
  if (v != 0 && (std::abs(v) >= 1e5 || std::abs(v) < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.0e", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

// About five round tick values covering [lo, hi].
std::vector<double> linearTicks(double lo, double hi) {
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

}  // namespace

std::string escapeXml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string seriesColor(size_t n) {
  static const char* palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"};
  return palette[n % (sizeof palette / sizeof palette[0])];
}

std::string renderSvgPlot(const PlotSpec& spec, int width, int height) {
  const double legend_w = 220, left = 62, right = legend_w + 16, top = 30, bottom = 46;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  auto tx = [&](double x) { return spec.log_x ? std::log10(x) : x; };
  for (const auto& s : spec.series) {
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (spec.log_x && !(s.x[i] > 0))) continue;
      x_lo = std::min(x_lo, tx(s.x[i]));
      x_hi = std::max(x_hi, tx(s.x[i]));
      y_lo = std::min(y_lo, s.low.empty() ? s.y[i] : std::min(s.y[i], s.low[i]));
      y_hi = std::max(y_hi, s.high.empty() ? s.y[i] : std::max(s.y[i], s.high[i]));
    }
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << left << "\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" << escapeXml(spec.title)
      << "</text>\n";
  if (!std::isfinite(x_lo)) {
    svg << "<text x=\"" << left << "\" y=\"" << top + plot_h / 2 << "\">no data yet</text>\n</svg>\n";
    return svg.str();
  }
  if (x_hi == x_lo) x_hi = x_lo + 1;
  const double pad = (y_hi - y_lo) * 0.05 + 1e-9;
  y_lo -= pad;
  y_hi += pad;
  auto px = [&](double x) { return left + (tx(x) - x_lo) / (x_hi - x_lo) * plot_w; };
  auto py = [&](double y) { return top + (y_hi - y) / (y_hi - y_lo) * plot_h; };
  svg << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"none\" stroke=\"#444\"/>\n";
  // y ticks
  for (double t : linearTicks(y_lo, y_hi)) {
    svg << "<line x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << py(t) << "\" y2=\"" << py(t)
        << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\"" << py(t) + 4 << "\" text-anchor=\"end\">"
        << number(t) << "</text>\n";
  }
  // x ticks (decades on a log axis)
  std::vector<double> x_ticks;
  if (spec.log_x) {
    // Decades, and 2x / 5x between them when the axis spans less than three decades.
    const bool fine = x_hi - x_lo < 3;
    for (double e = std::floor(x_lo); e <= x_hi + 1e-9; e += 1) {
      for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double t = m * std::pow(10.0, e);
        if (std::log10(t) >= x_lo - 1e-9 && std::log10(t) <= x_hi + 1e-9) x_ticks.push_back(t);
      }
    }
    if (x_ticks.size() < 2) x_ticks = {std::pow(10.0, x_lo), std::pow(10.0, x_hi)};
  } else {
    x_ticks = linearTicks(x_lo, x_hi);
  }
  for (double t : x_ticks) {
    svg << "<line x1=\"" << px(t) << "\" x2=\"" << px(t) << "\" y1=\"" << top << "\" y2=\"" << top + plot_h
        << "\" stroke=\"#eee\"/><text x=\"" << px(t) << "\" y=\"" << top + plot_h + 16 << "\" text-anchor=\"middle\">"
        << number(t) << "</text>\n";
  }
  svg << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << height - 8 << "\" text-anchor=\"middle\">"
      << escapeXml(spec.x_label) << (spec.log_x ? " (log)" : "") << "</text>\n";
  svg << "<text transform=\"translate(14," << top + plot_h / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
      << escapeXml(spec.y_label) << "</text>\n";
  // series: bands first, then lines
  for (const auto& s : spec.series) {
    if (s.low.empty() || s.x.size() < 2) continue;
    svg << "<polygon fill=\"" << s.color << "\" fill-opacity=\"0.18\" stroke=\"none\" points=\"";
    for (size_t i = 0; i < s.x.size(); ++i) svg << px(s.x[i]) << "," << py(s.high[i]) << " ";
    for (size_t i = s.x.size(); i-- > 0;) svg << px(s.x[i]) << "," << py(s.low[i]) << " ";
    svg << "\"/>\n";
  }
  for (const auto& s : spec.series) {
    svg << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.8\""
        << (s.dashed ? " stroke-dasharray=\"6,4\"" : "") << " points=\"";
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (spec.log_x && !(s.x[i] > 0))) continue;
      svg << px(s.x[i]) << "," << py(s.y[i]) << " ";
    }
    svg << "\"/>\n";
    if (s.markers) {
      for (size_t i = 0; i < s.x.size(); ++i) {
        if (!std::isfinite(s.y[i])) continue;
        svg << "<circle cx=\"" << px(s.x[i]) << "\" cy=\"" << py(s.y[i]) << "\" r=\"3\" fill=\"" << s.color << "\"/>";
      }
      svg << "\n";
    }
  }
  // legend column
  const double lx = width - legend_w;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const auto& s = spec.series[i];
    const double ly = top + 8 + 18.0 * static_cast<double>(i);
    svg << "<line x1=\"" << lx << "\" x2=\"" << lx + 22 << "\" y1=\"" << ly << "\" y2=\"" << ly << "\" stroke=\""
        << s.color << "\" stroke-width=\"2\"" << (s.dashed ? " stroke-dasharray=\"6,4\"" : "") << "/><text x=\""
        << lx + 28 << "\" y=\"" << ly + 4 << "\">" << escapeXml(s.label) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace mixerlab
