# SPDX-License-Identifier: Apache-2.0
# The install test (see CMakeLists.txt). Each step fails the test with the command's output.
function(step)
  cmake_parse_arguments(ARG "" "EXPECT;EXIT" "COMMAND" ${ARGN})
  if(NOT DEFINED ARG_EXIT)
    set(ARG_EXIT 0)
  endif()
  execute_process(COMMAND ${ARG_COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL ARG_EXIT)
    string(REPLACE ";" " " text "${ARG_COMMAND}")
    message(FATAL_ERROR "${text}\nexit ${rc}, expected ${ARG_EXIT}\n${out}\n${err}")
  endif()
  if(ARG_EXPECT AND NOT "${out}${err}" MATCHES "${ARG_EXPECT}")
    string(REPLACE ";" " " text "${ARG_COMMAND}")
    message(FATAL_ERROR "${text}: expected output matching '${ARG_EXPECT}', got\n${out}\n${err}")
  endif()
  message(STATUS "ok: ${ARG_COMMAND}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
step(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# What the package promises.
include(GNUInstallDirs)
foreach(f bin/openvgf include/openvgf/openvgf.hpp include/openvgf/openvgf.h
          ${CMAKE_INSTALL_LIBDIR}/libopenvgf.so ${CMAKE_INSTALL_LIBDIR}/libopenvgf.a
          ${CMAKE_INSTALL_LIBDIR}/cmake/openvgf/openvgfConfig.cmake
          ${CMAKE_INSTALL_LIBDIR}/cmake/openvgf/openvgfConfigVersion.cmake
          ${CMAKE_INSTALL_LIBDIR}/pkgconfig/openvgf.pc)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "${prefix}/${f}: expected to be installed")
  endif()
endforeach()
# The installed headers include standard headers and each other only.
file(GLOB headers ${prefix}/include/openvgf/*)
foreach(h ${headers})
  file(STRINGS ${h} includes REGEX "^#include")
  foreach(line ${includes})
    if(NOT line MATCHES "^#include [<\"](openvgf/openvgf\\.h|[a-z_]+(\\.h)?)[>\"]$")
      message(FATAL_ERROR "${h}: expected standard or openvgf headers only, got: ${line}")
    endif()
  endforeach()
endforeach()
step(COMMAND ${prefix}/bin/openvgf --version EXPECT "openvgf [0-9]")
# The command is written on the installed library alone (cli/CMakeLists.txt): it runs from the
# prefix, finding lib/libopenvgf.so by its RPATH.
step(COMMAND ${prefix}/bin/openvgf inspect ${MODEL} EXPECT "TosaInput_0")

# An out-of-tree CMake project: find_package(openvgf CONFIG), shared and static.
step(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer -G ${GENERATOR}
             -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
             -DCMAKE_BUILD_TYPE=Release)
step(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
set(ENV{XDG_CACHE_HOME} ${WORK_DIR}/cache)
# The ADD fixture adds two inputs filled with 1.5.
set(result "TosaOutput_0 FP32: 3 3 3 3")
foreach(example openvgf_example openvgf_c_example openvgf_example_static)
  if(NOT EXISTS ${WORK_DIR}/consumer/${example})
    message(FATAL_ERROR "${example}: expected the consumer project to build it")
  endif()
  step(COMMAND ${WORK_DIR}/consumer/${example} ${MODEL} EXPECT "${result}")
endforeach()
# Host I/O: the two runs in flight give 3 (1.5 + 1.5); the chain adds 1.5 to that on the device.
foreach(example openvgf_host_io_example openvgf_c_host_io_example)
  step(COMMAND ${WORK_DIR}/consumer/${example} ${MODEL}
       EXPECT "second run: 3 3 3 3\nfirst run: 3 3 3 3\nchained: 4.5 4.5 4.5 4.5")
endforeach()
step(COMMAND ${WORK_DIR}/consumer/openvgf_example ${CONSUMER_DIR}/main.cpp EXIT 2
     EXPECT "main.cpp: cannot run a file of unknown format: expected a TOSA flatbuffer")

# A C program built with pkg-config against the shared library.
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs openvgf OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rc)
  execute_process(COMMAND ${PKG_CONFIG} --variable=libdir openvgf OUTPUT_VARIABLE libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT flags MATCHES "-lopenvgf")
    message(FATAL_ERROR "pkg-config --cflags --libs openvgf: got '${flags}'")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  step(COMMAND ${C_COMPILER} -std=c99 -Wall -Wextra -Werror ${CONSUMER_DIR}/main.c ${flags} -Wl,-rpath,${libdir}
               -o ${WORK_DIR}/c_pkg_config_example)
  step(COMMAND ${WORK_DIR}/c_pkg_config_example ${MODEL} EXPECT "${result}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
