# Warnings and sanitizer settings live on INTERFACE targets that modules link privately.
add_library(kprof_warnings INTERFACE)
target_compile_options(kprof_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast -Wsuggest-override
  -Wnon-virtual-dtor -pedantic
  $<$<BOOL:${KPROF_WERROR}>:-Werror>)
target_compile_definitions(kprof_warnings INTERFACE $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)

if(KPROF_ENABLE_SANITIZERS)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

# kprof_add_module(NAME SOURCES ... DEPENDS ...): a static library kprof_NAME built from the
# listed sources, with the public headers and the generated version header on its include path.
function(kprof_add_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  add_library(kprof_${name} STATIC ${M_SOURCES})
  target_include_directories(kprof_${name}
    PUBLIC "${PROJECT_SOURCE_DIR}/include" "${PROJECT_BINARY_DIR}/generated"
    PRIVATE "${PROJECT_SOURCE_DIR}/src")
  target_link_libraries(kprof_${name} PUBLIC ${M_DEPENDS} PRIVATE kprof_warnings ${M_PRIVATE_DEPENDS})
endfunction()
