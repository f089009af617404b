# Install the Sieve build tree into a scratch prefix, then configure, build and
# run tests/downstream against it with find_package(Sieve).
#   cmake -DSIEVE_BUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=... -DKokkos_DIR=...
#         [-DCUDA_COMPILER=...] -P run.cmake
foreach(v SIEVE_BUILD_DIR WORK_DIR SOURCE_DIR Kokkos_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: ${v} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "downstream: '${ARGN}' failed (${rc})\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
step(${CMAKE_COMMAND} --install ${SIEVE_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
set(extra)
if(CUDA_COMPILER)
  list(APPEND extra -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
endif()
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DKokkos_DIR=${Kokkos_DIR} ${extra})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/downstream)
