# SPDX-License-Identifier: Apache-2.0
# Unit tests for policy/, and the memfdprobe helper the bats suite uses.
# Included from tests/unit/CMakeLists.txt; plain commands only.

add_executable(policy_test ${CMAKE_CURRENT_LIST_DIR}/policy_test.c)
target_link_libraries(policy_test PRIVATE policy fakekernel_lib)

# One CTest test per table row, each in its own process with a timeout.
# Rows start with a tab and {"name", (or { "name",). Only that prefix is
# matched: the rest of a row (JSON with unbalanced [ ]) would garble a
# CMake list.
file(READ ${CMAKE_CURRENT_LIST_DIR}/policy_test.c policy_test_source)
string(REGEX MATCHALL "\n\t{ ?\"[a-z0-9_]+\"," policy_case_heads
	"${policy_test_source}")
foreach(head ${policy_case_heads})
	string(REGEX REPLACE "^\n\t{ ?\"([a-z0-9_]+)\",$" "\\1" name "${head}")
	add_test(NAME policy.${name} COMMAND policy_test ${name})
	set_tests_properties(policy.${name} PROPERTIES TIMEOUT 30 SKIP_RETURN_CODE 77)
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
	${CMAKE_CURRENT_LIST_DIR}/policy_test.c)

# tests/helpers/memfdprobe: creates memfds and reports modes, seals and
# errnos; built next to the other helpers.
add_executable(memfdprobe ${PROJECT_SOURCE_DIR}/tests/helpers/memfdprobe.c)
set_target_properties(memfdprobe PROPERTIES
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/helpers)
