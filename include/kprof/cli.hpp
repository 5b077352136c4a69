// kprof: the command-line interface (src/cli), callable from main() and from tests.
#pragma once

namespace kprof {

/// Parses argv, runs the command and returns the process exit code (see README "Exit codes").
/// Prints data on stdout, diagnostics as `kprof: error: ...` on stderr. Never throws.
int run_cli(int argc, char** argv);

} // namespace kprof
