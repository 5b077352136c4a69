// The words and numbers the harness (templates/harness.py and templates/kprof_harness/) shares with
// the C++ side: its
// exit codes, its status and candidate phases and its cast words. Each side keeps its own copy
// (the script runs without kprof), so this test reads both and fails when one drifts.
#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/harness.hpp"

namespace kprof {
namespace {

/// Every file of the harness, one after the other, each beginning on a line of its own.
std::string harness_text() {
  std::string text;
  for (const HarnessFile& file : harness_files()) {
    text.append("\n").append(file.text);
  }
  return text;
}

/// Every first group of `pattern` in the harness, in order, without repeats.
std::vector<std::string> script_words(const std::string& pattern) {
  const std::string script = harness_text();
  const std::regex expression(pattern);
  std::vector<std::string> words;
  for (auto it = std::sregex_iterator(script.begin(), script.end(), expression);
       it != std::sregex_iterator(); ++it) {
    if (std::find(words.begin(), words.end(), (*it)[1].str()) == words.end()) {
      words.push_back((*it)[1].str());
    }
  }
  return words;
}

TEST(HarnessVocabulary, TheScriptsExitCodesAreTheOnesKprofKnows) {
  const std::string script = harness_text();
  const std::regex line(R"re(\nEXIT_([A-Z_]+) = (\d+)(?=\n))re");
  std::set<std::pair<std::string, int>> in_script;
  for (auto it = std::sregex_iterator(script.begin(), script.end(), line);
       it != std::sregex_iterator(); ++it) {
    in_script.emplace((*it)[1].str(), std::stoi((*it)[2].str()));
  }
  std::set<std::pair<std::string, int>> in_kprof;
  for (const auto& [name, code] : k_harness_exit_codes) {
    in_kprof.emplace(std::string(name), code);
  }
  EXPECT_EQ(in_script, in_kprof);
}

TEST(HarnessVocabulary, EveryStatusPhaseTheScriptWritesIsOneKprofReads) {
  std::vector<std::string> written = script_words(R"re(set_phase\("([a-z_]+)"\))re");
  written.insert(written.begin(), "start"); // new_status()
  const auto known = harness_status_phases();
  for (const std::string& phase : written) {
    EXPECT_NE(std::find(known.begin(), known.end(), phase), known.end()) << phase;
  }
  // ...and kprof knows no phase the script never writes.
  for (const std::string_view phase : known) {
    EXPECT_NE(std::find(written.begin(), written.end(), std::string(phase)), written.end())
        << phase;
  }
}

TEST(HarnessVocabulary, EveryCandidatePhaseTheScriptWritesParses) {
  std::vector<std::string> written =
      script_words(R"re(set_candidate_phase\(entry, "([a-z_]+)"\))re");
  written.insert(written.begin(), "not_started"); // new_candidate_status()
  ASSERT_GE(written.size(), 5U);
  for (const std::string& phase : written) {
    auto parsed = parse_harness_phase(phase);
    ASSERT_TRUE(parsed.ok()) << phase;
    EXPECT_EQ(to_string(*parsed), phase);
  }
}

TEST(HarnessVocabulary, TheTruthsPhasesAndVerdictsAreOnesKprofReads) {
  std::string truth;
  std::string correctness;
  for (const HarnessFile& file : harness_files()) {
    if (file.path == "kprof_harness/truth.py") {
      truth = std::string(file.text);
    } else if (file.path == "kprof_harness/correctness.py") {
      correctness = std::string(file.text);
    }
  }
  ASSERT_FALSE(truth.empty());
  ASSERT_FALSE(correctness.empty());
  const std::regex phase(R"re(set_candidate_phase\(entry, "([a-z_]+)"\))re");
  int phases = 0;
  for (auto it = std::sregex_iterator(truth.begin(), truth.end(), phase);
       it != std::sregex_iterator(); ++it, ++phases) {
    EXPECT_TRUE(parse_harness_phase((*it)[1].str()).ok()) << (*it)[1].str();
  }
  EXPECT_EQ(phases, 2);
  const std::regex verdict(R"re("verdict": "([a-z]+)")re");
  std::set<std::string> verdicts;
  for (const std::string* text : {&truth, &correctness}) {
    for (auto it = std::sregex_iterator(text->begin(), text->end(), verdict);
         it != std::sregex_iterator(); ++it) {
      verdicts.insert((*it)[1].str());
    }
  }
  std::set<std::string> known;
  for (const CheckVerdict value :
       {CheckVerdict::pass, CheckVerdict::fail, CheckVerdict::unchecked}) {
    known.insert(std::string(to_string(value)));
  }
  EXPECT_EQ(verdicts, known);
}

TEST(HarnessVocabulary, TheScriptTakesExactlyKprofsCastWords) {
  // CAST_DTYPES = {"bf16": "bfloat16", ...}: its keys, and the two words read_plan adds.
  const std::string script = harness_text();
  std::smatch table;
  ASSERT_TRUE(std::regex_search(script, table, std::regex(R"re(\nCAST_DTYPES = \{([^}]*)\})re")));
  const std::string body = table[1].str();
  const std::regex key(R"re("([a-z0-9]+)":)re");
  std::set<std::string> words{"none", "auto"};
  for (auto it = std::sregex_iterator(body.begin(), body.end(), key); it != std::sregex_iterator();
       ++it) {
    words.insert((*it)[1].str());
  }
  EXPECT_NE(script.find(R"re(plan["cast"] in ("none", "auto") or plan["cast"] in CAST_DTYPES)re"),
            std::string::npos);
  std::set<std::string> kprof_words;
  for (const CastDtype dtype : {CastDtype::none, CastDtype::auto_detect, CastDtype::bf16,
                                CastDtype::fp16, CastDtype::fp32}) {
    kprof_words.insert(std::string(to_string(dtype)));
  }
  EXPECT_EQ(words, kprof_words);
}

} // namespace
} // namespace kprof
