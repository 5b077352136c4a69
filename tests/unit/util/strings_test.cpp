// printable(): the one escaping of text that kprof shows on a terminal or writes to a log.
#include <string>

#include <gtest/gtest.h>

#include "kprof/strings.hpp"

namespace kprof {
namespace {

TEST(Printable, EscapesTheControlsThatDriveATerminal) {
  // Clear screen, an OSC window title ended by BEL, the bell alone, DEL, NUL.
  EXPECT_EQ(printable("a\x1b[2Jb", Multiline::no), "a\\x1b[2Jb");
  EXPECT_EQ(printable("\x1b]0;owned\x07", Multiline::no), "\\x1b]0;owned\\x07");
  EXPECT_EQ(printable("ding\x07", Multiline::no), "ding\\x07");
  EXPECT_EQ(printable("x\x7fy", Multiline::no), "x\\x7fy");
  EXPECT_EQ(printable(std::string("n\0l", 3), Multiline::no), "n\\x00l");
  EXPECT_EQ(printable("back\bspace\rreturn", Multiline::no), "back\\x08space\\x0dreturn");
}

TEST(Printable, EscapesUtf8EncodedC1ControlsAsTheirCodePoint) {
  // U+009B is CSI on terminals that honour C1; U+0085 is NEL.
  EXPECT_EQ(printable("k\xc2\x9b"
                      "2J",
                      Multiline::no),
            "k\\x9b2J");
  EXPECT_EQ(printable("\xc2\x85", Multiline::no), "\\x85");
  // U+00A0 and above are printable characters: kept.
  EXPECT_EQ(printable("\xc2\xa0\xc3\xa9", Multiline::no), "\xc2\xa0\xc3\xa9");
}

TEST(Printable, EscapesEachByteThatIsNotUtf8) {
  EXPECT_EQ(printable("bad\xff\xfe", Multiline::no), "bad\\xff\\xfe");
  EXPECT_EQ(printable("\xc0\xaf", Multiline::no), "\\xc0\\xaf");                   // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80", Multiline::no), "\\xed\\xa0\\x80");          // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80", Multiline::no), "\\xf4\\x90\\x80\\x80"); // > U+10FFFF
  EXPECT_EQ(printable("cut\xe2\x82", Multiline::no), "cut\\xe2\\x82");             // truncated
  EXPECT_EQ(printable("\x80x", Multiline::no), "\\x80x"); // stray continuation
  // A C1 byte on its own (not UTF-8 encoded) is a stray byte, escaped too.
  EXPECT_EQ(printable("\x9b"
                      "2J",
                      Multiline::no),
            "\\x9b2J");
}

TEST(Printable, KeepsPrintableUtf8AndBackslashesAsTheyAre) {
  const std::string text = "softmax_kernel \xe2\x80\xa6 \xf0\x9f\x94\xa5 C:\\x1b path";
  EXPECT_TRUE(is_printable(text, Multiline::no));
  EXPECT_EQ(printable(text, Multiline::no), text);
}

TEST(Printable, KeepsLineBreaksAndTabsOnlyInMultilineText) {
  const std::string text = "Traceback:\n\tline 1\r\nend";
  EXPECT_EQ(printable(text, Multiline::yes), "Traceback:\n\tline 1\nend");
  EXPECT_EQ(printable(text, Multiline::no), "Traceback:\\x0a\\x09line 1\\x0d\\x0aend");
  EXPECT_EQ(printable("lone\rreturn", Multiline::yes), "lone\\x0dreturn");
  EXPECT_FALSE(is_printable(text, Multiline::yes)); // the CR of CRLF goes
  EXPECT_TRUE(is_printable("a\n\tb", Multiline::yes));
  EXPECT_FALSE(is_printable("a\n\tb", Multiline::no));
}

TEST(Printable, LeavesNoControlByteInAnyInput) {
  std::string every_byte;
  for (int i = 0; i < 256; ++i) {
    every_byte += static_cast<char>(i);
  }
  for (const Multiline multiline : {Multiline::no, Multiline::yes}) {
    const std::string out = printable(every_byte + every_byte, multiline);
    EXPECT_TRUE(is_printable(out, multiline));
    for (const char c : out) {
      const auto byte = static_cast<unsigned char>(c);
      EXPECT_TRUE(byte >= 0x20U || (multiline == Multiline::yes && (c == '\n' || c == '\t')))
          << int(byte);
      EXPECT_NE(byte, 0x7FU);
      EXPECT_LT(byte, 0x80U) << "only ASCII is left of bytes that are not UTF-8";
    }
  }
}

} // namespace
} // namespace kprof
