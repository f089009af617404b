# SPDX-License-Identifier: Apache-2.0
# Helpers for the install tests (cmake -P scripts).

# The start of every install test: the variables it needs are set, WORK_DIR
# is empty, and no Kokkos comes from the environment of whoever runs it.
macro(sieve_install_test_begin script)
  foreach(v ${ARGN})
    if(NOT DEFINED ${v})
      message(FATAL_ERROR "${script}: ${v} is not set")
    endif()
  endforeach()
  file(REMOVE_RECURSE ${WORK_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR})
  unset(ENV{Kokkos_ROOT})
  unset(ENV{Kokkos_DIR})
  unset(ENV{CMAKE_PREFIX_PATH})
endmacro()

# Run a command; stop the test when it fails. Output in <prefix>_OUT.
function(sieve_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "'${ARGN}' failed (${rc})\n${out}\n${err}")
  endif()
endfunction()

# A fake Kokkos install under <dir>: only its CMake package (no headers, no
# library), declaring VERSION and DEVICES (and ARCH): a "different Kokkos" that
# costs nothing to make. Its targets mark themselves with SIEVE_FAKE_KOKKOS.
function(sieve_fake_kokkos dir version devices)
  set(arch "${ARGN}")
  set(d ${dir}/lib/cmake/Kokkos)
  file(MAKE_DIRECTORY ${d})
  file(WRITE ${d}/KokkosConfigVersion.cmake "
set(PACKAGE_VERSION \"${version}\")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
if(PACKAGE_FIND_VERSION)
  string(REGEX MATCH \"^[0-9]+\" _major \"\${PACKAGE_VERSION}\")
  if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION OR NOT PACKAGE_FIND_VERSION_MAJOR EQUAL _major)
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  endif()
endif()
")
  file(WRITE ${d}/KokkosConfig.cmake "
set(SIEVE_FAKE_KOKKOS \"${dir}\")
set(Kokkos_DEVICES ${devices})
set(Kokkos_ARCH ${arch})
set(Kokkos_CXX_COMPILER \"\${CMAKE_CXX_COMPILER}\")
foreach(dev \${Kokkos_DEVICES})
  set(Kokkos_ENABLE_\${dev} ON)
endforeach()
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos INTERFACE IMPORTED)
endif()
")
endfunction()

# Read KEY=value lines of a probe file into PROBE_<KEY>.
function(sieve_read_probe file)
  file(STRINGS ${file} lines)
  foreach(l IN LISTS lines)
    if(l MATCHES "^([A-Za-z_]+)=(.*)$")
      set(PROBE_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}" PARENT_SCOPE)
    endif()
  endforeach()
endfunction()
