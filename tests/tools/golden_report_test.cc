// The golden check's HTML report opens in a real browser: a report of two cases (one failing: an image of
// its golden copy altered) is loaded in headless Chromium (Debian's chromium package, installed by ./run),
// and the page's own load-time count of loaded images (golden_report.h: <body data-images-loaded="N/M">)
// must show every image loaded. Without Chromium the test fails and says how to get it.
#include "io/image_io.h"
#include "support/chromium.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

namespace fs = std::filesystem;
using test::read_bytes;
using test::write_bytes;

using namespace test::exit_codes;

using test::find_chromium;

TEST(GoldenReportTest, TheReportOpensInHeadlessChromiumWithEveryImageLoaded) {
  const std::string chromium = find_chromium();
  ASSERT_FALSE(chromium.empty()) << "chromium is not installed (not on PATH): the report test opens the golden "
                                    "report in headless Chromium; './run test' installs Debian's chromium package "
                                    "(or: apt-get install --no-install-recommends chromium)";

  const test::TempDir golden("golden"), captures("captures"), browser("browser");
  write_bytes(golden.file("manifest.json"),
              R"({"format": "skinref-golden-manifest", "version": 1, "cases": [
                   {"name": "twist-small", "model": "builtin:twist", "times": [0.5], "size": "64x64"},
                   {"name": "bend-small", "model": "builtin:bend", "times": [0.5], "size": "64x64"}]})");
  const std::string dir = golden.path().string();
  const test::CliRun update = test::run_cli(captures, {"golden", "update", "--golden-dir", dir});
  ASSERT_EQ(update.exit_code, kExitOk) << update.out << update.err;

  // bend-small fails: its golden image has a block of altered pixels.
  const std::string png = (golden.path() / "cases" / "bend-small" / "t0.5.png").string();
  RgbaImage image = read_png(png);
  for (int y = 10; y < 20; ++y) {
    for (int x = 10; x < 20; ++x) image.pixels[4 * (size_t(y) * 64 + size_t(x))] ^= 0x80;
  }
  write_png(image, png);
  const std::string report = golden.file("report");
  const test::CliRun check =
      test::run_cli(captures, {"golden", "check", "--backend", "reference", "--golden-dir", dir, "--report", report});
  ASSERT_EQ(check.exit_code, kExitFailed) << check.out << check.err;
  const fs::path index = fs::path(report) / "index.html";
  ASSERT_TRUE(fs::is_regular_file(index));

  const std::string command = test::shell_quoted(chromium) + " --headless --no-sandbox --disable-gpu --user-data-dir=" +
                              test::shell_quoted(browser.file("profile")) +
                              " --virtual-time-budget=5000 --dump-dom " + test::shell_quoted("file://" + index.string()) +
                              " >" + test::shell_quoted(browser.file("dom.html")) + " 2>" +
                              test::shell_quoted(browser.file("chromium.log"));
  const int status = std::system(command.c_str());
  const std::string dom = read_bytes(browser.file("dom.html"));
  ASSERT_EQ(status, 0) << "chromium failed: " << read_bytes(browser.file("chromium.log"));

  // Two rows, three images each (golden, actual, difference), all loaded by the browser.
  std::smatch match;
  ASSERT_TRUE(std::regex_search(dom, match, std::regex("<body[^>]*data-images-loaded=\"([0-9]+)/([0-9]+)\"")))
      << "the page's load script did not run; DOM:\n" << dom.substr(0, 2000);
  EXPECT_EQ(match[2].str(), "6");
  EXPECT_EQ(match[1].str(), match[2].str()) << "images not loaded";
  // The failing case comes first, with its stage and where.
  const size_t failing = dom.find("<tr class=\"fail\" id=\"bend-small-t0.5\">");
  const size_t passing = dom.find("<tr class=\"pass\" id=\"twist-small-t0.5\">");
  ASSERT_NE(failing, std::string::npos) << dom.substr(0, 4000);
  ASSERT_NE(passing, std::string::npos) << dom.substr(0, 4000);
  EXPECT_LT(failing, passing);
  EXPECT_NE(dom.find("<b>render</b>", failing), std::string::npos);
  EXPECT_NE(dom.find("100 pixels differ", failing), std::string::npos);
  EXPECT_NE(dom.find("src=\"bend-small/t0.5-diff.png\""), std::string::npos);
}

}  // namespace
}  // namespace skinref
