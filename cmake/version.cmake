# WSLGPU_GIT_REVISION: the commit the build is made from (`git rev-parse
# --short HEAD`), or "unknown" outside a git checkout (a source tarball).
# `wslgpu-setup --version` prints it after the project version.
# WSLGPU_SOURCE_DATE_EPOCH: that commit's time (the manual pages' date), or
# empty.
# WSLGPU_PROFILE_DATA_DATE: the day the bundled profiles (manifests/, whose
# release matrices go stale as vendors release) last changed: the date of
# the last commit touching manifests/, or outside git the newest file's
# modification day. `--version` prints it, so that a user can tell how old
# the release data of their wslgpu-setup is.
#
# Read when CMake configures. So that a new commit is seen without asking,
# the files that name HEAD's commit are configure dependencies: a commit
# (or checkout) reruns CMake, which rewrites generated/git_revision.cpp only.
find_package(Git QUIET)
set(WSLGPU_GIT_REVISION unknown)
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${CMAKE_SOURCE_DIR} rev-parse --short HEAD
    OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  if(NOT failed AND revision)
    set(WSLGPU_GIT_REVISION ${revision})
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${CMAKE_SOURCE_DIR} log -1 --format=%ct
      OUTPUT_VARIABLE WSLGPU_SOURCE_DATE_EPOCH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND ${CMAKE_COMMAND} -E env TZ=UTC ${GIT_EXECUTABLE} -C ${CMAKE_SOURCE_DIR} log -1 --format=%cd --date=format-local:%Y-%m-%d -- manifests
      OUTPUT_VARIABLE WSLGPU_PROFILE_DATA_DATE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${CMAKE_SOURCE_DIR} rev-parse --symbolic-full-name HEAD
      OUTPUT_VARIABLE ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    set(names HEAD packed-refs)
    if(ref MATCHES "^refs/")
      list(APPEND names ${ref})
    endif()
    foreach(name IN LISTS names)
      execute_process(COMMAND ${GIT_EXECUTABLE} -C ${CMAKE_SOURCE_DIR} rev-parse --path-format=absolute --git-path ${name}
        OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(path AND EXISTS ${path})
        set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${path})
      endif()
    endforeach()
  endif()
endif()
if(NOT WSLGPU_PROFILE_DATA_DATE)
  file(GLOB profile_files ${CMAKE_SOURCE_DIR}/manifests/*)
  set(WSLGPU_PROFILE_DATA_DATE unknown)
  foreach(f IN LISTS profile_files)
    file(TIMESTAMP ${f} day "%Y-%m-%d" UTC)
    if(WSLGPU_PROFILE_DATA_DATE STREQUAL "unknown" OR day STRGREATER WSLGPU_PROFILE_DATA_DATE)
      set(WSLGPU_PROFILE_DATA_DATE ${day})
    endif()
  endforeach()
endif()
message(STATUS "wslgpu-setup ${PROJECT_VERSION}, git revision ${WSLGPU_GIT_REVISION}, profile data of ${WSLGPU_PROFILE_DATA_DATE}")
