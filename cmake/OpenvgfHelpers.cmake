# SPDX-License-Identifier: Apache-2.0
# Build helpers shared by every folder: one place for warnings, standard and sanitizers.

set(OPENVGF_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
    -Woverloaded-virtual -Wimplicit-fallthrough)
# GCC 12 at -O2/-O3 reports false positives from inlined libstdc++ code (vector::insert
# into an empty vector, std::copy of small arrays): GCC bugs 105329, 106199, 105651.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND OPENVGF_WARNINGS -Wno-stringop-overflow -Wno-array-bounds -Wno-stringop-overread -Wno-restrict)
endif()
if(OPENVGF_WERROR)
  list(APPEND OPENVGF_WARNINGS -Werror)
endif()

set(OPENVGF_SANITIZER_FLAGS)
if(OPENVGF_ENABLE_SANITIZERS)
  set(OPENVGF_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
      -fno-omit-frame-pointer)
elseif(OPENVGF_ENABLE_TSAN)
  set(OPENVGF_SANITIZER_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
endif()

function(openvgf_configure_target target)
  target_compile_options(${target} PRIVATE ${OPENVGF_WARNINGS} ${OPENVGF_SANITIZER_FLAGS})
  target_link_options(${target} PRIVATE ${OPENVGF_SANITIZER_FLAGS})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
endfunction()

# openvgf_add_library(NAME <folder> SRCS ... DEPS ... [INTERFACE])
# Creates openvgf_<folder> with alias openvgf::<folder>.
function(openvgf_add_library)
  cmake_parse_arguments(ARG "INTERFACE" "NAME" "SRCS;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target openvgf_${ARG_NAME})
  if(ARG_INTERFACE)
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
    target_link_libraries(${target} INTERFACE ${ARG_DEPS})
  else()
    add_library(${target} STATIC ${ARG_SRCS})
    openvgf_configure_target(${target})
    target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  endif()
  add_library(openvgf::${ARG_NAME} ALIAS ${target})
endfunction()

# openvgf_add_executable(NAME SRCS ... DEPS ...)
function(openvgf_add_executable)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  openvgf_configure_target(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS})
endfunction()

# openvgf_add_test(NAME SRCS ... DEPS ... [LABELS ...] [ENV ...] [TIMEOUT s] [COST s])
# A GoogleTest executable registered with CTest; tests run from the build tree with
# OPENVGF_TEST_DATA pointing at tests/data and OPENVGF_CLI at the openvgf binary.
function(openvgf_add_test)
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT;COST" "SRCS;DEPS;LABELS;ENV" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  openvgf_configure_target(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${ARG_NAME} PRIVATE
      OPENVGF_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data"
      OPENVGF_TEST_PYTHON="${OPENVGF_TEST_PYTHON}")
  if(TARGET openvgf)
    target_compile_definitions(${ARG_NAME} PRIVATE OPENVGF_CLI="$<TARGET_FILE:openvgf>")
    add_dependencies(${ARG_NAME} openvgf)
  endif()
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
  # Tests that load a Vulkan driver get the label `vulkan`: the loader unloads the driver
  # before LeakSanitizer runs, so the driver's own allocations cannot be attributed or
  # suppressed; `make test-asan` runs these with leak detection off (leaked Vulkan objects are
  # still reported by the validation layer).
  foreach(dep openvgf::vulkan openvgf::runner openvgf::converter)
    if(dep IN_LIST ARG_DEPS)
      list(APPEND ARG_LABELS vulkan)
      break()
    endif()
  endforeach()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  set_tests_properties(${ARG_NAME} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${ARG_LABELS}"
      ENVIRONMENT "${ARG_ENV}")
  # CTest starts the costliest tests first; without timings of an earlier run (a fresh clone in
  # CI) it only knows the COST given here: the Release seconds of the long tests.
  if(ARG_COST)
    set_tests_properties(${ARG_NAME} PROPERTIES COST ${ARG_COST})
  endif()
endfunction()

# openvgf_flatbuffers(TARGET <name> SCHEMA <file.fbs>)
# Generates <name>_generated.h from the schema with flatc at build time into
# ${PROJECT_BINARY_DIR}/generated/<folder>/ and makes TARGET depend on it.
function(openvgf_flatbuffers)
  cmake_parse_arguments(ARG "" "TARGET;SCHEMA;FOLDER" "" ${ARGN})
  get_filename_component(stem ${ARG_SCHEMA} NAME_WE)
  set(outdir ${PROJECT_BINARY_DIR}/generated/${ARG_FOLDER})
  set(out ${outdir}/${stem}_generated.h)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
    COMMAND ${FLATC} --cpp --scoped-enums -o ${outdir} ${ARG_SCHEMA}
    DEPENDS ${ARG_SCHEMA}
    COMMENT "flatc ${stem}.fbs"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_${stem}_fbs DEPENDS ${out})
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_${stem}_fbs)
endfunction()
