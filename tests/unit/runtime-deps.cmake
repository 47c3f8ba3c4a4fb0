# SPDX-License-Identifier: Apache-2.0
# cmake -DTOP=<source dir> -DLINKS=<link libraries> -P runtime-deps.cmake
#
# The folders a runtime copies (common/, cloned_binary/, nsexec/) must not
# include yajl or libcap headers, and their targets must not link those
# libraries: runc's and crun's Debian packages depend on libc6 and
# libseccomp2 only.
set(bad "")
foreach(dir common cloned_binary nsexec)
	file(GLOB files ${TOP}/${dir}/*.c ${TOP}/${dir}/*.h)
	foreach(f ${files})
		file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](yajl/|sys/capability\\.h|libcap)")
		if(lines)
			list(APPEND bad "${f}: ${lines}")
		endif()
	endforeach()
endforeach()
string(TOLOWER "${LINKS}" links)
if(links MATCHES "yajl|libcap|(^|[^a-z])cap([^a-z]|$)")
	list(APPEND bad "a runtime folder's target links: ${LINKS}")
endif()
if(bad)
	list(JOIN bad "\n" msg)
	message(FATAL_ERROR "A runtime would gain a dependency its package lacks (yajl or libcap):\n${msg}")
endif()
message(STATUS "common/, cloned_binary/, nsexec/: no yajl, no libcap (links: ${LINKS})")
