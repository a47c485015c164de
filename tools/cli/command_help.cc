// The help texts and docs/cli.md, formatted from the command declarations (see command_decl.h).
#include "cli/command_decl.h"

#include <sstream>

namespace skinref::cli {
namespace {

// Terminal help is wrapped to this width; an option's help starts in this column (longer labels take a line).
constexpr size_t kHelpWidth = 110;
constexpr size_t kHelpColumn = 26;

std::string joined_with(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// `text`'s words filled to kHelpWidth, every line after the first starting with `indent` spaces; a "\n" in
// `text` starts a new line.
std::string wrapped(const std::string& text, size_t first_column, size_t indent) {
  std::string out;
  size_t column = first_column;
  std::istringstream lines(text);
  std::string line;
  bool first_line = true;
  while (std::getline(lines, line)) {
    if (!first_line) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    }
    first_line = false;
    std::istringstream words(line);
    std::string word;
    bool line_start = true;
    while (words >> word) {
      if (!line_start && column + 1 + word.size() > kHelpWidth) {
        out += "\n" + std::string(indent, ' ');
        column = indent;
        line_start = true;
      }
      if (!line_start) {
        out += " ";
        ++column;
      }
      out += word;
      column += word.size();
      line_start = false;
    }
  }
  return out;
}

std::string option_label(const OptionDecl& option) {
  return option.name + (option.value.empty() ? "" : " " + option.value) + (option.repeatable ? " ..." : "");
}

// The help with what the declaration adds: the choices (unless the placeholder lists them) and the default.
std::string option_text(const OptionDecl& option) {
  std::string text = option.help;
  if (!option.choices.empty() && option.value != joined_with(option.choices, "|"))
    text += " Choices: " + joined_with(option.choices, ", ") + ".";
  if (!option.default_value.empty()) text += " Default: " + option.default_value + ".";
  if (option.repeatable) text += " Repeatable.";
  return text;
}

std::string usage_lines(const CommandDecl& command) {
  std::string text;
  const std::string prefix = "skinref " + command.path;
  if (!command.subcommands.empty()) {
    for (const CommandDecl& sub : command.subcommands)
      for (const std::string& line : sub.synopsis) text += std::string(text.empty() ? "usage: " : "       ") + "skinref " + sub.path + (line.empty() ? "" : " " + line) + "\n";
    return text;
  }
  for (const std::string& line : command.synopsis)
    text += std::string(text.empty() ? "usage: " : "       ") + prefix + (line.empty() ? "" : " " + line) + "\n";
  if (text.empty()) text = "usage: " + prefix + "\n";
  return text;
}

std::string markdown_cell(const std::string& text) {
  std::string cell;
  for (char c : text) {
    if (c == '|') cell += "\\|";
    else if (c == '\n') cell += ' ';
    else cell.push_back(c);
  }
  return cell;
}

void markdown_command(const CommandDecl& command, std::string& page) {
  page += "## `skinref " + command.path + "`\n\n" + command.summary + ".\n\n```\n" + usage_lines(command) + "```\n\n";
  // Each line of a description is a paragraph.
  std::istringstream paragraphs(command.description);
  for (std::string paragraph; std::getline(paragraphs, paragraph);)
    if (!paragraph.empty()) page += paragraph + "\n\n";
  if (!command.options.empty()) {
    page += "| option | meaning |\n|---|---|\n";
    for (const OptionDecl& option : command.options)
      page += "| `" + markdown_cell(option_label(option)) + "` | " + markdown_cell(option_text(option)) + " |\n";
    page += "\n";
  }
  for (const CommandDecl& sub : command.subcommands) markdown_command(sub, page);
}

}  // namespace

std::string command_help(const CommandDecl& command) {
  std::string text = usage_lines(command);
  if (!command.description.empty()) {
    std::istringstream paragraphs(command.description);
    std::string paragraph;
    while (std::getline(paragraphs, paragraph)) {
      if (paragraph.empty()) continue;
      text += "  " + wrapped(paragraph, 2, 2) + "\n";
    }
  }
  if (!command.subcommands.empty()) {
    text += "Subcommands:\n";
    for (const CommandDecl& sub : command.subcommands) {
      const std::string name = sub.path.substr(command.path.size() + 1);
      text += "  " + name + std::string(name.size() + 4 < kHelpColumn ? kHelpColumn - 2 - name.size() : 2, ' ') +
              wrapped(sub.summary, kHelpColumn, kHelpColumn) + "\n";
    }
    text += "Run 'skinref help " + command.path + " SUBCOMMAND' for a subcommand's options.\n";
  }
  if (!command.options.empty()) text += "Options:\n";
  for (const OptionDecl& option : command.options) {
    const std::string label = "  " + option_label(option);
    const bool fits = label.size() + 2 <= kHelpColumn;
    text += label + (fits ? std::string(kHelpColumn - label.size(), ' ') : "\n" + std::string(kHelpColumn, ' ')) +
            wrapped(option_text(option), kHelpColumn, kHelpColumn) + "\n";
  }
  return text;
}

std::string markdown_reference(std::span<const CommandDecl> commands) {
  std::string page =
      "# Command-line reference\n\n"
      "Every command, subcommand and option of `skinref`, generated by `skinref help --markdown` from the\n"
      "declarations its parser uses (tools/cli/command_decl.h); `skinref help CMD [SUB]` and `CMD --help` print\n"
      "the same. Do not edit this page by hand: the test `cli.reference_current` fails when it differs from\n"
      "the declarations. Regenerate it with `build/skinref help --markdown > docs/cli.md`.\n\n"
      "Exit status: 0 success, 1 comparison failed, 2 bad input or usage (one line on stderr).\n\n"
      "| command | what it does |\n|---|---|\n";
  for (const CommandDecl& command : commands)
    page += "| [`" + command.path + "`](#skinref-" + command.path + ") | " + markdown_cell(command.summary) + " |\n";
  page += "\n";
  for (const CommandDecl& command : commands) markdown_command(command, page);
  while (page.size() > 1 && page[page.size() - 1] == '\n' && page[page.size() - 2] == '\n') page.pop_back();
  return page;
}

}  // namespace skinref::cli
