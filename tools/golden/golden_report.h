// The HTML report of `skinref golden check --report DIR`: DIR/index.html, one self-contained page (inline
// style and script, no network), with the images of every output next to it in DIR (written by the check).
//
// Contract:
// - write_golden_report(dir, report): writes DIR/index.html atomically (the directory must exist). The page
//   holds a summary line (counts by status, backend, golden folder) and a table with one row per output
//   (case and time): case (with its description), model, backend, status (pass / fail / missing / skipped /
//   error), the image metrics (max channel difference and where, pixels over the threshold and their fraction
//   against the allowed one, PSNR), the vertex metrics, the first diverging stage and its location, the
//   message, and the golden, actual and difference images side by side (paths relative to DIR, links to the
//   full-size files). Failures come first, then the rest in manifest order.
// - Every text is HTML-escaped. A script run on window load sets <body data-images-loaded="N/M">: N of the M
//   <img> elements loaded (complete, naturalWidth > 0), so that a headless browser can check the page.
#pragma once

#include <string>
#include <vector>

namespace skinref::golden {

enum class GoldenStatus { Pass, Fail, Missing, Skipped, Error };

const char* golden_status_name(GoldenStatus status);  // "pass", "fail", "missing", "skipped", "error"

struct GoldenReportRow {
  std::string case_name;
  std::string description;
  std::string model;
  std::string output;  // the output stem, e.g. "t0.5"
  std::string backend;
  GoldenStatus status = GoldenStatus::Pass;
  std::string message;       // why it failed, was skipped or errored; notes for a pass
  std::string image_metrics;  // one line; empty when the image was not compared
  std::string vertex_metrics;
  std::string stage;         // the first diverging stage; empty when none
  std::string location;      // where in that stage
  std::string departure;     // the conventions that explain a failure, as diagnose names them; empty: none
  // Relative to the report folder; empty when there is no such image.
  std::string golden_image, actual_image, diff_image;
};

struct GoldenReport {
  std::string backend;     // "reference" or "vulkan (DEVICE)"
  std::string golden_dir;
  std::string command;     // the command line, for the record
  std::vector<GoldenReportRow> rows;
};

void write_golden_report(const std::string& dir, const GoldenReport& report);

}  // namespace skinref::golden
