// The report card as HTML (report_card.h): the summary, the sections, the causes of both tiers, then every case,
// failures first (then passes with wrong normals), each
// failing case with the reference and the engine at its worst time side by side and their difference as a
// heat map (with its legend; a failure of normals alone drawn as normals), each departure's class linked to its
// short name below, the log linked relative to the report, and every case linked to its rule, which links to
// the specification's section.
#include "conformance/report_card.h"

#include "anim/evaluate_pose.h"
#include "ci_report/ci_reports.h"
#include "conformance/departure_classes.h"
#include "core/atomic_file.h"
#include "engine_process/safe_text.h"
#include "io/gltf_load.h"
#include "io/image_io.h"
#include "io/vertex_dump.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "skin/evaluate_vertices.h"
#include "verify/image_compare.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

namespace skinref::conformance {
namespace {

namespace fs = std::filesystem;

// The size of each of the three pictures of a failing case.
constexpr int kFigurePixels = 256;

// The published specification's anchor for a case's section (the sections the cases cite).
std::string specification_link(const std::string& section) {
  // The anchors of Specification.adoc (its [[id]] lines) and of the generated properties reference.
  static const std::vector<std::pair<std::string, std::string>> kAnchors{
      {"3.5.3", "transformations"},        {"3.6.2.1", "accessors-overview"}, {"3.6.2.3", "sparse-accessors"},
      {"3.6.2.4", "data-alignment"},       {"3.7.2.1", "meshes-overview"},    {"3.7.2.2", "morph-targets"},
      {"3.7.3.1", "skins-overview"},       {"3.7.3.2", "joint-hierarchy"},    {"3.7.3.3", "skinned-mesh-attributes"},
      {"3.7.4", "instantiation"},          {"3.11", "animations"},            {"C.1", "appendix-c-interpolation"},
      {"C.4", "interpolation-slerp"},      {"C.5", "interpolation-cubic"},    {"5.28", "reference-skin"},
      {"5.5", "reference-animation"},      {"5.8", "reference-animation-sampler"}};
  for (const auto& [prefix, anchor] : kAnchors)
    if (section.rfind(prefix, 0) == 0) return "https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html#" + anchor;
  return "https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html";
}

// An engine whose vertices reach further than this many reference radii from the reference's centre is drawn
// in the reference's frame, not the other way round: a figure framed on garbage shows the reference as a dot.
constexpr double kFarOutRadii = 10.0;

struct Box {
  Vec3 low = Vec3::Constant(std::numeric_limits<double>::infinity()), high = -low;
  void add(const std::vector<WorldPrimitive>& set) {
    for (const WorldPrimitive& p : set)
      for (const Vec3& v : p.vertices.positions)
        if (v.allFinite()) low = low.cwiseMin(v), high = high.cwiseMax(v);
  }
  Vec3 centre() const { return 0.5 * (low + high); }
  double radius() const { return std::max(0.5 * (high - low).norm(), 1e-3); }
};

RenderCamera camera_on(const Box& box) {
  constexpr double kFovDegrees = 40.0;
  const double distance = 1.2 * box.radius() / std::tan(0.5 * kFovDegrees * 3.14159265358979323846 / 180.0);
  return look_at_camera(box.centre() + distance * kAutoCameraDirection, box.centre(), kFovDegrees, 1.0);
}

// A camera from skinref's usual direction that frames both sets, or the reference alone when the engine's
// vertices are far out (then `note` says how far).
RenderCamera framing_camera(const std::vector<WorldPrimitive>& reference, const std::vector<WorldPrimitive>& engine,
                            std::string& note) {
  Box ref, both;
  ref.add(reference);
  both.add(reference);
  both.add(engine);
  const double reach = std::max((both.low - ref.centre()).norm(), (both.high - ref.centre()).norm());
  if (reach <= kFarOutRadii * ref.radius()) return camera_on(both);
  std::ostringstream text;
  text << std::setprecision(3) << "framed on the reference: the engine's vertices reach " << reach
       << " from its centre, " << reach / ref.radius() << " times its radius";
  note = text.str();
  return camera_on(ref);
}

// images/ID.png: the reference, the engine and their difference at the worst time; "" when it cannot be drawn
// (then the page says why).
// A case that fails the specification is drawn at its worst time; one whose normals alone are wrong, at theirs.
struct FigureAt {
  double time = 0.0;
  std::string dump;
  std::string attribute;
};

FigureAt figure_at(const CaseVerdict& v) {
  if (only_normals_wrong(v)) return {v.geometry.worst_time, v.geometry.worst_dump, v.geometry.worst_attribute};
  return {v.worst_time, v.worst_dump, v.worst_attribute};
}

std::string write_figure(const CaseVerdict& v, const std::string& dir, std::string& why_not, std::string& note) {
  const FigureAt at = figure_at(v);
  try {
    const Scene scene = load_gltf_file(v.model);
    const EvaluatedPose pose = evaluate_pose(scene, scene.animations.empty() ? -1 : 0, at.time);
    SkinningOptions options;
    options.method = v.definition->method;
    const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, options);
    const VertexDump engine = read_vertices_skv(at.dump);
    const RenderCamera camera = framing_camera(reference, engine.primitives, note);
    RenderOptions render;
    render.width = render.height = kFigurePixels;
    // A failure of normals or tangents alone leaves the silhouette and, under soft light, the shading nearly as
    // the reference's: the pictures show the normals as colours instead, where it is plain.
    if (at.attribute != "position") {
      render.view = RenderView::Normals;
      note += std::string(note.empty() ? "" : "; ") + "normals drawn as colours (the failure is in the " +
              at.attribute + "s)";
    }
    const RgbaImage ref_image = render_scene(scene, pose, reference, camera, render).image;
    const RgbaImage engine_image = render_scene(scene, pose, engine.primitives, camera, render).image;
    const RgbaImage figures[] = {ref_image, engine_image, difference_heat_map(ref_image, engine_image)};
    const std::string relative = "images/" + v.definition->id + ".png";
    fs::create_directories(fs::path(dir) / "images");
    write_png(side_by_side(figures), (fs::path(dir) / relative).string());
    return relative;
  } catch (const std::exception& e) {
    why_not = e.what();
    return "";
  }
}

constexpr const char* kStyle = R"(
body { font-family: sans-serif; font-size: 13px; margin: 1em; color: #222; max-width: 1100px; }
h1 { font-size: 18px; } h2 { font-size: 15px; margin-top: 1.5em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 4px 6px; vertical-align: top; text-align: left; }
th { background: #eee; }
tr.pass td.outcome { background: #d8f0d8; }
tr.fail td.outcome, tr.crash td.outcome, tr.refused td.outcome, tr.bad-output td.outcome,
tr.input-changed td.outcome { background: #f6d0d0; font-weight: bold; }
tr.not-run td.outcome { background: #eeeeee; }
td.normals-wrong { background: #f8e4c0; }
.figure img { display: block; margin: 4px 0; max-width: 100%; height: auto; }
.small { color: #555; font-size: 12px; }
blockquote { margin: 2px 0 8px 1em; color: #333; }
.ramp { display: inline-block; width: 120px; height: 10px; vertical-align: middle;
        background: linear-gradient(to right, #0000ff, #00ffff, #00ff00, #ffff00, #ff0000); }
)";

// What the three pictures of a failing case show, and the difference's colours (verify/image_compare.h's ramp).
constexpr const char* kFigureLegend = R"(<p class="small legend">Each failing case shows three pictures at its worst
time, one camera for all: the reference, the engine, and their difference. In the difference, a pixel where the
two images agree is a dark grey copy of the reference; a pixel that differs takes the colour of how much, on a
logarithmic ramp over 8-bit steps: <span class="ramp"></span> blue 1, cyan 4, green 16, yellow 64, red 256;
magenta where only one image covers the pixel.</p>
)";

// Counts the images that loaded, for a headless browser (the tests read the attribute).
constexpr const char* kScript = R"(
window.addEventListener('load', function () {
  var images = document.getElementsByTagName('img');
  var loaded = 0;
  for (var i = 0; i < images.length; ++i) if (images[i].complete && images[i].naturalWidth > 0) ++loaded;
  document.body.setAttribute('data-images-loaded', loaded + '/' + images.length);
});
)";

std::string outcome_class(CaseOutcome outcome) {
  std::string name = case_outcome_name(outcome);
  std::replace(name.begin(), name.end(), ' ', '-');
  return name;
}

void write_sections(const std::vector<CaseVerdict>& verdicts, std::ostream& out) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<int, int>> counts;
  for (const CaseVerdict& v : verdicts) {
    if (!counts.count(v.definition->section)) order.push_back(v.definition->section);
    counts[v.definition->section].first += 1;
    counts[v.definition->section].second += v.outcome == CaseOutcome::Passed;
  }
  out << "<h2>By section</h2>\n<table><tr><th>section</th><th>cases</th><th>pass</th></tr>\n";
  for (const std::string& s : order)
    out << "<tr><td><a href=\"" << specification_link(s) << "\">" << html_escaped(s) << "</a></td><td>"
        << counts[s].first << "</td><td>" << counts[s].second << "</td></tr>\n";
  out << "</table>\n";
}

// The departure as HTML, each class code linked to its line in the report's list of classes.
std::string departure_html(const std::string& departure) {
  const std::vector<std::string> codes = class_codes_in(departure);
  if (codes.empty()) return html_escaped(departure);
  std::string html;
  for (const std::string& code : codes)
    html += (html.empty() ? "" : ", ") + std::string("<a href=\"#class-") + code + "\" title=\"" +
            html_escaped(departure_class_title(code)) + "\">" + code + "</a>";
  return html + html_escaped(departure.substr(departure.find(':')));
}

// Each cause, once, its cases linked to their rows.
void write_cause_list(const std::vector<Cause>& causes, const std::string& heading, const std::string& lead,
                      std::ostream& out) {
  if (causes.empty()) return;
  out << "<h2>" << heading << "</h2>\n<p class=\"small\">" << causes.size() << (causes.size() == 1 ? " cause " : " causes ")
      << lead << ", each once.</p>\n<ul>\n";
  for (const Cause& c : causes) {
    out << "<li><b>" << departure_html(c.name) << "</b> (" << c.cases.size() << "):";
    for (size_t i = 0; i < c.cases.size(); ++i)
      out << (i ? ", " : " ") << "<a href=\"#" << c.cases[i] << "\">" << c.cases[i] << "</a>";
    out << "</li>\n";
  }
  out << "</ul>\n";
}

void write_causes(const std::vector<CaseVerdict>& verdicts, std::ostream& out) {
  write_cause_list(causes_of(verdicts), "Causes", "behind the cases that did not pass", out);
  write_cause_list(normals_causes_of(verdicts), "Normals wrong where the positions pass",
                   "behind wrong normals in cases that pass the specification (the geometry tier: glTF 2.0 does not "
                   "say how normals transform)",
                   out);
}

// The classes the report's departures name, each with its anchor and short name.
void write_classes(const std::vector<CaseVerdict>& verdicts, std::ostream& out) {
  std::vector<std::string> used;
  for (const CaseVerdict& v : verdicts)
    for (const std::string* departure : {&v.departure, &v.geometry.departure})
      for (const std::string& code : class_codes_in(*departure))
        if (std::find(used.begin(), used.end(), code) == used.end()) used.push_back(code);
  if (used.empty()) return;
  std::sort(used.begin(), used.end());
  out << "<h2>Departure classes</h2>\n<p class=\"small\">The kinds of departure from glTF 2.0 that engines shipped, "
         "as this report names them; skinref's docs/departure-classes.md explains each and the cases that plant it."
         "</p>\n<ul>\n";
  for (const std::string& code : used)
    out << "<li id=\"class-" << code << "\"><b>" << code << "</b>: " << html_escaped(departure_class_title(code))
        << "</li>\n";
  out << "</ul>\n";
}

// The detail as HTML, its "(log: PATH)" a link relative to the report's folder, so that the report and its run
// folder can be moved together.
std::string detail_html(const std::string& detail, const std::string& dir) {
  const std::string marker = "(log: ";
  const size_t at = detail.find(marker);
  const size_t end = at == std::string::npos ? std::string::npos : detail.find(')', at);
  if (end == std::string::npos) return html_escaped(detail);
  const std::string log = detail.substr(at + marker.size(), end - at - marker.size());
  std::error_code error;
  const std::string relative = fs::relative(log, fs::absolute(dir), error).generic_string();
  const std::string href = error || relative.empty() ? log : relative;
  return html_escaped(detail.substr(0, at)) + "(log: <a href=\"" + html_escaped(href) + "\">" +
         html_escaped(href) + "</a>)" + html_escaped(detail.substr(end + 1));
}

void write_case_row(const CaseVerdict& v, const std::string& figure, const std::string& why_not,
                    const std::string& note, const std::string& dir, std::ostream& out) {
  const std::string& id = v.definition->id;
  out << "<tr class=\"" << outcome_class(v.outcome) << "\" id=\"" << id << "\"><td><a href=\"#rule-" << id << "\">"
      << id << "</a><div class=\"small\">" << html_escaped(v.definition->title) << "</div></td><td class=\"outcome\">"
      << case_outcome_name(v.outcome) << "</td><td>";
  if (v.outcome == CaseOutcome::Passed || v.outcome == CaseOutcome::Failed)
    out << std::setprecision(3) << v.margin;
  out << "</td><td" << (v.geometry.outcome == GeometryOutcome::Wrong ? " class=\"normals-wrong\"" : "") << ">";
  if (v.geometry.outcome == GeometryOutcome::Wrong)
    out << "wrong" << (v.geometry.departure.empty() ? "" : ": " + departure_html(v.geometry.departure))
        << "<div class=\"small\">" << html_escaped(v.geometry.detail) << "</div>";
  else
    out << html_escaped(normals_text(v, false));
  out << "</td><td>" << departure_html(v.departure) << "<div class=\"small\">" << detail_html(v.detail, dir) << "</div>";
  const double time = only_normals_wrong(v) ? v.geometry.worst_time : v.worst_time;
  if (!figure.empty())
    out << "<div class=\"figure\"><img src=\"" << figure << "\" alt=\"reference | engine | difference at t = "
        << time << "\"><span class=\"small\">reference | engine | difference, t = " << time
        << " s" << (note.empty() ? "" : "; " + html_escaped(note)) << "</span></div>";
  else if (!why_not.empty())
    out << "<div class=\"small\">no picture: " << html_escaped(why_not) << "</div>";
  out << "</td></tr>\n";
}

}  // namespace

void write_report_html(const RunRecord& run, const std::vector<CaseVerdict>& verdicts, const std::string& dir,
                       const EngineProfile& profile) {
  std::vector<const CaseVerdict*> order;
  for (const CaseVerdict& v : verdicts) order.push_back(&v);
  std::stable_sort(order.begin(), order.end(),
                   [](const CaseVerdict* a, const CaseVerdict* b) { return failures_rank(*a) < failures_rank(*b); });
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>skinref conformance: "
      << html_escaped(engine_process::safe_text(run.engine.name)) << "</title>\n<style>" << kStyle << "</style>\n<script>" << kScript
      << "</script></head>\n<body>\n<h1>" << html_escaped(summary_line(run, verdicts)) << "</h1>\n"
      << (profile.empty() ? std::string() : "<p class=\"profile\">" + html_escaped(profile_line(profile)) + "</p>\n")
      << "<p class=\"small\">skinref's glTF 2.0 conformance suite: skins, animation and morph targets, every value "
         "held to the bounds of a correct float32 engine. Engine command: <code>"
      << html_escaped(engine_process::safe_text(
             run.engine.query_command.empty() ? run.engine.batch_command : run.engine.query_command, 4000))
      << "</code></p>\n";
  write_sections(verdicts, out);
  write_causes(verdicts, out);
  out << "<h2>Cases, failures first</h2>\n" << kFigureLegend
      << "<table><tr><th>case</th><th>outcome</th><th>error/bound</th><th>normals</th><th>departure</th></tr>\n";
  for (const CaseVerdict* v : order) {
    std::string why_not, note;
    const bool drawn = v->outcome == CaseOutcome::Failed || only_normals_wrong(*v);
    const std::string figure = drawn ? write_figure(*v, dir, why_not, note) : "";
    write_case_row(*v, figure, why_not, note, dir, out);
  }
  out << "</table>\n";
  write_classes(verdicts, out);
  out << "<h2>Rules</h2>\n";
  for (const CaseVerdict& v : verdicts) {
    out << "<p id=\"rule-" << v.definition->id << "\"><b>" << v.definition->id << "</b>: ";
    if (only_normals_wrong(v))
      out << "normals, the geometry tier (glTF 2.0 is silent)<blockquote>" << html_escaped(kGeometryRule)
          << "</blockquote>positions: ";
    out << "<a href=\"" << specification_link(v.definition->section) << "\">" << html_escaped(v.definition->section)
        << "</a><blockquote>" << html_escaped(v.definition->rule) << "</blockquote></p>\n";
  }
  out << "</body></html>\n";
  const std::string page = out.str();
  write_file_atomically((fs::path(dir) / "report.html").string(), [&page](std::ostream& o) { o << page; });
}

}  // namespace skinref::conformance
