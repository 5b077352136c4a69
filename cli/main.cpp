// The kprof command: a thin shell over the library (src/cli owns the commands).
#include "kprof/cli.hpp"

int main(int argc, char** argv) {
  return kprof::run_cli(argc, argv);
}
