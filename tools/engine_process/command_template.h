// An engine's command line as the user writes it, with placeholders ({model}, {out}, {queries}, ...) that the
// runner fills with values it shell-quotes itself. Quoting is the runner's alone: a placeholder written inside
// the user's own quotes ("{model}" or '{out}') would put the runner's quotes inside the user's, where they are
// plain characters and the value is read by the shell again (a path holding $(...) would run it), so such a
// template is refused rather than run.
//
// Contract:
// - placeholder_in_quotes(command, names): where a placeholder of `names` sits inside single quotes, double
//   quotes or after a backslash, as the shell reads the template: "{model} at byte 12 is inside double quotes";
//   "" when every one stands bare. The shell's quoting is followed: '...' ends only at the next ', "..." at an
//   unescaped ", a backslash quotes the next character outside single quotes.
// - substitute(command, values): each {name} of `values` replaced by shell_quote(value), everything else as
//   written.
// - shell_quote(text): `text` for /bin/sh, in single quotes, each ' written as '\''.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace skinref::engine_process {

using PlaceholderValues = std::vector<std::pair<std::string, std::string>>;

std::string placeholder_in_quotes(const std::string& command, const std::vector<std::string>& names);

std::string substitute(const std::string& command, const PlaceholderValues& values);

std::string shell_quote(const std::string& text);

}  // namespace skinref::engine_process
