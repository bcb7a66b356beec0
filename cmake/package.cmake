# The .deb: `cmake --build build --target package` makes
# build/wslgpu-setup_<version>_amd64.deb with CPack (docs/packaging.md).
#
# The build also makes what the package holds besides the two programs:
# the manual pages (scdoc turns packaging/man/*.scd into roff), and the
# compressed changelog. Everything here is installed by `cmake --install`
# too, under its prefix.

find_program(SCDOC_PROGRAM scdoc)
if(NOT SCDOC_PROGRAM)
  message(FATAL_ERROR "scdoc not found: the manual pages are written for it (apt-get install scdoc; "
                      "cmake/build-deps.txt lists every package the build needs)")
endif()
find_program(GZIP_PROGRAM gzip REQUIRED)

# The date in the manual pages is the last commit's (cmake/version.cmake),
# so that a rebuild of the same commit makes the same pages.
if(WSLGPU_SOURCE_DATE_EPOCH)
  set(WSLGPU_DATE_ENV SOURCE_DATE_EPOCH=${WSLGPU_SOURCE_DATE_EPOCH})
else()
  set(WSLGPU_DATE_ENV)
endif()

set(WSLGPU_PACKAGING ${CMAKE_SOURCE_DIR}/packaging)
set(WSLGPU_MAN_DIR ${CMAKE_BINARY_DIR}/man)
set(WSLGPU_GENERATED_DOCS)
foreach(page wslgpu-setup.1 wslgpu-setup.toml.5)
  string(REGEX MATCH "[0-9]$" section ${page})
  set(source ${WSLGPU_PACKAGING}/man/${page}.scd)
  add_custom_command(
    OUTPUT ${WSLGPU_MAN_DIR}/${page} ${WSLGPU_MAN_DIR}/${page}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${WSLGPU_MAN_DIR}
    COMMAND ${CMAKE_COMMAND} -E env ${WSLGPU_DATE_ENV}
            sh -c "\"$1\" < \"$2\" > \"$3.tmp\" && mv \"$3.tmp\" \"$3\"" scdoc ${SCDOC_PROGRAM} ${source} ${WSLGPU_MAN_DIR}/${page}
    COMMAND sh -c "\"$1\" -9n < \"$2\" > \"$2.gz\"" gzip ${GZIP_PROGRAM} ${WSLGPU_MAN_DIR}/${page}
    DEPENDS ${source}
    COMMENT "Manual page ${page} (scdoc)"
    VERBATIM)
  list(APPEND WSLGPU_GENERATED_DOCS ${WSLGPU_MAN_DIR}/${page}.gz)
  install(FILES ${WSLGPU_MAN_DIR}/${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()

# A stripped install (what CPack makes) also loses the compiler's .comment
# section in the two programs, as Debian's dh_strip does.
install(CODE "
  if(CMAKE_INSTALL_DO_STRIP)
    foreach(program ${CMAKE_INSTALL_BINDIR}/wslgpu-setup ${CMAKE_INSTALL_LIBEXECDIR}/wslgpu-setup/wslgpu-setup-fetch)
      execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --remove-section=.comment
                              \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/\${program}\" COMMAND_ERROR_IS_FATAL ANY)
    endforeach()
  endif()")

# A native package's changelog; its newest entry must be this version.
file(STRINGS ${WSLGPU_PACKAGING}/debian/changelog WSLGPU_CHANGELOG_TOP LIMIT_COUNT 1)
if(NOT WSLGPU_CHANGELOG_TOP MATCHES "^wslgpu-setup \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "packaging/debian/changelog starts with \"${WSLGPU_CHANGELOG_TOP}\": "
                      "add an entry for version ${PROJECT_VERSION} (the project version) at its top")
endif()
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/doc/changelog.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/doc
  COMMAND sh -c "\"$1\" -9n < \"$2\" > \"$3\"" gzip ${GZIP_PROGRAM} ${WSLGPU_PACKAGING}/debian/changelog
          ${CMAKE_BINARY_DIR}/doc/changelog.gz
  DEPENDS ${WSLGPU_PACKAGING}/debian/changelog
  VERBATIM)
list(APPEND WSLGPU_GENERATED_DOCS ${CMAKE_BINARY_DIR}/doc/changelog.gz)
add_custom_target(docs ALL DEPENDS ${WSLGPU_GENERATED_DOCS})

install(FILES ${WSLGPU_PACKAGING}/bash-completion/wslgpu-setup
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES README.md ${WSLGPU_PACKAGING}/debian/copyright ${CMAKE_BINARY_DIR}/doc/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB WSLGPU_DOCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${WSLGPU_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# ---------------------------------------------------------------- CPack

set(WSLGPU_PACKAGE_MAINTAINER "wslgpu-setup maintainers <maintainers@users.noreply.a-seed-f46dacf5.example>"
    CACHE STRING "The Maintainer field of the .deb")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME wslgpu-setup)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "provision GPU compute (AMD ROCm, NVIDIA CUDA) inside WSL2")
# CPack puts the summary first, indents these lines and writes the empty
# one as " .".
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"wslgpu-setup turns a WSL2 distribution into a working GPU compute machine
with one command: AMD ROCm or NVIDIA CUDA from the vendors' own apt
repositories, without the kernel modules and Linux drivers that break GPU
access under WSL2. What it installs is written in declarative TOML
manifests; three profiles are bundled (rocm, cuda and wslconfig, for the
Windows-side .wslconfig).

Its plan command shows exactly what would change and changes nothing;
install applies it as one transaction: a failed step is rolled back, a
finished run can be undone later with rollback, and an interrupted one
finished or undone with recover. Kernel module packages and Linux NVIDIA
drivers are refused, also as dependencies. The doctor command diagnoses GPU
access and writes a redacted support bundle.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${WSLGPU_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
# The portable build needs only glibc 2.34 (tests/packaging/check-portable.sh
# proves it). libcurl and libarchive are opened by soname when a download, a
# .deb or a support bundle first needs them; Ubuntu 24.04 and Debian 13 ship
# the same sonames in packages renamed for the 64-bit time_t transition.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcurl4 | libcurl4t64, libarchive13 | libarchive13t64, ca-certificates")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${WSLGPU_PACKAGING}/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)

if(NOT WSLGPU_PORTABLE OR WSLGPU_FUZZ)
  message(STATUS "The package target makes a .deb of this build, which is not portable "
                 "(WSLGPU_PORTABLE=OFF or WSLGPU_FUZZ=ON): it runs only where this build does")
endif()

# ---------------------------------------------------------------- apt repository

# `cmake --build build --target apt-repo` makes this build's .deb (CPack,
# with the last commit's date, so the same commit makes the same bytes) and
# adds it to the signed apt repository in build/apt-repo with
# packaging/apt-repo.sh: the folder to upload for a release (docs/packaging.md,
# "Releases"). Not part of the normal build. Where it is published is
# WSLGPU_PUBLISH_URL in packaging/release.conf; the key signs it.
set(WSLGPU_SIGNING_KEY "" CACHE STRING
    "Key id or fingerprint of the secret key in your gpg keyring that signs the apt repository (target apt-repo); empty: $WSLGPU_SIGNING_KEY at build time")
set(WSLGPU_APT_REPO_DIR ${CMAKE_BINARY_DIR}/apt-repo CACHE PATH
    "The apt repository folder the target apt-repo adds this build's .deb to")
if(WSLGPU_SIGNING_KEY)
  set(WSLGPU_APT_REPO_KEY --key ${WSLGPU_SIGNING_KEY})
else()
  set(WSLGPU_APT_REPO_KEY)
endif()
set(WSLGPU_APT_REPO_DEB_DIR ${CMAKE_BINARY_DIR}/apt-repo-deb)
add_custom_target(apt-repo
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${WSLGPU_APT_REPO_DEB_DIR}
  COMMAND ${CMAKE_COMMAND} -E env ${WSLGPU_DATE_ENV}
          ${CMAKE_CPACK_COMMAND} --config ${CMAKE_BINARY_DIR}/CPackConfig.cmake -B ${WSLGPU_APT_REPO_DEB_DIR}
  COMMAND ${CMAKE_COMMAND} -E env ${WSLGPU_DATE_ENV}
          ${WSLGPU_PACKAGING}/apt-repo.sh --out ${WSLGPU_APT_REPO_DIR} ${WSLGPU_APT_REPO_KEY}
          ${WSLGPU_APT_REPO_DEB_DIR}/wslgpu-setup_${PROJECT_VERSION}_amd64.deb
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMENT "apt repository in ${WSLGPU_APT_REPO_DIR} with wslgpu-setup ${PROJECT_VERSION} (packaging/apt-repo.sh)"
  USES_TERMINAL
  VERBATIM)
add_dependencies(apt-repo wslgpu-setup wslgpu-setup-fetch docs)
