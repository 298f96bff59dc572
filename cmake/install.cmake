# Install rules: Ember installs as a source package, since a firmware's runtime and kernels must
# compile with that firmware's own toolchain and CPU flags (the kernel tier follows the target).
# `cmake --install` writes the sources a firmware needs (runtime, kernels, schema, boards, the
# toolchain file, the test firmware `ember firmware` builds, the C example a bundle ships) with the schema header and the
# flatbuffers headers already generated (no host flatc later), and ember-config.cmake for
# find_package(ember CONFIG). The wheel carries the same tree as ember/sdk.
if(SKBUILD)
  set(EMBER_INSTALL_DIR ember/sdk)
else()
  set(EMBER_INSTALL_DIR share/ember CACHE STRING "where the package goes under the prefix")
endif()

set(_tests PATTERN "*_test.*" EXCLUDE PATTERN "*_test_*" EXCLUDE PATTERN "test_util.h" EXCLUDE
           PATTERN "tier_test*" EXCLUDE PATTERN "in_place_test.h" EXCLUDE)
install(FILES CMakeLists.txt DESTINATION ${EMBER_INSTALL_DIR})
install(DIRECTORY runtime kernels DESTINATION ${EMBER_INSTALL_DIR} ${_tests})
install(DIRECTORY schema targets DESTINATION ${EMBER_INSTALL_DIR} PATTERN kernel_tests EXCLUDE PATTERN testing EXCLUDE
        ${_tests})
install(DIRECTORY examples/c_app DESTINATION ${EMBER_INSTALL_DIR}/examples)  # a bundle's example
install(FILES cmake/ember-config.cmake DESTINATION ${EMBER_INSTALL_DIR}/cmake)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ember-config-version.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/ember-config-version.cmake DESTINATION ${EMBER_INSTALL_DIR}/cmake)
install(DIRECTORY ${EMBER_SCHEMA_OUT}/ember ${EMBER_SCHEMA_OUT}/flatbuffers
        DESTINATION ${EMBER_INSTALL_DIR}/generated)
if(EXISTS /usr/share/doc/libflatbuffers-dev/copyright)
  install(FILES /usr/share/doc/libflatbuffers-dev/copyright
          DESTINATION ${EMBER_INSTALL_DIR}/generated/flatbuffers RENAME COPYRIGHT)
endif()
