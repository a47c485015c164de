#include "core/strict_json.h"

#include "core/input_error.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace skinref {
namespace {

using json = nlohmann::json;

// Builds the document as nlohmann's own parser does, but knows the JSON pointer of the value being read, so
// that a repeated key (which nlohmann would silently overwrite) and a number beyond the range of a double
// are reported where they are. A syntax error keeps nlohmann's message (which gives line and column).
class LocatingSax final : public json::json_sax_t {
 public:
  json root;
  std::string error_path;
  std::string error_message;

  bool null() override { return place(json(nullptr)); }
  bool boolean(bool value) override { return place(json(value)); }
  bool number_integer(number_integer_t value) override { return place(json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return place(json(value)); }
  bool number_float(number_float_t value, const string_t&) override { return place(json(value)); }
  bool string(string_t& value) override { return place(json(std::move(value))); }
  bool binary(binary_t&) override { return fail_here("JSON text (binary values are not JSON)"); }

  bool start_object(std::size_t) override { return open(json::object(), false); }
  bool start_array(std::size_t) override { return open(json::array(), true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& key) override {
    Frame& frame = frames_.back();
    frame.key = key;
    frame.token = json_pointer_token(key);
    if (!frame.keys.insert(key).second) return fail_here("each key once per object; \"" + key + "\" is repeated");
    return true;
  }

  bool parse_error(std::size_t, const std::string& token, const json::exception& error) override {
    // 406 is nlohmann's "number overflow": valid JSON syntax whose value is no finite double.
    if (error.id == 406) return fail_here("a finite number; " + token + " is beyond the range of a double");
    error_path.clear();
    error_message = error.what();
    std::replace(error_message.begin(), error_message.end(), '\n', ' ');
    std::replace(error_message.begin(), error_message.end(), '\r', ' ');
    return false;
  }

 private:
  struct Frame {
    json* container = nullptr;
    bool array = false;
    size_t count = 0;   // elements started so far (arrays)
    std::string key;    // the member being read (objects)
    std::string token;  // its pointer token: the escaped key, or the element index
    std::set<std::string> keys;
  };

  // The pointer of the value about to be read: the open containers' current tokens, and for an array on top
  // the index its next element will get.
  std::string path_of_next() const {
    std::string path;
    for (size_t i = 0; i < frames_.size(); ++i) {
      const bool top_array = i + 1 == frames_.size() && frames_[i].array;
      path += "/" + (top_array ? std::to_string(frames_[i].count) : frames_[i].token);
    }
    return path;
  }

  bool fail_here(const std::string& message) {
    error_path = path_of_next();
    error_message = message;
    return false;
  }

  // Stores `value` where the next value goes; returns its address, which stays valid while it is open
  // (nothing else is added to its parent until it closes).
  json* store(json value) {
    if (frames_.empty()) {
      root = std::move(value);
      return &root;
    }
    Frame& frame = frames_.back();
    if (frame.array) {
      frame.token = std::to_string(frame.count++);
      frame.container->push_back(std::move(value));
      return &frame.container->back();
    }
    json& slot = (*frame.container)[frame.key];
    slot = std::move(value);
    return &slot;
  }

  bool place(json value) {
    store(std::move(value));
    return true;
  }

  bool open(json container, bool array) {
    Frame frame;
    frame.container = store(std::move(container));
    frame.array = array;
    frames_.push_back(std::move(frame));
    return true;
  }

  bool close() {
    frames_.pop_back();
    return true;
  }

  std::vector<Frame> frames_;
};

}  // namespace

std::string json_pointer_token(std::string_view key) {
  std::string token;
  for (char c : key) {
    if (c == '~') {
      token += "~0";
    } else if (c == '/') {
      token += "~1";
    } else {
      token.push_back(c);
    }
  }
  return token;
}

nlohmann::json parse_strict_json(const std::string& text, const std::string& display_name) {
  LocatingSax sax;
  if (!json::sax_parse(text, &sax)) throw InputError(display_name, sax.error_path, sax.error_message);
  return std::move(sax.root);
}

std::string describe_json_value(const nlohmann::json& value) {
  switch (value.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    default: return value.dump();
  }
}

}  // namespace skinref
