"""The harness's report module: exit codes, log lines, exceptions in words."""

from harness_helpers import harness

report = harness("report")


def test_the_exit_codes_are_the_documented_ones():
    assert (report.EXIT_OK, report.EXIT_CANDIDATE_FAILED, report.EXIT_PROBLEM_INVALID,
            report.EXIT_CUDA_POISONED, report.EXIT_STANDBY_IDLE, report.EXIT_INTERNAL) == (0, 1, 2, 3, 4, 70)


def test_a_log_line_goes_to_stderr_with_the_harness_prefix(capsys):
    report.log("cand0 warmup")

    out, err = capsys.readouterr()
    assert out == "" and err == "kprof-harness: cand0 warmup\n"


def test_clean_text_escapes_lone_surrogates_so_strict_utf8_readers_accept_it():
    text = report.clean_text("bad \udcff name")

    assert text == "bad \\udcff name"
    text.encode("utf-8")


def test_an_outcome_names_the_exception_by_its_type_and_its_messages_first_line():
    assert report.exception_words(ValueError("bad\nshape (3, 4)")) == "ValueError: bad"
    assert report.exception_words(KeyboardInterrupt()) == "KeyboardInterrupt"
    long = report.exception_words(RuntimeError("x" * 500))
    assert len(long) == report.WORDS_LENGTH and long.startswith("RuntimeError: xxx") and long.endswith("...")


def test_a_described_exception_keeps_the_tail_of_its_traceback():
    try:
        raise ValueError("\n".join("line %d" % i for i in range(50)))
    except ValueError as exc:
        described = report.describe_exception(exc)

    assert described["type"] == "ValueError" and described["message"].startswith("line 0\nline 1")
    lines = described["traceback"].splitlines()
    assert len(lines) == report.TRACEBACK_LINES and lines[-1] == "line 49"
