#include "conformance/queries_file.h"

#include "core/input_error.h"
#include "core/strict_json.h"
#include "core/stream_bytes.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

namespace skinref::conformance {
namespace {

constexpr const char* kFormat = "skinref-conformance-queries";
constexpr int kVersion = 1;

// Every member of `object` at `pointer` is one of `known`.
void refuse_unknown_members(const std::string& path, const nlohmann::json& object, const std::string& pointer,
                            const std::set<std::string>& known) {
  for (const auto& [key, value] : object.items())
    if (!known.count(key))
      throw InputError(path, pointer + "/" + json_pointer_token(key), "no member \"" + key + "\" (a query has " +
                                                                           "case, model, animation, time and out)");
}

const nlohmann::json& member(const std::string& path, const nlohmann::json& object, const std::string& pointer, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) throw InputError(path, pointer, std::string("a \"") + key + "\" member");
  return *it;
}

std::string non_empty_string(const std::string& path, const nlohmann::json& value, const std::string& pointer) {
  if (!value.is_string() || value.get<std::string>().empty())
    throw InputError(path, pointer, "a non-empty string, got " + describe_json_value(value));
  return value.get<std::string>();
}

Query read_query(const std::string& path, const nlohmann::json& value, const std::string& pointer) {
  if (!value.is_object()) throw InputError(path, pointer, "a query object, got " + describe_json_value(value));
  refuse_unknown_members(path, value, pointer, {"case", "model", "animation", "time", "out"});
  Query query;
  query.case_id = non_empty_string(path, member(path, value, pointer, "case"), pointer + "/case");
  query.model = non_empty_string(path, member(path, value, pointer, "model"), pointer + "/model");
  query.out = non_empty_string(path, member(path, value, pointer, "out"), pointer + "/out");
  const nlohmann::json& animation = member(path, value, pointer, "animation");
  if (!animation.is_number_integer() || animation.get<long long>() < 0 ||
      animation.get<long long>() > std::numeric_limits<int>::max())
    throw InputError(path, pointer + "/animation", "an animation index, 0 or more, got " + describe_json_value(animation));
  query.animation = int(animation.get<long long>());
  const nlohmann::json& time = member(path, value, pointer, "time");
  if (!time.is_number() || !std::isfinite(time.get<double>()))
    throw InputError(path, pointer + "/time", "a finite time in seconds, got " + describe_json_value(time));
  query.time = time.get<double>();
  return query;
}

}  // namespace

std::string engine_model(const Query& query) {
  if (query.work.empty()) return query.model;
  return (std::filesystem::path(query.work) / std::filesystem::path(query.model).filename()).string();
}

std::string queries_file_text(const std::vector<Query>& queries) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Query& q : queries)
    list.push_back({{"case", q.case_id}, {"model", engine_model(q)}, {"animation", q.animation}, {"time", q.time},
                    {"out", q.out}});
  const nlohmann::ordered_json document{{"format", kFormat}, {"version", kVersion}, {"queries", list}};
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::vector<Query> read_queries_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable queries file (skinref-conformance-queries)");
  const std::string text = read_stream_bytes(in);
  if (in.bad()) throw InputError(path, "", "a readable queries file (skinref-conformance-queries)");
  const nlohmann::json document = parse_strict_json(text, path);
  if (!document.is_object()) throw InputError(path, "/", "a JSON object, got " + describe_json_value(document));
  refuse_unknown_members(path, document, "", {"format", "version", "queries"});
  const nlohmann::json& format = member(path, document, "", "format");
  if (format != kFormat)
    throw InputError(path, "/format", std::string("\"") + kFormat + "\", got " + describe_json_value(format));
  const nlohmann::json& version = member(path, document, "", "version");
  if (version != kVersion) throw InputError(path, "/version", "1, got " + describe_json_value(version));
  const nlohmann::json& list = member(path, document, "", "queries");
  if (!list.is_array()) throw InputError(path, "/queries", "an array of queries, got " + describe_json_value(list));
  std::vector<Query> queries;
  for (size_t i = 0; i < list.size(); ++i) queries.push_back(read_query(path, list[i], "/queries/" + std::to_string(i)));
  return queries;
}

}  // namespace skinref::conformance
