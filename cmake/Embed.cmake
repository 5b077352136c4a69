# kprof_embed_text(OUT_CPP SYMBOL INPUT): generates a .cpp that defines
#   std::string_view SYMBOL() returning the bytes of INPUT (a text file kept in the repo, or a
# file the build makes, such as the process keeper's executable: $<TARGET_FILE:...>), so
# templates and help text live as real files and still ship inside the binary.
function(kprof_embed_text out_cpp symbol input)
  add_custom_command(
    OUTPUT "${out_cpp}"
    COMMAND "${CMAKE_COMMAND}" -DINPUT=${input} -DOUTPUT=${out_cpp} -DSYMBOL=${symbol}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedScript.cmake"
    DEPENDS "${input}" "${PROJECT_SOURCE_DIR}/cmake/EmbedScript.cmake"
    COMMENT "Embedding ${input}")
endfunction()

# kprof_embed_files(OUT_CPP SYMBOL BASE FILE...): generates a .cpp that defines
#   std::span<const std::pair<std::string_view, std::string_view>> SYMBOL()
# returning, in the order given, each FILE's path relative to BASE and its bytes: a set of files
# that ship together (the harness's entry script and its package).
function(kprof_embed_files out_cpp symbol base)
  set(inputs "")
  foreach(file IN LISTS ARGN)
    list(APPEND inputs "${base}/${file}")
  endforeach()
  string(REPLACE ";" "," files "${ARGN}")
  add_custom_command(
    OUTPUT "${out_cpp}"
    COMMAND "${CMAKE_COMMAND}" -DBASE=${base} -DFILES=${files} -DOUTPUT=${out_cpp}
            -DSYMBOL=${symbol} -P "${PROJECT_SOURCE_DIR}/cmake/EmbedFilesScript.cmake"
    DEPENDS ${inputs} "${PROJECT_SOURCE_DIR}/cmake/EmbedFilesScript.cmake"
    COMMENT "Embedding ${base}: ${files}")
endfunction()
