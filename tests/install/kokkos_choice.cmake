# SPDX-License-Identifier: Apache-2.0
# install.kokkos_choice: install Sieve to a prefix, then configure a consumer
# (probe/) with CMAKE_PREFIX_PATH alone, on a machine where other Kokkos installs
# are on that path too: fake ones made here (fake_kokkos in common.cmake), one
# with another version, one with other backends (CUDA, as in the user trial).
# The Kokkos Sieve was built against must be the one used, or find_package(Sieve)
# must fail with a message naming both. Also: the package from the build tree,
# a moved (relocated) install prefix, and SieveConfigVersion.cmake.
#   cmake -DSIEVE_BUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=<tests/install>
#         -DKOKKOS_DIR=<Kokkos_DIR of the build> -P kokkos_choice.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
sieve_install_test_begin(kokkos_choice.cmake SIEVE_BUILD_DIR WORK_DIR SOURCE_DIR KOKKOS_DIR)

get_filename_component(real_dir "${KOKKOS_DIR}" ABSOLUTE)
get_filename_component(real_prefix "${real_dir}/../../.." ABSOLUTE)
set(prefix ${WORK_DIR}/prefix)
sieve_step(${CMAKE_COMMAND} --install ${SIEVE_BUILD_DIR} --prefix ${prefix})
# Other backends, same version: the Kokkos of the user trial (CUDA).
file(READ ${real_dir}/KokkosConfigVersion.cmake vfile)
string(REGEX MATCH "PACKAGE_VERSION \"([0-9.]+)\"" _ "${vfile}")
set(real_version ${CMAKE_MATCH_1})
sieve_fake_kokkos(${WORK_DIR}/kokkos-cuda ${real_version} "CUDA;SERIAL" "AMPERE80")
# Another major version, same backends as the real one.
file(READ ${real_dir}/KokkosConfigCommon.cmake cfile)
string(REGEX MATCH "[Ss][Ee][Tt]\\(Kokkos_DEVICES ([A-Z_;]+)\\)" _ "${cfile}")
set(real_devices ${CMAKE_MATCH_1})
string(REGEX MATCH "^[0-9]+" real_major "${real_version}")
math(EXPR other_major "${real_major} + 1")
sieve_fake_kokkos(${WORK_DIR}/kokkos-other ${other_major}.0.0 "${real_devices}")
# Paths inside regular expressions.
function(re_escape out s)
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" s "${s}")
  set(${out} "${s}" PARENT_SCOPE)
endfunction()
re_escape(prefix_re "${prefix}")
re_escape(work_re "${WORK_DIR}")
re_escape(build_re "${SIEVE_BUILD_DIR}")
re_escape(real_dir_re "${real_dir}")
message("built against Kokkos ${real_version} (${real_devices}) in ${real_dir}")

set(n 0)
set(failures "")
# probe(NAME <name> EXPECT ok|fail [MATCH <regex>...] [PREFIX_PATH <dir>...]
#       [ENV <k=v>...] [ARGS <cmake args>...]): PREFIX_PATH is CMAKE_PREFIX_PATH, as
#       -DCMAKE_PREFIX_PATH=<dir;dir...> (given in an initial cache: lists intact).
function(probe)
  cmake_parse_arguments(P "" "NAME;EXPECT" "MATCH;PREFIX_PATH;ENV;ARGS" ${ARGN})
  set(b ${WORK_DIR}/probe-${P_NAME})
  file(WRITE ${b}-init.cmake "set(CMAKE_PREFIX_PATH \"${P_PREFIX_PATH}\" CACHE PATH \"\")\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${P_ENV}
                          ${CMAKE_COMMAND} -C ${b}-init.cmake -S ${SOURCE_DIR}/probe -B ${b} ${P_ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(bad "")
  if(P_EXPECT STREQUAL "ok")
    if(NOT rc EQUAL 0)
      set(bad "configure failed (${rc})")
    else()
      sieve_read_probe(${b}/probe.txt)
      get_filename_component(got "${PROBE_Kokkos_DIR}" ABSOLUTE)
      if(NOT got STREQUAL real_dir)
        set(bad "used Kokkos ${PROBE_Kokkos_DIR}, not ${real_dir}")
      elseif(PROBE_fake)
        set(bad "a fake Kokkos was loaded (${PROBE_fake})")
      endif()
      foreach(m IN LISTS P_MATCH)
        if(NOT "${PROBE_Sieve_DIR}|${PROBE_library}" MATCHES "${m}")
          set(bad "Sieve_DIR ${PROBE_Sieve_DIR}, library ${PROBE_library}: no match for '${m}'")
        endif()
      endforeach()
    endif()
  else()
    if(rc EQUAL 0)
      set(bad "configure succeeded; it should have failed")
    endif()
    string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out} ${err}") # CMake wraps messages
    foreach(m IN LISTS P_MATCH)
      if(NOT flat MATCHES "${m}")
        set(bad "the error does not say '${m}'")
      endif()
    endforeach()
  endif()
  if(bad)
    message("FAIL ${P_NAME}: ${bad}\n--- output:\n${out}\n${err}")
    set(failures "${failures} ${P_NAME}" PARENT_SCOPE)
  else()
    message("ok   ${P_NAME}")
  endif()
endfunction()

# 1. Right Kokkos first on CMAKE_PREFIX_PATH, two different ones after it.
probe(NAME right_first EXPECT ok MATCH "^${prefix_re}/"
      PREFIX_PATH "${prefix}" "${real_prefix}" "${WORK_DIR}/kokkos-cuda" "${WORK_DIR}/kokkos-other")
# 2. Only Sieve's prefix and a different Kokkos (ahead of it): Sieve's record wins.
probe(NAME record_wins EXPECT ok
      PREFIX_PATH "${WORK_DIR}/kokkos-cuda" "${prefix}")
# 3. The project names a Kokkos with other backends: a clear error.
probe(NAME named_other_backends EXPECT fail
      MATCH "Sieve in ${prefix_re} was built against Kokkos ${real_version}" "backends differ" "${real_dir_re}"
            "Sieve_ALLOW_KOKKOS_MISMATCH"
      PREFIX_PATH "${prefix}"
      ARGS "-DKokkos_DIR=${WORK_DIR}/kokkos-cuda/lib/cmake/Kokkos")
# 4. Kokkos_ROOT in the environment names another version: a clear error.
probe(NAME root_other_version EXPECT fail MATCH "versions differ" "${other_major}\\.0\\.0"
      ENV "Kokkos_ROOT=${WORK_DIR}/kokkos-other" PREFIX_PATH "${prefix}")
# 5. The application found a different Kokkos itself before Sieve: a clear error.
probe(NAME app_found_other EXPECT fail MATCH "backends differ"
      PREFIX_PATH "${WORK_DIR}/kokkos-cuda" "${prefix}"
      ARGS -DPROBE_KOKKOS_FIRST=ON)
# 6. ... unless told to go on regardless (Sieve_ALLOW_KOKKOS_MISMATCH): a warning.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/probe -B ${WORK_DIR}/probe-allowed
                        "-DCMAKE_PREFIX_PATH=${prefix}" -DSieve_ALLOW_KOKKOS_MISMATCH=ON
                        "-DKokkos_DIR=${WORK_DIR}/kokkos-cuda/lib/cmake/Kokkos"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 AND err MATCHES "backends differ")
  message("ok   allowed_mismatch_warns")
else()
  message("FAIL allowed_mismatch_warns (${rc})\n${out}\n${err}")
  string(APPEND failures " allowed_mismatch_warns")
endif()
# 7. The install prefix moved elsewhere (relocatable), with a different Kokkos on the path.
file(RENAME ${prefix} ${WORK_DIR}/moved)
probe(NAME relocated EXPECT ok MATCH "^${work_re}/moved/" "libsieve_native\\."
      PREFIX_PATH "${WORK_DIR}/moved" "${WORK_DIR}/kokkos-other")
# 8. The build tree as the package.
probe(NAME build_tree EXPECT ok MATCH "^${build_re}" ARGS "-DSieve_DIR=${SIEVE_BUILD_DIR}")
# 9. SameMajorVersion: 0.1 is found, 1.0 is not.
probe(NAME version_same_major EXPECT ok PREFIX_PATH "${WORK_DIR}/moved"
      ARGS -DPROBE_SIEVE_VERSION=0.1)
probe(NAME version_other_major EXPECT fail MATCH "compatible with requested version"
      PREFIX_PATH "${WORK_DIR}/moved"
      ARGS -DPROBE_SIEVE_VERSION=1.0)

if(failures)
  message(FATAL_ERROR "install.kokkos_choice failed:${failures}")
endif()
message("install.kokkos_choice: all cases passed")
