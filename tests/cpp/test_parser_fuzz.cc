// Random-mutation fuzzing of the TVMScript parser: the course's TIR
// modules (tests/fuzz/seeds.txt) are mutated at the token level (delete,
// duplicate, swap, replace, truncate, insert junk, re-indent) and the parser
// must either succeed or raise ParseError -- never crash nor raise another
// kind of error. A short deterministic run is part of the test suite; set
// TESSERA_PARSER_FUZZ_SECONDS for a long run (see tests/fuzz/README.md).
// Inputs that once failed live in tests/fuzz/corpus/ and are replayed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "script/parser/parser.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

fs::path FuzzDir() { return fs::path(__FILE__).parent_path().parent_path() / "fuzz"; }

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Seeds() {
  std::string all = ReadFile(FuzzDir() / "seeds.txt");
  std::vector<std::string> seeds;
  const std::string sep = "#### SEED ####\n";
  size_t pos = 0;
  while (true) {
    size_t next = all.find(sep, pos);
    std::string part = all.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (part.find("def ") != std::string::npos) seeds.push_back(part);
    if (next == std::string::npos) break;
    pos = next + sep.size();
  }
  return seeds;
}

// Splits source text into tokens-ish chunks (names, numbers, strings,
// whitespace runs, single punctuation characters).
std::vector<std::string> Chunks(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i + 1;
    unsigned char c = s[i];
    if (std::isalpha(c) || c == '_') {
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    } else if (std::isdigit(c)) {
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    } else if (c == '"' || c == '\'') {
      while (j < s.size() && s[j] != c && s[j] != '\n') ++j;
      if (j < s.size() && s[j] == c) ++j;
    } else if (c == ' ' || c == '\n') {
      while (j < s.size() && (s[j] == ' ' || s[j] == '\n')) ++j;
    }
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string Mutate(const std::string& seed, std::mt19937_64& rng) {
  static const std::vector<std::string> kJunk = {
      "(", ")", "[", "]", "{", "}", ":", ",", ".", "=", "+=", "-", "*", "**", "//", "%", "<", "==", "not ", " and ",
      "\n", "\n    ", "\n        ", "\t", "\\\n", "#", "'", "\"", "\"\"\"", "0", "-1", "1.5e308", "99999999999999999999",
      "9223372036854775807", "0x", "1_000", "None", "True", "lambda", "for ", " in ", "with ", "if ", "else:", "def ",
      "class ", "return ", "pass", "@T.prim_func\n", "T.", "T.grid(", "T.axis.remap(\"SSR\", [", "T.block(\"x\")",
      "T.init()", "T.reads(", "T.Buffer[", "T.float32(", "T.int64()", "range(", "A[", "vi", "i", "*x", "**2", ";",
      "\x01", "\xff", "é", "...", "T.alloc_buffer((", "T.match_buffer(", "T.axis.spatial(", "T.thread_binding(",
      "T.where(", "T.func_attr({", "T.max(", "T.exp(", "T.call_extern(", "A.access_ptr(", "[0:16", ":16]"};
  std::vector<std::string> chunks = Chunks(seed);
  int n = 1 + static_cast<int>(rng() % 4);
  for (int m = 0; m < n && !chunks.empty(); ++m) {
    size_t i = rng() % chunks.size();
    switch (rng() % 8) {
      case 0: chunks.erase(chunks.begin() + i); break;
      case 1: chunks.insert(chunks.begin() + i, chunks[i]); break;
      case 2: std::swap(chunks[i], chunks[rng() % chunks.size()]); break;
      case 3: chunks[i] = chunks[rng() % chunks.size()]; break;
      case 4: chunks.resize(i); break;
      case 5: chunks.insert(chunks.begin() + i, kJunk[rng() % kJunk.size()]); break;
      case 6: chunks[i] = kJunk[rng() % kJunk.size()]; break;
      case 7: {  // re-indent: add or remove spaces after a newline
        if (chunks[i].find('\n') != std::string::npos) {
          if (rng() % 2 && chunks[i].size() > 1) {
            chunks[i].pop_back();
          } else {
            chunks[i] += std::string(1 + rng() % 4, ' ');
          }
        }
        break;
      }
    }
  }
  std::string out;
  for (const std::string& c : chunks) out += c;
  return out;
}

// Returns an empty string when the parser behaved (success or ParseError),
// otherwise a description of what went wrong.
std::string Check(const std::string& source) {
  try {
    script::ParseTVMScript(source, "fuzz.py");
    return "";
  } catch (const Error& e) {
    if (e.kind() == "ParseError") {
      std::string msg = e.what();
      if (msg.rfind("fuzz.py:", 0) != 0) return "ParseError without a location: " + msg;
      return "";
    }
    return "error of kind " + e.kind() + ": " + e.what();
  } catch (const std::exception& e) {
    return std::string("std::exception: ") + e.what();
  }
}

TEST(ParserFuzz, SeedsParse) {
  std::vector<std::string> seeds = Seeds();
  ASSERT_GE(seeds.size(), 50u);
  for (const std::string& s : seeds) {
    EXPECT_NO_THROW(script::ParseTVMScript(s, "seed.py")) << s;
  }
}

TEST(ParserFuzz, CorpusReplays) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(FuzzDir() / "corpus")) {
    if (!entry.is_regular_file()) continue;
    std::string problem = Check(ReadFile(entry.path()));
    EXPECT_EQ(problem, "") << entry.path();
    ++n;
  }
  EXPECT_GT(n, 0);
}

TEST(ParserFuzz, RandomMutationsOnlyRaiseParseError) {
  std::vector<std::string> seeds = Seeds();
  ASSERT_FALSE(seeds.empty());
  const char* seconds_env = std::getenv("TESSERA_PARSER_FUZZ_SECONDS");
  const char* current_file = std::getenv("TESSERA_PARSER_FUZZ_CURRENT");
  const char* seed_env = std::getenv("TESSERA_PARSER_FUZZ_SEED");
  double seconds = seconds_env ? std::atof(seconds_env) : 0.0;
  std::mt19937_64 rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 20240601);
  auto start = std::chrono::steady_clock::now();
  int64_t iterations = 0, parsed_ok = 0;
  while (true) {
    if (seconds > 0) {
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) break;
    } else if (iterations >= 3000) {
      break;
    }
    std::string input = Mutate(seeds[rng() % seeds.size()], rng);
    if (current_file) std::ofstream(current_file, std::ios::binary) << input;
    std::string problem = Check(input);
    ASSERT_EQ(problem, "") << "input:\n" << input;
    try {
      script::ParseTVMScript(input, "fuzz.py");
      ++parsed_ok;
    } catch (const Error&) {
    }
    ++iterations;
  }
  std::cout << "[ParserFuzz] " << iterations << " mutated inputs, " << parsed_ok << " parsed\n";
}

}  // namespace
}  // namespace tessera
