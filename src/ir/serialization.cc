// JSON writer and reader of IR (see serialization.h): a post-order walk
// numbers every distinct object once; loading rebuilds nodes in that order
// through TypeRegistry::CreateDefault and the registered field setters;
// tensors (NDArray, Relax constants) are stored by value (base64).
// Registers "ir.SaveJSON" / "ir.LoadJSON".
#include "ir/serialization.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "runtime/array.h"
#include "runtime/map.h"
#include "runtime/ndarray.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "runtime/string.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace {

using json = nlohmann::json;
constexpr int kFormatVersion = 1;

// Tensors (Relax constants) as {"dtype", "shape", "data": base64 of the
// row-major bytes}.
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64Encode(const std::string& in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kBase64[(v >> k) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string Base64Decode(const std::string& in, const std::string& where) {
  TESSERA_CHECK_OR_THROW(in.size() % 4 == 0, ValueError) << "load_json: " << where << ": malformed base64 data";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = in[i + k];
      const char* p = c == '=' ? nullptr : std::strchr(kBase64, c);
      TESSERA_CHECK_OR_THROW(c == '=' || (p != nullptr && c != '\0'), ValueError)
          << "load_json: " << where << ": malformed base64 data";
      if (c == '=') ++pad;
      v = (v << 6) | (p ? static_cast<uint32_t>(p - kBase64) : 0);
    }
    out += static_cast<char>((v >> 16) & 255);
    if (pad < 2) out += static_cast<char>((v >> 8) & 255);
    if (pad < 1) out += static_cast<char>(v & 255);
  }
  return out;
}

nlohmann::json NDArrayJSON(const NDArray& arr) {
  std::string bytes(arr.NBytes(), '\0');
  arr.CopyToBytes(bytes.data(), bytes.size());
  return nlohmann::json{{"dtype", arr.dtype().str()}, {"shape", arr.Shape()}, {"data", Base64Encode(bytes)}};
}

NDArray NDArrayFromJSON(const nlohmann::json& j, const std::string& where) {
  TESSERA_CHECK_OR_THROW(j.is_object() && j.contains("dtype") && j["dtype"].is_string() && j.contains("shape") &&
                             j["shape"].is_array() && j.contains("data") && j["data"].is_string(),
                         ValueError)
      << "load_json: " << where << ": an array needs \"dtype\", \"shape\" and \"data\"";
  std::vector<int64_t> shape;
  for (const auto& d : j["shape"]) {
    TESSERA_CHECK_OR_THROW(d.is_number_integer() && d.get<int64_t>() >= 0, ValueError)
        << "load_json: " << where << ": bad array shape " << j["shape"].dump();
    shape.push_back(d.get<int64_t>());
  }
  DataType dtype(j["dtype"].get<std::string>());
  NDArray arr = NDArray::Empty(shape, dtype, Device{kDLCPU, 0});
  std::string bytes = Base64Decode(j["data"].get<std::string>(), where);
  TESSERA_CHECK_OR_THROW(bytes.size() == arr.NBytes(), ValueError)
      << "load_json: " << where << ": " << bytes.size() << " bytes of data for an array of " << arr.NBytes();
  arr.CopyFromBytes(bytes.data(), bytes.size());
  return arr;
}

class JSONWriter {
 public:
  json Value(const Any& v) {
    switch (v.kind()) {
      case Any::Kind::kNone: return nullptr;
      case Any::Kind::kBool: return v.raw_int() != 0;
      case Any::Kind::kInt: return v.raw_int();
      case Any::Kind::kFloat: {
        double x = v.raw_float();
        if (std::isnan(x)) return json{{"float", "nan"}};
        if (std::isinf(x)) return json{{"float", x > 0 ? "inf" : "-inf"}};
        return json{{"float", x}};
      }
      case Any::Kind::kDataType: return json{{"dtype", v.raw_dtype().str()}};
      case Any::Kind::kDevice:
        TESSERA_THROW(ValueError) << "save_json: " << Where() << " is a Device, which IR JSON does not hold";
      case Any::Kind::kHandle:
        TESSERA_THROW(ValueError) << "save_json: " << Where() << " is a raw handle, which cannot be saved";
      case Any::Kind::kObject: break;
    }
    if (const auto* s = v.as<StringObj>()) return s->data;
    return json{{"node", Node(v.raw_object())}};
  }

  json Document(const Any& root) {
    json r = Value(root);
    return json{{"tessera_json", kFormatVersion}, {"root", r}, {"nodes", std::move(nodes_)}};
  }

 private:
  size_t Node(const ObjectRef& obj) {
    CheckStack("object graph");
    auto it = index_.find(obj.get());
    if (it != index_.end()) return it->second;
    json node;
    node["type_key"] = obj->GetTypeKey();
    if (const auto* arr = obj.as<ArrayObj>()) {
      json items = json::array();
      for (size_t i = 0; i < arr->data.size(); ++i) {
        PathStep step(this, "[" + std::to_string(i) + "]");
        items.push_back(Value(arr->data[i]));
      }
      node["items"] = std::move(items);
    } else if (const auto* map = obj.as<MapObj>()) {
      json entries = json::array();
      for (const auto& [k, v] : map->data) {
        json key;
        {
          PathStep step(this, " (a key)");
          key = Value(k);
        }
        PathStep step(this, "[" + k.repr() + "]");
        entries.push_back(json::array({std::move(key), Value(v)}));
      }
      node["entries"] = std::move(entries);
    } else if (obj.as<NDArrayObj>()) {
      node["ndarray"] = NDArrayJSON(Downcast<NDArray>(obj));
    } else {
      const NodeInfo* info = Reflection::Find(obj->type_index());
      TESSERA_CHECK_OR_THROW(info != nullptr, ValueError)
          << "save_json: " << Where() << " is a " << obj->GetTypeKey() << ", a type with no registered fields";
      json fields = json::object();
      for (const FieldInfo* f : info->fields) {
        TESSERA_CHECK_OR_THROW(f->setter != nullptr, ValueError)
            << "save_json: " << Where() << " is a " << obj->GetTypeKey() << " whose field '" << f->name
            << "' is computed, so it could not be loaded back";
        PathStep step(this, "." + f->name);
        fields[f->name] = Value(f->getter(obj.get()));
      }
      node["fields"] = std::move(fields);
    }
    size_t index = nodes_.size();
    nodes_.push_back(std::move(node));
    index_.emplace(obj.get(), index);
    return index;
  }

  // The path from the root to the value being written ("root.body[2].value"),
  // kept as segments and rendered only for an error message: building it as
  // a string per level would cost memory quadratic in the nesting depth.
  struct PathStep {
    JSONWriter* w;
    PathStep(JSONWriter* writer, std::string segment) : w(writer) { w->path_.push_back(std::move(segment)); }
    ~PathStep() { w->path_.pop_back(); }
  };
  std::string Where() const {
    std::string out = "root";
    const size_t n = path_.size(), keep = 32;
    for (size_t i = 0; i < n; ++i) {
      if (n > 2 * keep && i == keep) {
        out += "...(" + std::to_string(n - 2 * keep) + " levels)...";
        i = n - keep;
      }
      out += path_[i];
    }
    return out;
  }

  std::vector<std::string> path_;
  json nodes_ = json::array();
  std::unordered_map<const Object*, size_t> index_;
};

class JSONReader {
 public:
  Any Load(const std::string& text) {
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::parse_error& e) {
      TESSERA_THROW(ValueError) << "load_json: malformed JSON: " << e.what();
    }
    TESSERA_CHECK_OR_THROW(doc.is_object() && doc.contains("root") && doc.contains("nodes") && doc["nodes"].is_array(),
                           ValueError)
        << "load_json: not an IR document (expected an object with \"root\" and a \"nodes\" array)";
    if (doc.contains("tessera_json")) {
      TESSERA_CHECK_OR_THROW(doc["tessera_json"] == kFormatVersion, ValueError)
          << "load_json: unsupported format version " << doc["tessera_json"].dump();
    }
    const json& nodes = doc["nodes"];
    for (size_t i = 0; i < nodes.size(); ++i) loaded_.push_back(Node(nodes[i], i));
    return Value(doc["root"], "root");
  }

 private:
  Any Value(const json& v, const std::string& where) {
    if (v.is_null()) return Any();
    if (v.is_boolean()) return Any(v.get<bool>());
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        TESSERA_THROW(ValueError) << "load_json: " << where << ": integer " << v.dump() << " does not fit int64";
      }
      return Any(v.get<int64_t>());
    }
    if (v.is_string()) return Any(v.get<std::string>());
    if (v.is_object() && v.size() == 1) {
      if (v.contains("float")) {
        const json& x = v["float"];
        if (x.is_number()) return Any(x.get<double>());
        if (x == "nan") return Any(std::numeric_limits<double>::quiet_NaN());
        if (x == "inf") return Any(std::numeric_limits<double>::infinity());
        if (x == "-inf") return Any(-std::numeric_limits<double>::infinity());
      } else if (v.contains("dtype") && v["dtype"].is_string()) {
        try {
          return Any(DataType(v["dtype"].get<std::string>()));
        } catch (const std::exception& e) {
          TESSERA_THROW(ValueError) << "load_json: " << where << ": bad dtype " << v["dtype"].dump() << ": " << e.what();
        }
      } else if (v.contains("node") && v["node"].is_number_unsigned()) {
        uint64_t i = v["node"].get<uint64_t>();
        TESSERA_CHECK_OR_THROW(i < loaded_.size(), ValueError)
            << "load_json: " << where << " refers to node " << i << ", which is not defined before it";
        return Any(loaded_[i]);
      }
    }
    TESSERA_THROW(ValueError) << "load_json: " << where << ": unrecognised value " << v.dump();
  }

  ObjectRef Node(const json& n, size_t index) {
    CheckStack("JSON object graph");
    std::string where = "node " + std::to_string(index);
    TESSERA_CHECK_OR_THROW(n.is_object() && n.contains("type_key") && n["type_key"].is_string(), ValueError)
        << "load_json: " << where << " has no \"type_key\"";
    std::string key = n["type_key"].get<std::string>();
    where += " (" + key + ")";
    int64_t type_index = TypeRegistry::IndexOf(key);
    TESSERA_CHECK_OR_THROW(type_index >= 0, ValueError) << "load_json: " << where << ": unknown type key '" << key << "'";
    if (type_index == static_cast<int64_t>(ArrayObj::RuntimeTypeIndex())) {
      TESSERA_CHECK_OR_THROW(n.contains("items") && n["items"].is_array(), ValueError)
          << "load_json: " << where << " has no \"items\" array";
      auto arr = make_object<ArrayObj>();
      for (size_t i = 0; i < n["items"].size(); ++i) {
        arr->data.push_back(Value(n["items"][i], where + "[" + std::to_string(i) + "]"));
      }
      return ObjectRef(ObjectPtr<Object>(std::move(arr)));
    }
    if (type_index == static_cast<int64_t>(MapObj::RuntimeTypeIndex())) {
      TESSERA_CHECK_OR_THROW(n.contains("entries") && n["entries"].is_array(), ValueError)
          << "load_json: " << where << " has no \"entries\" array";
      auto map = make_object<MapObj>();
      for (const json& e : n["entries"]) {
        TESSERA_CHECK_OR_THROW(e.is_array() && e.size() == 2, ValueError)
            << "load_json: " << where << ": a map entry is not a [key, value] pair";
        Any k = Value(e[0], where + " (a key)");
        TESSERA_CHECK_OR_THROW(map->Find(k) == nullptr, ValueError)
            << "load_json: " << where << ": duplicate key " << k.repr();
        map->data.emplace_back(k, Value(e[1], where + "[" + k.repr() + "]"));
      }
      return ObjectRef(ObjectPtr<Object>(std::move(map)));
    }
    if (type_index == static_cast<int64_t>(NDArrayObj::RuntimeTypeIndex())) {
      TESSERA_CHECK_OR_THROW(n.contains("ndarray"), ValueError) << "load_json: " << where << " has no \"ndarray\"";
      try {
        return NDArrayFromJSON(n["ndarray"], where);
      } catch (const Error&) {
        throw;
      } catch (const std::exception& e) {
        TESSERA_THROW(ValueError) << "load_json: " << where << ": " << e.what();
      }
    }
    const NodeInfo* info = Reflection::Find(static_cast<uint32_t>(type_index));
    TESSERA_CHECK_OR_THROW(info != nullptr, ValueError)
        << "load_json: " << where << ": type '" << key << "' has no registered fields and cannot be loaded";
    TESSERA_CHECK_OR_THROW(n.contains("fields") && n["fields"].is_object(), ValueError)
        << "load_json: " << where << " has no \"fields\" object";
    const json& fields = n["fields"];
    for (const auto& item : fields.items()) {
      bool known = false;
      for (const FieldInfo* f : info->fields) known = known || f->name == item.key();
      TESSERA_CHECK_OR_THROW(known, ValueError) << "load_json: " << where << ": unknown field '" << item.key() << "'";
    }
    Object* raw = TypeRegistry::CreateDefault(static_cast<uint32_t>(type_index));
    TESSERA_CHECK_OR_THROW(raw != nullptr, ValueError)
        << "load_json: " << where << ": type '" << key << "' cannot be constructed generically";
    ObjectPtr<Object> ptr(raw);
    raw->DecRef();  // CreateDefault handed over one reference; ptr holds it now
    for (const FieldInfo* f : info->fields) {
      TESSERA_CHECK_OR_THROW(f->setter != nullptr, ValueError)
          << "load_json: " << where << ": field '" << f->name << "' is computed and cannot be loaded";
      TESSERA_CHECK_OR_THROW(fields.contains(f->name), ValueError)
          << "load_json: " << where << ": missing field '" << f->name << "'";
      Any value = Value(fields[f->name], where + "." + f->name);
      try {
        f->setter(raw, value);
      } catch (const std::exception& e) {
        TESSERA_THROW(ValueError) << "load_json: " << where << ": field '" << f->name << "' has the wrong type: "
                                  << e.what();
      }
    }
    ObjectRef node(std::move(ptr));
    if (info->on_load) {
      try {
        return info->on_load(node);
      } catch (const std::exception& e) {
        TESSERA_THROW(ValueError) << "load_json: " << where << ": " << e.what();
      }
    }
    return node;
  }

  std::vector<ObjectRef> loaded_;
};

}  // namespace

std::string SaveJSON(const Any& value) {
  JSONWriter writer;
  return writer.Document(value).dump();
}

Any LoadJSON(const std::string& text) {
  JSONReader reader;
  return reader.Load(text);
}

TESSERA_REGISTER_GLOBAL("ir.SaveJSON").set_body_typed([](Any value) { return SaveJSON(value); });
TESSERA_REGISTER_GLOBAL("ir.LoadJSON").set_body_typed([](std::string text) { return LoadJSON(text); });

}  // namespace tessera
