# SPDX-License-Identifier: Apache-2.0
# Sieve compile-fail check: build TARGET in BUILD_DIR, expect the build to
# fail, and expect the first line of the compiler output that reports an
# error to contain EXPECT (Sieve's static_assert text).
#   cmake -DBUILD_DIR=... -DTARGET=... -DEXPECT=... -P first_error.cmake
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}\n${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled; it must not")
endif()
string(REGEX MATCH "[^\n]*error[^\n]*" first "${all}")
if(first STREQUAL "")
  message(FATAL_ERROR "${TARGET}: no error line in the output:\n${all}")
endif()
string(FIND "${first}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${TARGET}: the first error is not Sieve's static_assert.\n"
                      "first error: ${first}\nexpected it to contain: ${EXPECT}")
endif()
message(STATUS "${TARGET}: first error is Sieve's: ${first}")
