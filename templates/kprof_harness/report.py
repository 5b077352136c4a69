"""What the harness says besides its status: its exit codes, its log lines on stderr, and
exceptions in words (a status entry, or an outcome of a few words)."""

import sys
import traceback

# The process's exit codes (docs/harness.md, "Exit codes"; C++: k_harness_exit_* in
# include/kprof/harness.hpp, compared with these by tests/unit/harness/vocabulary_test.cpp).
EXIT_OK = 0
EXIT_CANDIDATE_FAILED = 1
EXIT_PROBLEM_INVALID = 2
EXIT_CUDA_POISONED = 3
EXIT_STANDBY_IDLE = 4
EXIT_INTERNAL = 70

TRACEBACK_LINES = 30
WORDS_LENGTH = 200  # exception_words: an outcome's exception, type and first line


def log(message):
    """One line on stderr, "kprof-harness: <message>" (stdout is the program's: ncu mixes it into
    its own output)."""
    sys.stderr.write("kprof-harness: " + message + "\n")
    sys.stderr.flush()


def clean_text(text):
    """Text that survives strict UTF-8 JSON readers (lone surrogates become escapes)."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def exception_words(exc):
    """An exception in a few words: its type and its message's first line, at most
    WORDS_LENGTH characters (an outcome, not a report: the traceback is left out)."""
    lines = str(exc).strip().splitlines()
    words = type(exc).__name__ + (": " + lines[0] if lines else "")
    return words if len(words) <= WORDS_LENGTH else words[:WORDS_LENGTH - 3] + "..."


def describe_exception(exc):
    """{"type", "message", "traceback"} of an exception, the traceback cut to its tail."""
    lines = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).splitlines()
    return {
        "type": type(exc).__name__,
        "message": clean_text(exc),
        "traceback": clean_text("\n".join(lines[-TRACEBACK_LINES:])),
    }
