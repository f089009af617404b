# SPDX-License-Identifier: Apache-2.0
# docs.snippet.<page>.<n> of a CMake block: install this build into a scratch
# prefix, then configure and build the downstream project SOURCE_DIR (the block
# after add_executable(app main.cpp)) with CMAKE_PREFIX_PATH=<prefix> alone.
#   cmake -DSIEVE_BUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=... -P run_cmake.cmake
foreach(v SIEVE_BUILD_DIR WORK_DIR SOURCE_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_cmake.cmake: ${v} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
unset(ENV{Kokkos_ROOT})
unset(ENV{Kokkos_DIR})
unset(ENV{CMAKE_PREFIX_PATH})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "docs: '${ARGN}' failed (${rc})\n${out}\n${err}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install ${SIEVE_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/app)
message("docs: configured, built and ran against ${WORK_DIR}/prefix")
