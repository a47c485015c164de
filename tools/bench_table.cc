// skinref_bench_table BENCH.json [--out FILE.md]: the Markdown summary of a skinref_bench run (Google
// Benchmark's JSON output, --benchmark_out=FILE --benchmark_out_format=json), written to FILE.md (atomically)
// or to stdout.
//
// Contract:
// - Per benchmark (its run_name, the name without Google Benchmark's "/manual_time", "/real_time",
//   "/iterations:N", "/min_time:S", "/repeats:N", "/threads:N" components) the figure used is its "median"
//   aggregate (--benchmark_repetitions); without one, its single run; with several runs and no aggregate,
//   the run of median real_time (the lower one of an even count). A benchmark whose runs all failed
//   (error_occurred) shows as "skipped (its error_message)"; one that is absent from the file as "-".
// - Sections: the machine (host, CPUs, MHz, caches, the skinning kernels, the Vulkan device; from the
//   file's "context"), the copy bandwidths (BM_Copy/<backend>, counter bytes/s, in GB/s = 10^9 bytes/s),
//   skinning (BM_Skin/<backend>/<method>/vertices:N/influences:K; rows method x vertices x influences, a
//   cell per backend "M vertices/s (fraction_of_bandwidth)", and the ratio cpu_1t / reference of
//   vertices/s), animation (BM_Animation/joints:N, items_per_second = poses/s), rendering
//   (BM_Render/<model>/<W>x<H>/<renderer>, items_per_second = frames/s, and reference_1t time / vulkan
//   time), and any other benchmark by name with its time. bench/bench_common.h names these benchmarks.
// - Exit 0 on success. Bad usage or input (no such file, not JSON, not a Google Benchmark file, a known
//   benchmark without the counter its table needs, an unwritable --out) exits 2 with one stderr line naming
//   the file, the JSON pointer where there is one, and what was expected; nothing is written.
#include "core/atomic_file.h"
#include "skin/method.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using nlohmann::json;
using skinref::parse_skinning_method;
using skinref::skinning_method_name;
using skinref::SkinningMethod;

constexpr const char* kExpected = "a Google Benchmark JSON file (skinref_bench --benchmark_out=FILE "
                                  "--benchmark_out_format=json)";

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- reading ------------------------------------------------------------------------------------------------

// The figure chosen for one benchmark, or why it was skipped.
struct Result {
  const json* run = nullptr;  // null: skipped
  std::string skipped;        // the error message when run is null
  std::string pointer;        // where the run is in the file, for messages
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

// The name without the components Google Benchmark appends for options.
std::string base_name(const std::string& name) {
  std::string base;
  for (const std::string& part : split(name, '/')) {
    if (part == "manual_time" || part == "real_time" || part.rfind("iterations:", 0) == 0 ||
        part.rfind("min_time:", 0) == 0 || part.rfind("min_warmup_time:", 0) == 0 || part.rfind("repeats:", 0) == 0 ||
        part.rfind("threads:", 0) == 0)
      continue;
    base += (base.empty() ? "" : "/") + part;
  }
  return base;
}

struct Collected {
  std::optional<size_t> median;
  std::vector<size_t> runs;  // iteration runs without error
  std::string error;         // the first error message
  bool errored = false;
};

class BenchFile {
 public:
  BenchFile(const std::string& path, json document) : path_(path), document_(std::move(document)) {
    if (!document_.is_object()) fail("", "a JSON object with \"context\" and \"benchmarks\": " + std::string(kExpected));
    if (!document_.contains("context") || !document_["context"].is_object())
      fail("/context", std::string("an object (the run's machine): ") + kExpected);
    if (!document_.contains("benchmarks") || !document_["benchmarks"].is_array())
      fail("/benchmarks", std::string("an array of runs: ") + kExpected);
    const json& runs = document_["benchmarks"];
    for (size_t i = 0; i < runs.size(); ++i) {
      const json& run = runs[i];
      const std::string pointer = "/benchmarks/" + std::to_string(i);
      if (!run.is_object() || !run.contains("name") || !run["name"].is_string())
        fail(pointer, "a run object with a string \"name\"");
      std::string name = run.value("run_name", run["name"].get<std::string>());
      const std::string run_type = run.value("run_type", "iteration");
      if (run_type == "aggregate") {
        const std::string aggregate = run.value("aggregate_name", "");
        if (!run.contains("run_name") && name.ends_with("_" + aggregate))
          name.resize(name.size() - aggregate.size() - 1);
        Collected& entry = collect(base_name(name));
        if (aggregate == "median" && !run.value("error_occurred", false)) entry.median = i;
        continue;
      }
      Collected& entry = collect(base_name(name));
      if (run.value("error_occurred", false)) {
        if (!entry.errored) entry.error = run.value("error_message", "no reason given");
        entry.errored = true;
      } else {
        entry.runs.push_back(i);
      }
    }
  }

  const std::string& path() const { return path_; }
  const json& context() const { return document_["context"]; }
  const std::vector<std::string>& names() const { return order_; }

  // The chosen figure of `name`, or nullopt when the file has no such benchmark.
  std::optional<Result> find(const std::string& name) const {
    const auto it = collected_.find(name);
    if (it == collected_.end()) return std::nullopt;
    const Collected& entry = it->second;
    const json& runs = document_["benchmarks"];
    Result result;
    if (entry.median) {
      result.run = &runs[*entry.median];
      result.pointer = "/benchmarks/" + std::to_string(*entry.median);
    } else if (!entry.runs.empty()) {
      std::vector<size_t> sorted = entry.runs;
      std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
        return number(runs[a], "real_time", a) < number(runs[b], "real_time", b);
      });
      const size_t chosen = sorted[(sorted.size() - 1) / 2];
      result.run = &runs[chosen];
      result.pointer = "/benchmarks/" + std::to_string(chosen);
    } else {
      result.skipped = entry.errored ? entry.error : "no result";
    }
    return result;
  }

  // A number field of a run (a counter, real_time, items_per_second); a missing one is bad input.
  double number(const json& run, const std::string& key, std::optional<size_t> index = std::nullopt) const {
    if (!run.contains(key) || !run[key].is_number()) {
      const std::string name = run.value("name", std::string("?"));
      fail(index ? "/benchmarks/" + std::to_string(*index) : pointer_of(run),
           "a number \"" + key + "\" in the results of " + name);
    }
    return run[key].get<double>();
  }

  [[noreturn]] void fail(const std::string& pointer, const std::string& expected) const {
    throw BadInput(path_ + ": " + (pointer.empty() ? "" : pointer + ": ") + "expected " + expected);
  }

 private:
  Collected& collect(const std::string& name) {
    auto [it, inserted] = collected_.try_emplace(name);
    if (inserted) order_.push_back(name);
    return it->second;
  }

  std::string pointer_of(const json& run) const {
    const json& runs = document_["benchmarks"];
    for (size_t i = 0; i < runs.size(); ++i)
      if (&runs[i] == &run) return "/benchmarks/" + std::to_string(i);
    return "/benchmarks";
  }

  std::string path_;
  json document_;
  std::map<std::string, Collected> collected_;
  std::vector<std::string> order_;
};

BenchFile read_bench_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput(path + ": cannot open the file; expected " + kExpected);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw BadInput(path + ": cannot read the file; expected " + kExpected);
  json document;
  try {
    document = json::parse(bytes.str());
  } catch (const json::parse_error& error) {
    throw BadInput(path + ": not JSON (" + error.what() + "); expected " + kExpected);
  }
  return BenchFile(path, std::move(document));
}

// ---- formatting ---------------------------------------------------------------------------------------------

// `digits` significant digits, without exponent for the magnitudes these tables hold.
std::string significant(double value, int digits) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0.0) return "0";
  const int magnitude = int(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::max(0, digits - 1 - magnitude);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

// A Markdown table cell: no '|' or line breaks.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string skipped(const Result& result) { return cell("skipped (" + result.skipped + ")"); }

std::string upper_case(std::string text) {
  for (char& c : text) c = char(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string count_name(long long count) {
  if (count >= 1'000'000 && count % 1'000'000 == 0) return std::to_string(count / 1'000'000) + "M";
  if (count >= 1'000 && count % 1'000 == 0) return std::to_string(count / 1'000) + "k";
  return std::to_string(count);
}

std::string bytes_name(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int unit = 0;
  while (unit < 3 && bytes >= 1024.0 && std::fmod(bytes, 1024.0) == 0.0) {
    bytes /= 1024.0;
    ++unit;
  }
  return (std::fmod(bytes, 1.0) == 0.0 ? std::to_string(static_cast<long long>(bytes)) : significant(bytes, 3)) + " " +
         units[unit];
}

std::string context_string(const json& context, const std::string& key) {
  if (!context.contains(key)) return "";
  const json& value = context[key];
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

void write_machine(std::ostream& out, const BenchFile& file) {
  const json& context = file.context();
  out << "## Machine\n\n";
  out << "| | |\n|---|---|\n";
  const auto row = [&](const std::string& what, const std::string& value) {
    if (!value.empty()) out << "| " << what << " | " << cell(value) << " |\n";
  };
  row("host", context_string(context, "host_name"));
  row("source", context_string(context, "skinref_source"));
  row("CPU model", context_string(context, "skinref_cpu_model"));
  row("kernel", context_string(context, "skinref_os_kernel"));
  std::string cpus = context_string(context, "num_cpus");
  if (context.contains("mhz_per_cpu") && context["mhz_per_cpu"].is_number())
    cpus += (cpus.empty() ? "" : " at ") + fixed(context["mhz_per_cpu"].get<double>(), 0) + " MHz";
  row("CPUs", cpus);
  if (context.contains("caches") && context["caches"].is_array()) {
    std::string caches;
    for (const json& cache : context["caches"]) {
      if (!cache.is_object()) continue;
      std::string entry = "L" + context_string(cache, "level") + " " + context_string(cache, "type");
      if (cache.contains("size") && cache["size"].is_number()) entry += " " + bytes_name(cache["size"].get<double>());
      if (cache.contains("num_sharing") && cache["num_sharing"].is_number() && cache["num_sharing"].get<double>() > 1)
        entry += " (shared by " + context_string(cache, "num_sharing") + ")";
      caches += (caches.empty() ? "" : ", ") + entry;
    }
    row("caches", caches);
  }
  row("reference kernel", context_string(context, "skinref_reference_kernel"));
  row("CPU backend kernel", context_string(context, "skinref_cpu_kernel"));
  row("kernel choice", context_string(context, "skinref_kernel_choice"));
  row("DQS block schedule", context_string(context, "skinref_dqs_schedule"));
  row("all threads", context_string(context, "skinref_all_threads"));
  row("Vulkan device", context_string(context, "skinref_vulkan_device"));
  row("date", context_string(context, "date"));
  if (context.contains("cpu_scaling_enabled") && context["cpu_scaling_enabled"].is_boolean())
    row("CPU frequency scaling", context["cpu_scaling_enabled"].get<bool>() ? "enabled (figures may vary)" : "disabled");
  row("load average", context.contains("load_avg") ? context["load_avg"].dump() : "");
  out << "\n";
}

// ---- sections -----------------------------------------------------------------------------------------------

const char* const kSkinBackends[] = {"reference", "cpu_1t", "cpu_all", "vulkan_device", "vulkan_e2e"};
// A column of its own, shown when the run has it (skinref_bench --shader).
const char* const kUserShaderBackend = "user_shader_device";
const char* const kCopyBackends[] = {"cpu_1t", "cpu_all", "vulkan"};
const char* const kRenderers[] = {"reference_1t", "reference_all", "vulkan"};

std::optional<long long> numbered(const std::string& part, const std::string& prefix) {
  if (part.rfind(prefix, 0) != 0) return std::nullopt;
  const std::string digits = part.substr(prefix.size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(digits);
}

struct Names {
  // (method index, vertices, influences)
  std::vector<std::tuple<SkinningMethod, long long, long long>> skin_rows;
  bool any_user_shader = false;
  std::vector<long long> animation_joints;
  std::vector<std::pair<std::string, std::string>> render_rows;  // (model, size), in file order
  std::vector<std::string> other;
  bool any_copy = false;
  bool any_kernel_study = false;
};

Names classify(const BenchFile& file) {
  Names names;
  for (const std::string& name : file.names()) {
    const std::vector<std::string> parts = split(name, '/');
    if (parts.size() == 2 && parts[0] == "BM_Copy" &&
        std::find(std::begin(kCopyBackends), std::end(kCopyBackends), parts[1]) != std::end(kCopyBackends)) {
      names.any_copy = true;
      continue;
    }
    const std::optional<SkinningMethod> method = parts.size() == 5 ? parse_skinning_method(parts[2]) : std::nullopt;
    const bool user_shader = parts.size() == 5 && parts[1] == kUserShaderBackend;
    if (parts.size() == 5 && parts[0] == "BM_Skin" && method &&
        (user_shader ||
         std::find(std::begin(kSkinBackends), std::end(kSkinBackends), parts[1]) != std::end(kSkinBackends))) {
      names.any_user_shader |= user_shader;
      const auto vertices = numbered(parts[3], "vertices:");
      const auto influences = numbered(parts[4], "influences:");
      if (vertices && influences) {
        const auto row = std::make_tuple(*method, *vertices, *influences);
        if (std::find(names.skin_rows.begin(), names.skin_rows.end(), row) == names.skin_rows.end())
          names.skin_rows.push_back(row);
        continue;
      }
    }
    if (parts.size() >= 5 && parts.size() <= 7 && parts[0] == "BM_SkinKernel") {
      names.any_kernel_study = true;
      continue;
    }
    if (parts.size() == 2 && (parts[0] == "BM_Animation" || parts[0] == "BM_AnimationClip")) {
      if (const auto joints = numbered(parts[1], "joints:")) {
        if (std::find(names.animation_joints.begin(), names.animation_joints.end(), *joints) ==
            names.animation_joints.end())
          names.animation_joints.push_back(*joints);
        continue;
      }
    }
    if (parts.size() == 4 && parts[0] == "BM_Render" &&
        std::find(std::begin(kRenderers), std::end(kRenderers), parts[3]) != std::end(kRenderers)) {
      const auto row = std::make_pair(parts[1], parts[2]);
      if (std::find(names.render_rows.begin(), names.render_rows.end(), row) == names.render_rows.end())
        names.render_rows.push_back(row);
      continue;
    }
    names.other.push_back(name);
  }
  std::sort(names.skin_rows.begin(), names.skin_rows.end());
  std::sort(names.animation_joints.begin(), names.animation_joints.end());
  return names;
}

// real_time in its time_unit as text, e.g. "14.7 ms".
std::string time_text(const BenchFile& file, const json& run) {
  return significant(file.number(run, "real_time"), 3) + " " + run.value("time_unit", std::string("ns"));
}

void write_copies(std::ostream& out, const BenchFile& file) {
  out << "## Copy bandwidth (the limit each skinning figure is compared with)\n\n"
      << "Read + write bytes per second of a plain copy, GB = 10^9 bytes. cpu_all cases are compared with the "
         "larger of the two CPU figures (all threads can always copy what one does).\n\n"
      << "| copy | GB/s |\n|---|---|\n";
  const std::pair<const char*, const char*> rows[] = {
      {"cpu_1t", "CPU copy, 1 thread (reference, cpu_1t)"},
      {"cpu_all", "CPU copy, all threads (cpu_all)"},
      {"vulkan", "Vulkan, device time, the faster of vkCmdCopyBuffer and a compute shader (vulkan_device, vulkan_e2e)"}};
  for (const auto& [backend, what] : rows) {
    const std::optional<Result> result = file.find(std::string("BM_Copy/") + backend);
    std::string value = "-";
    if (result && result->run) value = fixed(file.number(*result->run, "bytes/s") * 1e-9, 1);
    if (result && !result->run) value = skipped(*result);
    out << "| " << what << " | " << value << " |\n";
  }
  out << "\n";
}

void write_skinning(std::ostream& out, const BenchFile& file, const Names& names) {
  out << "## Skinning\n\n"
      << "M vertices/s (fraction of the copy bandwidth above: bytes moved per second / copy bytes per second). "
         "reference: double precision, 1 thread; cpu: float32 SIMD backend; vulkan_device: timestamp device time; "
         "vulkan_e2e: with conversion, upload and readback; user_shader_device: the shader given to skinref_bench "
         "--shader, timestamp device time per pass (its bytes: its buffers). Bytes per vertex: "
         "bench/bench_skinning.cc. A fraction "
         "above 1 means the working set stayed in a cache that the copy's larger buffers do not fit in.\n\n"
      << "| method | vertices | influences |";
  std::vector<std::string> backends(std::begin(kSkinBackends), std::end(kSkinBackends));
  if (names.any_user_shader) backends.push_back(kUserShaderBackend);
  for (const std::string& backend : backends) out << " " << backend << " |";
  out << " cpu_1t / reference |\n|---|---|---|";
  for (size_t i = 0; i < backends.size(); ++i) out << "---|";
  out << "---|\n";
  for (const auto& [method, vertices, influences] : names.skin_rows) {
    const std::string suffix = std::string("/") + skinning_method_name(method) + "/vertices:" +
                               std::to_string(vertices) + "/influences:" + std::to_string(influences);
    out << "| " << upper_case(skinning_method_name(method)) << " | " << count_name(vertices) << " | " << influences << " |";
    std::map<std::string, double> rate;
    for (const std::string& backend : backends) {
      const std::optional<Result> result = file.find("BM_Skin/" + backend + suffix);
      if (!result) {
        out << " - |";
      } else if (!result->run) {
        out << " " << skipped(*result) << " |";
      } else {
        const double vertices_per_second = file.number(*result->run, "vertices/s");
        rate[backend] = vertices_per_second;
        out << " " << significant(vertices_per_second * 1e-6, 3) << " ("
            << fixed(file.number(*result->run, "fraction_of_bandwidth"), 2) << ") |";
      }
    }
    if (rate.count("cpu_1t") && rate.count("reference") && rate["reference"] > 0.0)
      out << " " << fixed(rate["cpu_1t"] / rate["reference"], 2) << "x |\n";
    else
      out << " - |\n";
  }
  out << "\n";
}

// The kernel study's other cases: the per-vertex kernels in cache, and AVX-512 DQS under the schedule the CPU did
// not get (bench/bench_kernels.cc), beside the figures they are compared with.
void write_kernel_study_extras(std::ostream& out, const BenchFile& file) {
  auto cell = [&](const std::string& name) -> std::string {
    const std::optional<Result> result = file.find(name);
    if (!result) return "-";
    if (!result->run) return skipped(*result);
    return significant(file.number(*result->run, "vertices/s") * 1e-6, 3);
  };
  out << "In cache (8,192 vertices, arrays under 1 MB: the kernel's rate without the memory hierarchy's), and "
         "AVX-512 DQS under each block schedule (cpu::DqsSchedule; the bench context's skinref_dqs_schedule names "
         "the one this CPU gets, the plain case's), M vertices/s:\n\n"
      << "| method | attributes | avx2 per vertex, in cache | avx512 per vertex, in cache | avx512 DQS, other "
         "schedule | avx512 DQS, other schedule, in cache |\n|---|---|---|---|---|---|\n";
  for (const SkinningMethod method : skinref::kSkinningMethods)
    for (const char* attributes : {"normals", "positions"}) {
      const std::string tail = std::string(skinning_method_name(method)) + "/" + attributes;
      out << "| " << upper_case(skinning_method_name(method)) << " | "
          << (std::string(attributes) == "normals" ? "positions + normals" : "positions") << " | "
          << cell("BM_SkinKernel/avx2/per_vertex/" + tail + "/in_cache") << " | "
          << cell("BM_SkinKernel/avx512/per_vertex/" + tail + "/in_cache") << " |";
      for (const char* size : {"", "/in_cache"}) {
        std::string figure = "-";
        for (const char* schedule : {"/pipelined", "/in_order"})
          if (file.find("BM_SkinKernel/avx512/per_vertex/" + tail + schedule + size))
            figure = cell("BM_SkinKernel/avx512/per_vertex/" + tail + schedule + size) + " (" + (schedule + 1) + ")";
        out << " " << figure << " |";
      }
      out << "\n";
    }
  out << "\n";
}

// The CPU kernel study (bench/bench_kernels.cc): one row per method and attribute set, one column per kernel and
// way of reading the palette, M vertices/s with the fraction of the one-thread copy bandwidth.
void write_kernel_study(std::ostream& out, const BenchFile& file) {
  const std::pair<const char*, const char*> columns[] = {{"scalar", "per_vertex"},
                                                         {"avx2", "per_vertex"},
                                                         {"avx2", "gathers"},
                                                         {"avx512", "per_vertex"},
                                                         {"avx512", "gathers"}};
  out << "## CPU kernel study\n\n"
      << "cpu backend, one thread, 1M vertices, 4 influences: M vertices/s (fraction of the one-thread copy "
         "bandwidth). avx2 runs 8 vertices at a time, avx512 16. per vertex: each influence's palette entry loaded "
         "whole per vertex and the blended sums transposed into lanes; gathers: each field gathered into lanes. "
         "Every variant gives the scalar kernel's bits.\n\n"
      << "| method | attributes |";
  for (const auto& [kernel, blends] : columns) out << " " << kernel << " " << (std::string(blends) == "gathers" ? "gathers" : "per vertex") << " |";
  out << "\n|---|---|";
  for (size_t i = 0; i < std::size(columns); ++i) out << "---|";
  out << "\n";
  for (const SkinningMethod method : skinref::kSkinningMethods)
    for (const char* attributes : {"normals", "positions"}) {
      out << "| " << upper_case(skinning_method_name(method)) << " | "
          << (std::string(attributes) == "normals" ? "positions + normals" : "positions") << " |";
      for (const auto& [kernel, blends] : columns) {
        const std::optional<Result> result = file.find(std::string("BM_SkinKernel/") + kernel + "/" + blends + "/" +
                                                       skinning_method_name(method) + "/" + attributes);
        if (!result)
          out << " - |";
        else if (!result->run)
          out << " " << skipped(*result) << " |";
        else
          out << " " << significant(file.number(*result->run, "vertices/s") * 1e-6, 3) << " ("
              << fixed(file.number(*result->run, "fraction_of_bandwidth"), 2) << ") |";
      }
      out << "\n";
    }
  out << "\n";
  write_kernel_study_extras(out, file);
}

void write_animation(std::ostream& out, const BenchFile& file, const Names& names) {
  out << "## Animation\n\n"
      << "One thread. 1 clip: one clip sampled and taken to model space; its limit is the bytes a pose touches at "
         "the least over the one-thread copy bandwidth (bench/bench_animation.cc), and the fraction is poses/s "
         "over that limit (above 1: the pose stayed in cache). 2 clips: both sampled, blended 50/50 and taken to "
         "model space.\n\n"
      << "| joints | 1 clip: k poses/s | time per pose | limit: k poses/s | fraction of the limit | 2 clips + blend: "
         "k poses/s | time per pose |\n|---|---|---|---|---|---|---|\n";
  for (const long long joints : names.animation_joints) {
    out << "| " << joints << " |";
    const std::optional<Result> clip = file.find("BM_AnimationClip/joints:" + std::to_string(joints));
    if (!clip)
      out << " - | | | |";
    else if (!clip->run)
      out << " " << skipped(*clip) << " | | | |";
    else
      out << " " << significant(file.number(*clip->run, "items_per_second") * 1e-3, 3) << " | "
          << time_text(file, *clip->run) << " | " << significant(file.number(*clip->run, "pose_limit/s") * 1e-3, 3)
          << " | " << fixed(file.number(*clip->run, "fraction_of_limit"), 2) << " |";
    const std::optional<Result> blend = file.find("BM_Animation/joints:" + std::to_string(joints));
    if (!blend)
      out << " - | |\n";
    else if (!blend->run)
      out << " " << skipped(*blend) << " | |\n";
    else
      out << " " << significant(file.number(*blend->run, "items_per_second") * 1e-3, 3) << " | "
          << time_text(file, *blend->run) << " |\n";
  }
  out << "\n";
}

// ---- aims ---------------------------------------------------------------------------------------------------
// Each aim: the benchmark and the figure it reads, the target, and how the figure compares. The targets are
// for one machine kind (an AMD EPYC with AVX-512, 2 vCPUs; docs/benchmarks.md says where each was reached): on
// another machine the table still shows the figures beside them, which the machine section names.

constexpr double kAimCpuLbsVerticesPerSecond = 290e6;  // 1.5x ozz-animation's native-build SkinningJob
constexpr double kAimCpuAllFractionOfCopy = 0.80;
constexpr double kAimCpuDqsOverLbs = 0.60;
constexpr double kAimReferenceDqsVerticesPerSecond = 50e6;
constexpr double kAimClipPosesPerSecond = 450e3;  // half of ozz-animation's ~900k poses/s at 64 joints
constexpr double kAimVulkanFractionOfCopy = 0.70;

void write_aims(std::ostream& out, const BenchFile& file) {
  out << "## Aims\n\n| aim | target | measured | reached |\n|---|---|---|---|\n";
  // The figure `key` of benchmark `name`, or the reason there is none.
  const auto figure = [&](const std::string& name, const std::string& key, double& value) -> std::string {
    const std::optional<Result> result = file.find(name);
    if (!result) return "not run";
    if (!result->run) return "skipped (" + result->skipped + ")";
    value = file.number(*result->run, key);
    return "";
  };
  const auto row = [&](const std::string& aim, const std::string& target, const std::string& missing,
                       const std::string& measured, bool reached) {
    out << "| " << cell(aim) << " | " << cell(target) << " | " << cell(missing.empty() ? measured : missing)
        << " | " << (missing.empty() ? (reached ? "yes" : "no") : "not measured") << " |\n";
  };
  const std::string lbs_1m = "/lbs/vertices:1000000/influences:4", dqs_1m = "/dqs/vertices:1000000/influences:4";
  double value = 0.0, other = 0.0;
  std::string missing = figure("BM_Skin/cpu_1t" + lbs_1m, "vertices/s", value);
  row("cpu backend, one core, LBS, 4 influences, 1M vertices, positions + normals",
      ">= " + significant(kAimCpuLbsVerticesPerSecond * 1e-6, 3) + " M vertices/s", missing,
      significant(value * 1e-6, 3) + " M vertices/s", value >= kAimCpuLbsVerticesPerSecond);
  value = 0.0;
  missing = figure("BM_Skin/cpu_all/lbs/vertices:16000000/influences:4", "fraction_of_bandwidth", value);
  row("cpu backend, all cores, LBS, 4 influences, 16M vertices", ">= " + fixed(kAimCpuAllFractionOfCopy, 2) +
      " of the copy bandwidth", missing, fixed(value, 2) + " of it", value >= kAimCpuAllFractionOfCopy);
  value = 0.0;
  missing = figure("BM_Skin/cpu_1t" + dqs_1m, "vertices/s", value);
  if (missing.empty()) missing = figure("BM_Skin/cpu_1t" + lbs_1m, "vertices/s", other);
  const double ratio = other > 0.0 ? value / other : 0.0;
  row("cpu backend, one core, DQS over LBS, 4 influences, 1M vertices", ">= " + fixed(kAimCpuDqsOverLbs, 2), missing,
      fixed(ratio, 2) + " (DQS " + significant(value * 1e-6, 3) + " M vertices/s)", ratio >= kAimCpuDqsOverLbs);
  value = 0.0;
  missing = figure("BM_Skin/reference" + dqs_1m, "vertices/s", value);
  row("reference DQS, one core, 4 influences, 1M vertices", ">= " +
      significant(kAimReferenceDqsVerticesPerSecond * 1e-6, 3) + " M vertices/s", missing,
      significant(value * 1e-6, 3) + " M vertices/s", value >= kAimReferenceDqsVerticesPerSecond);
  value = 0.0;
  missing = figure("BM_AnimationClip/joints:64", "items_per_second", value);
  row("reference animation, one clip sampled to model space, 64 joints, one core",
      ">= " + significant(kAimClipPosesPerSecond * 1e-3, 3) + " k poses/s", missing,
      significant(value * 1e-3, 3) + " k poses/s", value >= kAimClipPosesPerSecond);
  value = 0.0;
  missing = figure("BM_Skin/vulkan_device/lbs/vertices:16000000/influences:4", "fraction_of_bandwidth", value);
  row("vulkan_device, LBS, 4 influences, 16M vertices", ">= " + fixed(kAimVulkanFractionOfCopy, 2) +
      " of the device copy bandwidth", missing, fixed(value, 2) + " of it", value >= kAimVulkanFractionOfCopy);
  out << "\n";
}

void write_render(std::ostream& out, const BenchFile& file, const Names& names) {
  out << "## Rendering\n\n"
      << "Frames/s, the same scene, pose, vertices and camera for every renderer (shaded view); vulkan is end to "
         "end (upload, draw, readback). The last column is reference_1t's time over vulkan's.\n\n"
      << "| model | size |";
  for (const char* renderer : kRenderers) out << " " << renderer << " |";
  out << " reference_1t / vulkan |\n|---|---|---|---|---|---|\n";
  for (const auto& [model, size] : names.render_rows) {
    out << "| " << cell(model) << " | " << cell(size) << " |";
    std::map<std::string, double> fps;
    for (const char* renderer : kRenderers) {
      const std::optional<Result> result = file.find("BM_Render/" + model + "/" + size + "/" + renderer);
      if (!result) {
        out << " - |";
      } else if (!result->run) {
        out << " " << skipped(*result) << " |";
      } else {
        fps[renderer] = file.number(*result->run, "items_per_second");
        out << " " << significant(fps[renderer], 3) << " |";
      }
    }
    if (fps.count("vulkan") && fps.count("reference_1t") && fps["reference_1t"] > 0.0)
      out << " " << fixed(fps["vulkan"] / fps["reference_1t"], 2) << "x |\n";
    else
      out << " - |\n";
  }
  out << "\n";
}

void write_other(std::ostream& out, const BenchFile& file, const Names& names) {
  out << "## Other benchmarks\n\n| benchmark | time |\n|---|---|\n";
  for (const std::string& name : names.other) {
    const Result result = *file.find(name);
    out << "| " << cell(name) << " | " << (result.run ? time_text(file, *result.run) : skipped(result)) << " |\n";
  }
  out << "\n";
}

std::string summary(const BenchFile& file) {
  const Names names = classify(file);
  std::ostringstream out;
  out << "# skinref benchmarks\n\n"
      << "From " << file.path() << ": medians of the repetitions where the file has them (Google Benchmark "
      << "aggregates), else single runs.\n\n";
  write_machine(out, file);
  write_aims(out, file);
  if (names.any_copy) write_copies(out, file);
  if (!names.skin_rows.empty()) write_skinning(out, file, names);
  if (names.any_kernel_study) write_kernel_study(out, file);
  if (!names.animation_joints.empty()) write_animation(out, file, names);
  if (!names.render_rows.empty()) write_render(out, file, names);
  if (!names.other.empty()) write_other(out, file, names);
  return out.str();
}

int usage() {
  std::cerr << "usage: skinref_bench_table BENCH.json [--out FILE.md]\n"
               "  the Markdown summary of a skinref_bench JSON file (--benchmark_out=FILE "
               "--benchmark_out_format=json), to FILE.md or stdout\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input;
  std::optional<std::string> output;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out") {
      if (i + 1 >= argc || output) return usage();
      output = argv[++i];
    } else if (arg == "-h" || arg == "--help") {
      usage();
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "skinref_bench_table: unknown option " << arg << "\n";
      return usage();
    } else {
      if (!input.empty()) return usage();
      input = arg;
    }
  }
  if (input.empty()) return usage();
  try {
    const std::string markdown = summary(read_bench_file(input));
    if (output)
      skinref::write_file_atomically(*output, [&](std::ostream& out) { out << markdown; });
    else
      std::cout << markdown;
  } catch (const BadInput& error) {
    std::cerr << "skinref_bench_table: " << error.what() << "\n";
    return 2;
  } catch (const nlohmann::json::exception& error) {
    // A field of an unexpected JSON type somewhere in the runs.
    std::cerr << "skinref_bench_table: " << input << ": " << error.what() << "; expected " << kExpected << "\n";
    return 2;
  } catch (const std::exception& error) {
    // I/O (an unwritable --out path, a full disk): bad input from the user's side, as in the skinref CLI.
    std::cerr << "skinref_bench_table: " << error.what() << "\n";
    return 2;
  }
  return 0;
}
