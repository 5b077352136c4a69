# Writes OUTPUT: a C++ file defining `std::string_view kprof::SYMBOL()` with INPUT's bytes.
file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT}; do not edit.\n#include <string_view>\nnamespace kprof {\n"
  "namespace {\nconstexpr char k_bytes[] = {${bytes} '\\0'};\n}\n"
  "std::string_view ${SYMBOL}() { return {k_bytes, sizeof(k_bytes) - 1}; }\n}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
