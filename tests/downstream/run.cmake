# SPDX-License-Identifier: Apache-2.0
# Install the Sieve build tree into a scratch prefix, then configure, build and
# run tests/downstream against it as a user does: find_package(Sieve) with
# CMAKE_PREFIX_PATH=<prefix> alone (Sieve finds its own Kokkos, and the CUDA
# toolkit only when it has the native CUDA face). APP: the program to run
# (default downstream, with downstream_mpi where it was built; the docs'
# CMake blocks build `app`).
#   cmake -DSIEVE_BUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=... [-DAPP=...] -P run.cmake
foreach(v SIEVE_BUILD_DIR WORK_DIR SOURCE_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: ${v} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
unset(ENV{Kokkos_ROOT})
unset(ENV{Kokkos_DIR})
unset(ENV{CMAKE_PREFIX_PATH})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "downstream: '${ARGN}' failed (${rc})\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
step(${CMAKE_COMMAND} --install ${SIEVE_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
if(NOT DEFINED APP)
  set(APP downstream)
endif()
step(${WORK_DIR}/build/${APP})
if(APP STREQUAL "downstream" AND EXISTS ${WORK_DIR}/build/downstream_mpi)
  step(${WORK_DIR}/build/downstream_mpi) # MPI's singleton start: one rank, no mpiexec
endif()
