// Strict JSON for the project's own input formats (pose recipes, the golden manifest): nlohmann's document,
// built through its SAX interface so that the JSON pointer of the value being read is known.
//
// Contract:
// - parse_strict_json(): a repeated key in an object (which nlohmann would silently overwrite) and a number
//   beyond the range of a double are errors at their JSON pointer; a syntax error keeps nlohmann's message
//   (line and column). Every error is an InputError(display_name, pointer, expected).
// - json_pointer_token(): one reference token escaped as RFC 6901 says ('~' -> "~0", '/' -> "~1").
// - describe_json_value(): what a value is, for messages: "an object", "an array", or a scalar's JSON text
//   (escaped, so always one line).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace skinref {

nlohmann::json parse_strict_json(const std::string& text, const std::string& display_name);

std::string json_pointer_token(std::string_view key);

std::string describe_json_value(const nlohmann::json& value);

}  // namespace skinref
