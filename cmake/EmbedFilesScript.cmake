# Writes OUTPUT: a C++ file defining
#   std::span<const std::pair<std::string_view, std::string_view>> kprof::SYMBOL()
# with each of FILES (comma-separated, relative to BASE) as {relative path, bytes}, in order.
string(REPLACE "," ";" files "${FILES}")
set(arrays "")
set(entries "")
set(index 0)
foreach(file IN LISTS files)
  file(READ "${BASE}/${file}" content HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
  string(APPEND arrays "constexpr char k_file_${index}[] = {${bytes} '\\0'};\n")
  string(APPEND entries "    {\"${file}\", {k_file_${index}, sizeof(k_file_${index}) - 1}},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${BASE}: ${FILES}; do not edit.\n"
  "#include <array>\n#include <span>\n#include <string_view>\n#include <utility>\n"
  "namespace kprof {\nnamespace {\n${arrays}"
  "constexpr std::array<std::pair<std::string_view, std::string_view>, ${index}> k_files{{\n"
  "${entries}}};\n}\n"
  "std::span<const std::pair<std::string_view, std::string_view>> ${SYMBOL}() { return k_files; }\n"
  "}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
