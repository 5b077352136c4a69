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
