// kprof: the command-line interface (src/cli), callable from main() and from tests.
#pragma once

namespace kprof {

/// Parses argv, runs the command and returns the process exit code (see README "Exit codes").
/// Prints data on stdout, diagnostics as `kprof: error: ...` on stderr. Never throws.
/// Ctrl-C/SIGTERM stop the running profile cleanly and give exit code 130.
int run_cli(int argc, char** argv);

/// run_cli without the interrupt bookkeeping (installs the signal handlers, runs one command).
int run_cli_command(int argc, char** argv);

} // namespace kprof
