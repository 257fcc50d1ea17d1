// report.html from report.json (see report_html.h).
#include "core/reproduce/report_html.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "core/reproduce/research_claims.h"
#include "core/reproduce/svg_plot.h"

namespace mixerlab {
using json = nlohmann::json;

namespace {

constexpr double kMissingNumber = std::numeric_limits<double>::quiet_NaN();

std::string esc(const std::string& text) { return escapeXml(text); }

std::string num(const json& v, int digits = 3) {
  if (!v.is_number()) return "&ndash;";
  char buf[48];
  const double d = v.get<double>();
  if (d != 0 && (std::abs(d) >= 1e6 || std::abs(d) < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.3g", d);
  } else {
    std::snprintf(buf, sizeof buf, "%.*f", digits, d);
  }
  return buf;
}

std::string text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string spreadCell(const json& s) {
  if (!s.is_object() || s.value("count", 0) == 0) return "&ndash;";
  return num(s["mean"]) + " &plusmn; " + num(s["std"]) + " [" + num(s["min"]) + ", " + num(s["max"]) +
         "] (n=" + std::to_string(s.value("count", 0)) + ")";
}

std::vector<double> doubles(const json& a) {
  std::vector<double> v;
  for (const auto& x : a) v.push_back(x.is_number() ? x.get<double>() : NAN);
  return v;
}

std::map<std::string, std::string> groupColors(const json& report) {
  std::map<std::string, std::string> colors;
  for (const auto& g : report["groups"]) colors.emplace(text(g["label"]), seriesColor(colors.size()));
  return colors;
}

std::string lossVsFlops(const json& report) {
  PlotSpec spec{"Eval loss vs training compute (seed mean, band: min-max; dashed: power-law fit)",
                "training FLOPs",
                "eval loss",
                true,
                {}};
  const auto colors = groupColors(report);
  for (const auto& g : report["groups"]) {
    const std::string label = text(g["label"]);
    PlotSeries band{label + " (" + std::to_string(g["members"].size()) + " seeds)",
                    colors.at(label),
                    doubles(g["band"]["flops"]),
                    doubles(g["band"]["mean"]),
                    doubles(g["band"]["low"]),
                    doubles(g["band"]["high"]),
                    false,
                    true};
    if (g["members"].size() < 2) band.low.clear(), band.high.clear(), band.label = label;
    spec.series.push_back(band);
    if (g["fit"].value("ok", false) && !band.x.empty()) {
      PlotSeries fit{label + " fit", colors.at(label), {}, {}, {}, {}, true, false};
      const double a = g["fit"]["a"], b = g["fit"]["b"], c = g["fit"]["c"];
      const double lo = std::log10(band.x.front() > 0 ? band.x.front() : band.x[1]), hi = std::log10(band.x.back());
      for (int i = 0; i <= 40; ++i) {
        const double x = std::pow(10.0, lo + (hi - lo) * i / 40.0);
        fit.x.push_back(x);
        fit.y.push_back(a * std::pow(x, -b) + c);
      }
      spec.series.push_back(fit);
    }
  }
  return renderSvgPlot(spec);
}

std::string lossVsWall(const json& report) {
  PlotSpec spec{"Eval loss vs wall-clock (every run)", "training wall-clock s", "eval loss", false, {}};
  const auto colors = groupColors(report);
  std::map<std::string, bool> labelled;
  for (const auto& r : report["runs"]) {
    if (!r.contains("eval_curve")) continue;
    PlotSeries s;
    s.color = colors.count(text(r["group"])) ? colors.at(text(r["group"])) : "#444";
    s.label = text(r["name"]);
    for (const auto& p : r["eval_curve"]) {
      s.x.push_back(p["wall_s"]);
      s.y.push_back(p["eval_loss"]);
    }
    spec.series.push_back(s);
  }
  return renderSvgPlot(spec, 760, std::max(380, 60 + 18 * static_cast<int>(spec.series.size())));
}

std::string inversionPlot(const json& report) {
  PlotSpec spec{
      "Inversion: Hamming distance by layer (0 = input recovered)", "layer", "Hamming distance (top-5)", false, {}};
  size_t n = 0;
  for (const auto& r : report["inversion"]) {
    PlotSeries s;
    s.label =
        text(r["family"]) + " " + text(r["embedding_init"]) + (r["trained"].get<bool>() ? " trained" : " untrained");
    s.color = seriesColor(n / 2);
    s.dashed = !r["trained"].get<bool>();
    s.markers = true;
    ++n;
    for (const auto& l : r["layers"]) {
      s.x.push_back(l["layer"]);
      s.y.push_back(l["mean_hamming"]);
    }
    spec.series.push_back(s);
  }
  return renderSvgPlot(spec);
}

std::string retrievalPlot(const json& report) {
  PlotSpec spec{"Retrieval: held-out top-1 accuracy by epoch", "epoch", "top-1 accuracy", false, {}};
  size_t n = 0;
  double chance = NAN, last_epoch = 0;
  for (const auto& r : report["retrieval"]) {
    PlotSeries s;
    s.label = text(r["run"]) + " embeddings";
    s.color = seriesColor(n++);
    for (const auto& e : r["epochs"]) {
      s.x.push_back(e["epoch"]);
      s.y.push_back(e["top1"]);
      last_epoch = std::max(last_epoch, e["epoch"].get<double>());
    }
    chance = r.value("chance_top1", kMissingNumber);
    spec.series.push_back(s);
  }
  if (std::isfinite(chance) && last_epoch > 0)
    spec.series.push_back({"chance", "#999", {1, last_epoch}, {chance, chance}, {}, {}, true, false});
  return renderSvgPlot(spec);
}

const char* kStyle =
    "body{font-family:sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;color:#222}"
    "table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;"
    "vertical-align:top}th{background:#f3f3f3}.holds{color:#176b1a;font-weight:bold}.not{color:#a31515;"
    "font-weight:bold}.inc{color:#8a6d00;font-weight:bold}pre{background:#f7f7f7;padding:8px;overflow-x:auto;"
    "font-size:12px}.note{color:#555;font-size:13px}figure{margin:12px 0}";

std::string verdictClass(const json& claim) {
  const std::string verdict = claim.value("verdict", "");
  if (verdict == kConsistent) return "holds";
  return verdict == kContradicts ? "not" : "inc";
}

}  // namespace

ReportPage renderReportPage(const json& report) {
  ReportPage page;
  page.figures = {{"loss_vs_flops", lossVsFlops(report)},
                  {"loss_vs_wall_clock", lossVsWall(report)},
                  {"inversion_by_layer", inversionPlot(report)},
                  {"retrieval_top1", retrievalPlot(report)}};
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>MixerLab reproduction ("
    << esc(text(report["scale"])) << ")</title><style>" << kStyle << "</style></head><body>\n";
  h << "<h1>Reproducing the masked-mixer research: scale " << esc(text(report["scale"])) << "</h1>\n";
  h << "<p><b>" << esc(text(report.value("reading", json("")))) << "</b></p>\n";
  h << "<p>" << esc(text(report["summary"])) << "</p>\n";
  h << "<p class=\"note\">Generated " << esc(text(report["generated_at"])) << " by mixerlab "
    << esc(text(report["mixerlab"]["version"])) << " " << esc(text(report["mixerlab"]["commit"]))
    << ". Total time of the suite: " << num(report["timing"]["total_s"], 0) << " s. Seeds: " << report["seeds"].dump()
    << ". Hardware: " << report["hardware"]["cores"].dump() << " cores; "
    << esc(report["hardware"]["environment"].dump()) << "</p>\n";
  h << "<h2>Claims</h2>\n<table><tr><th>claim</th><th>paper</th><th>measured</th><th>verdict</th><th>rule</th>"
       "<th>runs</th></tr>\n";
  for (const auto& c : report["claims"]) {
    std::string values;
    const json paper_values = c["paper"].value("values", json::object());
    for (const auto& v : paper_values.items())
      values += v.key() + ": " + (v.value().is_number() ? num(v.value(), 3) : std::string("n/a")) + "; ";
    std::string runs;
    for (const auto& r : c.value("runs", json::array())) runs += text(r) + " ";
    h << "<tr><td><b>" << esc(text(c["id"])) << "</b><br>" << esc(text(c["title"])) << "<br><span class=\"note\">"
      << "expected: " << esc(text(c.value("expected", json(""))))
      << "; measure: " << esc(text(c.value("measure", json("")))) << "</span></td><td>"
      << esc(text(c["paper"]["statement"])) << "<br><span class=\"note\">" << esc(text(c["paper"]["source"])) << "<br>"
      << esc(values) << "</span></td><td>" << esc(text(c.value("why", ""))) << "</td><td class=\"" << verdictClass(c)
      << "\">" << esc(text(c["verdict"])) << "</td><td class=\"note\">" << esc(text(c["rule"]))
      << "</td><td class=\"note\">" << esc(runs) << "</td></tr>\n";
  }
  h << "</table>\n";
  h << "<h2>1. Loss at equal compute</h2>\n<p class=\"note\">Every equal-compute run stops at "
    << num(report["budget_flops"]) << " training FLOPs (0: the presets' wall-clock budget) with its learning rate "
    << "decaying to zero there. The paper compares at equal wall-clock on the same hardware, so each run is also "
    << "read at the shortest run's training time (" << num(report["common_wall_s"], 0) << " s), and at the fewest "
    << "steps (" << num(report.value("common_step", json(nullptr)), 0) << "). A run read at the common time may be "
    << "mid-schedule while the shortest run has finished its decay; the claims say so. Labels are read from each "
    << "run's run.json. The paper's numbers are multi-hour GPU runs on the full corpus.</p>\n";
  h << "<figure>" << page.figures[0].second << "</figure>\n<figure>" << page.figures[1].second << "</figure>\n";
  h << "<table><tr><th>group (label from run.json)</th><th>family</th><th>eval loss at "
    << num(report["common_wall_s"], 0)
    << " s wall-clock (the paper's equal compute)</th><th>min eval loss at equal FLOPs: mean &plusmn; std [min, "
       "max]</th><th>eval loss at equal steps</th>"
       "<th>final eval loss</th><th>paper row</th><th>paper eval loss</th></tr>\n";
  for (const auto& g : report["groups"]) {
    h << "<tr><td>" << esc(text(g["label"])) << "<br><span class=\"note\">"
      << esc(text(g.value("plan_group", json(""))))
      << (g.value("label_matches", true) ? ""
                                         : " &mdash; LABEL MISMATCH: " + esc(text(g.value("label_problem", json("")))))
      << "</span></td><td>" << esc(text(g["family"])) << " " << esc(text(g["embedding_init"])) << "</td><td>"
      << spreadCell(g["eval_loss_at_common_wall"]) << "</td><td>" << spreadCell(g["min_eval_loss"]) << "</td><td>"
      << spreadCell(g.value("eval_loss_at_common_step", json::object())) << "</td><td>"
      << spreadCell(g["final_eval_loss"]) << "</td><td>" << esc(text(g["paper_row"])) << "</td><td>"
      << num(g["paper_eval_loss"], 2) << "</td></tr>\n";
  }
  h << "</table>\n<h3>Loss-vs-compute frontier and power-law fits</h3>\n<p class=\"note\">Per group, the Pareto "
       "frontier of all its runs' eval points, fitted with loss = a &middot; C<sup>-b</sup> + c (standard errors from "
       "the fit's covariance).</p>\n<table><tr><th>group</th><th>frontier points</th><th>a</th><th>b</th><th>c</th>"
       "<th>rmse</th></tr>\n";
  for (const auto& g : report["groups"]) {
    const json& f = g["fit"];
    h << "<tr><td>" << esc(text(g["label"])) << "</td><td>" << g["frontier"].size() << "</td>";
    if (f.value("ok", false)) {
      h << "<td>" << num(f["a"]) << " &plusmn; " << num(f["a_std"]) << "</td><td>" << num(f["b"]) << " &plusmn; "
        << num(f["b_std"]) << "</td><td>" << num(f["c"]) << " &plusmn; " << num(f["c_std"]) << "</td><td>"
        << num(f["rmse"], 4) << "</td></tr>\n";
    } else {
      h << "<td colspan=\"4\">" << esc(text(f.value("problem", ""))) << "</td></tr>\n";
    }
  }
  h << "</table>\n<h2>2. Inversion by layer</h2>\n<p class=\"note\">" << esc(report["inversion_settings"].dump())
    << ". Dashed: untrained. The transformer's result depends on its embedding scale: N(0,0.02) (Hugging Face's "
       "Llama init) against N(0,1) (PyTorch's nn.Embedding, the mixer's).</p>\n<figure>"
    << page.figures[2].second << "</figure>\n<table><tr><th>model</th><th>init</th><th>state</th>";
  size_t max_layers = 0;
  for (const auto& r : report["inversion"]) max_layers = std::max(max_layers, r["layers"].size());
  for (size_t k = 0; k < max_layers; ++k) h << "<th>layer " << k << "</th>";
  h << "</tr>\n";
  for (const auto& r : report["inversion"]) {
    h << "<tr><td>" << esc(text(r["run"])) << "</td><td>" << esc(text(r["embedding_init"])) << "</td><td>"
      << (r["trained"].get<bool>() ? "trained" : "untrained") << "</td>";
    for (const auto& l : r["layers"]) h << "<td>" << num(l["mean_hamming"]) << "</td>";
    h << "</tr>\n";
  }
  h << "</table>\n<h2>3. Retrieval top-1</h2>\n<p class=\"note\">" << esc(report["retrieval_settings"].dump())
    << ". Best epoch = lowest held-out cross-entropy (the paper's metric). Cosine: the embeddings' cosine "
       "similarity with no retrieval model.</p>\n<figure>"
    << page.figures[3].second
    << "</figure>\n<table><tr><th>embedding model</th><th>best epoch</th><th>held-out CE</th><th>top-1</th>"
       "<th>top-5</th><th>chance top-1</th><th>cosine top-1</th></tr>\n";
  for (const auto& r : report["retrieval"]) {
    h << "<tr><td>" << esc(text(r["run"])) << "</td><td>" << text(r["best"]["epoch"]) << "</td><td>"
      << num(r["best"]["eval_loss"]) << "</td><td>" << num(r["best"]["top1"]) << "</td><td>" << num(r["best"]["top5"])
      << "</td><td>" << num(r["chance_top1"]) << "</td><td>"
      << (r.contains("cosine") ? num(r["cosine"]["top1"]) : "&ndash;") << "</td></tr>\n";
  }
  h << "</table>\n<h2>4. InfoNCE fine-tuning</h2>\n<p class=\"note\">"
    << esc(report.value("infonce_settings", json::object()).dump())
    << "</p>\n<table><tr><th>pretrained model</th><th>steps</th><th>held-out top-1</th><th>chance</th></tr>\n";
  for (const auto& r : report.value("infonce", json::array())) {
    h << "<tr><td>" << esc(text(r["run"])) << "</td><td>" << text(r.value("steps", json(0))) << "</td><td>"
      << num(r.value("final_top1", json(nullptr))) << "</td><td>" << num(r.value("chance_top1", json(nullptr)))
      << "</td></tr>\n";
  }
  h << "</table>\n<h2>Runs</h2>\n<table><tr><th>run</th><th>seed</th><th>status</th><th>steps</th><th>tokens</th>"
       "<th>FLOPs</th><th>wall s</th><th>min eval</th><th>final eval</th></tr>\n";
  for (const auto& r : report["runs"]) {
    h << "<tr><td>" << esc(text(r["name"])) << "</td><td>" << text(r["seed"]) << "</td><td>" << esc(text(r["status"]))
      << "</td><td>" << text(r.value("steps", json(0))) << "</td><td>" << text(r.value("tokens", json(0)))
      << "</td><td>" << num(r.value("flops", json(nullptr))) << "</td><td>" << num(r.value("wall_s", json(nullptr)), 0)
      << "</td><td>" << num(r.value("min_eval_loss", json(nullptr))) << "</td><td>"
      << num(r.value("final_eval_loss", json(nullptr))) << "</td></tr>\n";
  }
  h << "</table>\n<h2>Configurations and timing</h2>\n<details><summary>every run's config</summary><pre>";
  for (const auto& r : report["runs"]) {
    if (r.contains("config")) h << esc(text(r["name"])) << ": " << esc(r["config"].dump()) << "\n";
  }
  h << "</pre></details>\n<details><summary>time per step (s)</summary><pre>" << esc(report["timing"].dump(1))
    << "</pre></details>\n</body></html>\n";
  page.html = h.str();
  return page;
}

}  // namespace mixerlab
