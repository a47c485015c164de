// The golden check's HTML report (see golden_report.h).
#include "golden/golden_report.h"

#include "ci_report/ci_reports.h"
#include "core/atomic_file.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <ostream>

namespace skinref::golden {
namespace {

// A relative path as an href / src: each byte outside [A-Za-z0-9._~/-] percent-encoded.
std::string escape_url(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string url;
  for (unsigned char c : path) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '~' || c == '/' || c == '-';
    if (plain) {
      url += char(c);
    } else {
      url += '%';
      url += kHex[c >> 4];
      url += kHex[c & 15];
    }
  }
  return url;
}

bool failed(GoldenStatus status) {
  return status == GoldenStatus::Fail || status == GoldenStatus::Missing || status == GoldenStatus::Error;
}

void write_image_cell(std::ostream& out, const std::string& path, const std::string& label) {
  out << "<td class=\"img\">";
  if (path.empty()) {
    out << "<span class=\"none\">no " << html_escaped(label) << "</span>";
  } else {
    const std::string url = escape_url(path);
    out << "<a href=\"" << url << "\"><img src=\"" << url << "\" alt=\"" << html_escaped(label) << "\" title=\""
        << html_escaped(label) << "\"></a>";
  }
  out << "</td>";
}

constexpr const char* kStyle = R"(
body { font-family: sans-serif; font-size: 13px; margin: 1em; color: #222; }
h1 { font-size: 18px; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 4px 6px; vertical-align: top; text-align: left; }
th { background: #eee; position: sticky; top: 0; }
td.img img { width: 160px; image-rendering: pixelated; display: block; }
tr.pass td.status { background: #d8f0d8; }
tr.fail td.status, tr.missing td.status, tr.error td.status { background: #f6d0d0; font-weight: bold; }
tr.skipped td.status { background: #eee; color: #666; }
.none { color: #999; }
.small { color: #555; font-size: 12px; }
code { font-size: 12px; }
)";

// Counts the images that loaded, for a headless browser (golden_report.h).
constexpr const char* kScript = R"(
window.addEventListener('load', function () {
  var images = document.getElementsByTagName('img');
  var loaded = 0;
  for (var i = 0; i < images.length; ++i) {
    if (images[i].complete && images[i].naturalWidth > 0) ++loaded;
  }
  document.body.setAttribute('data-images-loaded', loaded + '/' + images.length);
});
)";

}  // namespace

const char* golden_status_name(GoldenStatus status) {
  switch (status) {
    case GoldenStatus::Pass: return "pass";
    case GoldenStatus::Fail: return "fail";
    case GoldenStatus::Missing: return "missing";
    case GoldenStatus::Skipped: return "skipped";
    case GoldenStatus::Error: return "error";
  }
  return "?";
}

void write_golden_report(const std::string& dir, const GoldenReport& report) {
  std::vector<const GoldenReportRow*> rows;
  for (const GoldenReportRow& row : report.rows) rows.push_back(&row);
  std::stable_partition(rows.begin(), rows.end(), [](const GoldenReportRow* row) { return failed(row->status); });
  std::map<std::string, size_t> counts;
  for (const GoldenReportRow& row : report.rows) ++counts[golden_status_name(row.status)];

  const std::string path = (std::filesystem::path(dir) / "index.html").string();
  write_file_atomically(path, [&](std::ostream& out) {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        << "<title>skinref golden check: " << html_escaped(report.backend) << "</title>\n"
        << "<style>" << kStyle << "</style>\n<script>" << kScript << "</script>\n</head>\n<body>\n";
    out << "<h1>skinref golden check: " << html_escaped(report.backend) << "</h1>\n<p>";
    bool first = true;
    for (const char* status : {"fail", "missing", "error", "pass", "skipped"}) {
      const auto found = counts.find(status);
      if (found == counts.end()) continue;
      out << (first ? "" : ", ") << found->second << " " << status;
      first = false;
    }
    out << " of " << report.rows.size() << " outputs. Goldens: <code>" << html_escaped(report.golden_dir)
        << "</code>. Command: <code>" << html_escaped(report.command) << "</code></p>\n";
    out << "<p class=\"small\">Difference images: dark grey where the pixel is within the threshold, magenta where "
           "only one image covers the pixel, else a log ramp of the largest channel difference d: blue (1), "
           "cyan (4), green (16), yellow (64), red (256). Stages: time-mapping, sampling, local-to-model, palette, morph, skinning "
           "(each against its derived bound on the GPU, exactly on the reference), then render (the image).</p>\n";
    out << "<table>\n<tr><th>case</th><th>output</th><th>backend</th><th>status</th><th>image</th>"
           "<th>vertices</th><th>first diverging stage</th><th>golden</th><th>actual</th><th>difference</th></tr>\n";
    for (const GoldenReportRow* row : rows) {
      const std::string status = golden_status_name(row->status);
      out << "<tr class=\"" << status << "\" id=\"" << html_escaped(row->case_name + "-" + row->output) << "\">";
      out << "<td><b>" << html_escaped(row->case_name) << "</b><div class=\"small\">" << html_escaped(row->model)
          << "</div><div class=\"small\">" << html_escaped(row->description) << "</div></td>";
      out << "<td>" << html_escaped(row->output) << "</td><td>" << html_escaped(row->backend) << "</td>";
      out << "<td class=\"status\">" << status;
      if (!row->message.empty()) out << "<div class=\"small\">" << html_escaped(row->message) << "</div>";
      out << "</td>";
      out << "<td>" << (row->image_metrics.empty() ? "<span class=\"none\">-</span>" : html_escaped(row->image_metrics))
          << "</td>";
      out << "<td>" << (row->vertex_metrics.empty() ? "<span class=\"none\">-</span>" : html_escaped(row->vertex_metrics))
          << "</td>";
      out << "<td>";
      if (row->stage.empty()) {
        out << "<span class=\"none\">-</span>";
      } else {
        out << "<b>" << html_escaped(row->stage) << "</b><div class=\"small\">" << html_escaped(row->location) << "</div>";
      }
      if (!row->departure.empty())
        out << "<div>explained by <b>" << html_escaped(row->departure) << "</b> (as <code>skinref diagnose</code> "
            << "names it)</div>";
      out << "</td>";
      write_image_cell(out, row->golden_image, "golden");
      write_image_cell(out, row->actual_image, "actual");
      write_image_cell(out, row->diff_image, "difference");
      out << "</tr>\n";
    }
    out << "</table>\n</body>\n</html>\n";
  });
}

}  // namespace skinref::golden
