# SPDX-License-Identifier: Apache-2.0
# install.cpu_only: Sieve configured with its defaults next to an OpenMP-only
# Kokkos, on a machine where nvcc is on PATH (when this machine has one):
#  - the native CUDA face is NOT built (SIEVE_ENABLE_CUDA=AUTO follows Kokkos),
#  - the installed package does not look for the CUDA toolkit,
#  - the library file is named after its target (libsieve_native),
#  - as a subproject, Sieve leaves the parent's CMAKE_BUILD_TYPE alone and
#    builds no tests;
# and, with nvcc, against a (fake, configure-only) Kokkos with CUDA for AMPERE80:
#  - the native CUDA face is on by default, for Kokkos' architecture (80).
#   cmake -DSIEVE_SOURCE_DIR=<repo> -DWORK_DIR=... -DSOURCE_DIR=<tests/install>
#         -DKOKKOS_DIR=<a Kokkos without CUDA> [-DNVCC=<nvcc>] -P cpu_only.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
sieve_install_test_begin(cpu_only.cmake SIEVE_SOURCE_DIR WORK_DIR SOURCE_DIR KOKKOS_DIR)
unset(ENV{CUDAARCHS})
if(NVCC)
  get_filename_component(nvcc_dir "${NVCC}" DIRECTORY)
  set(ENV{PATH} "${nvcc_dir}:$ENV{PATH}")
endif()

# Sieve with its defaults (tests and benchmarks off: only the library).
set(b ${WORK_DIR}/build)
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SIEVE_SOURCE_DIR} -B ${b} -DCMAKE_BUILD_TYPE=Release
                        -DKokkos_DIR=${KOKKOS_DIR} -DSIEVE_ENABLE_TESTS=OFF
                        -DSIEVE_ENABLE_BENCHMARKS=OFF -DCMAKE_INSTALL_PREFIX=${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring Sieve failed\n${out}\n${err}")
endif()
if(NOT out MATCHES "native CUDA OFF")
  message(FATAL_ERROR "the native CUDA face is on with an OpenMP-only Kokkos\n${out}")
endif()
file(STRINGS ${b}/CMakeCache.txt cuda_compiler REGEX "^CMAKE_CUDA_COMPILER:")
if(cuda_compiler)
  message(FATAL_ERROR "CUDA was enabled: ${cuda_compiler}")
endif()
message("ok   default build: no native CUDA face (nvcc: '${NVCC}')")
sieve_step(${CMAKE_COMMAND} --build ${b})
sieve_step(${CMAKE_COMMAND} --install ${b})
file(GLOB libs ${prefix}/lib*/libsieve*)
if(NOT libs MATCHES "/libsieve_native\\.(a|so)" OR libs MATCHES "/libsieve\\.")
  message(FATAL_ERROR "library files: ${libs} (want libsieve_native)")
endif()
message("ok   library file: ${libs}")

# A consumer: CMAKE_PREFIX_PATH alone; no CUDA toolkit looked for.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/probe -B ${WORK_DIR}/probe
                        -DCMAKE_PREFIX_PATH=${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer failed to configure\n${out}\n${err}")
endif()
sieve_read_probe(${WORK_DIR}/probe/probe.txt)
if(PROBE_Sieve_HAVE_CUDA OR NOT "${PROBE_CUDAToolkit_FOUND}" STREQUAL "")
  message(FATAL_ERROR "the CPU-only package looked for CUDA: Sieve_HAVE_CUDA="
                      "${PROBE_Sieve_HAVE_CUDA} CUDAToolkit_FOUND=${PROBE_CUDAToolkit_FOUND}")
endif()
message("ok   consumer: Kokkos ${PROBE_Kokkos_VERSION} from ${PROBE_Kokkos_DIR}, no CUDA toolkit")

# As a subproject: no build type forced, no tests.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/parent -B ${WORK_DIR}/parent
                        -DSIEVE_SOURCE_DIR=${SIEVE_SOURCE_DIR} -DKokkos_DIR=${KOKKOS_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the parent project failed to configure\n${out}\n${err}")
endif()
sieve_read_probe(${WORK_DIR}/parent/parent.txt)
if(NOT "${PROBE_CMAKE_BUILD_TYPE}" STREQUAL "" OR PROBE_SIEVE_ENABLE_TESTS)
  message(FATAL_ERROR "as a subproject: CMAKE_BUILD_TYPE='${PROBE_CMAKE_BUILD_TYPE}' "
                      "SIEVE_ENABLE_TESTS=${PROBE_SIEVE_ENABLE_TESTS} (want '' and OFF)")
endif()
message("ok   subproject: build type left alone, no tests")

# A Kokkos with CUDA (fake, configure only): the native CUDA face by default, for
# Kokkos' architectures.
if(NVCC)
  file(READ ${KOKKOS_DIR}/KokkosConfigVersion.cmake vfile)
  string(REGEX MATCH "PACKAGE_VERSION \"([0-9.]+)\"" _ "${vfile}")
  sieve_fake_kokkos(${WORK_DIR}/kokkos-cuda ${CMAKE_MATCH_1} "CUDA;SERIAL" "AMPERE80")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SIEVE_SOURCE_DIR} -B ${WORK_DIR}/build-cuda
                          -DKokkos_DIR=${WORK_DIR}/kokkos-cuda/lib/cmake/Kokkos
                          -DCMAKE_CUDA_COMPILER=${NVCC} -DSIEVE_ENABLE_TESTS=OFF
                          -DSIEVE_ENABLE_BENCHMARKS=OFF
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "native CUDA face for architectures 80 \\(Kokkos\\)"
     OR NOT out MATCHES "native CUDA ON")
    message(FATAL_ERROR "with a CUDA Kokkos (AMPERE80)\n${out}\n${err}")
  endif()
  message("ok   CUDA Kokkos: native CUDA face for Kokkos' architecture 80")
else()
  message("--   no nvcc: the CUDA Kokkos case is not checked")
endif()
message("install.cpu_only: all cases passed")
