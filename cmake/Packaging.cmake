# Installation and the Debian package (`cpack -G DEB` in the build folder): the CLI and the GUI,
# a desktop entry and an icon, man pages and bash completion generated from --help at build time,
# and the demo project (copied to a writable folder on first use, core/runs/demo_project.h).
# Dependencies are computed by dpkg-shlibdeps, plus the libraries loaded at run time with dlopen.

set(MIXERLAB_GENERATED_DOCS ${CMAKE_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${MIXERLAB_GENERATED_DOCS})
add_custom_command(
  OUTPUT ${MIXERLAB_GENERATED_DOCS}/mixerlab.1 ${MIXERLAB_GENERATED_DOCS}/mixerlab.bash-completion
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:mixerlab> -DNAME=mixerlab
          "-DSUMMARY=train and analyse masked-mixer and transformer language models" -DSUBCOMMANDS=ON
          -DOUT=${MIXERLAB_GENERATED_DOCS}/mixerlab.1 -DCOMPLETION=${MIXERLAB_GENERATED_DOCS}/mixerlab.bash-completion
          -P ${CMAKE_SOURCE_DIR}/packaging/help_to_man.cmake
  DEPENDS mixerlab ${CMAKE_SOURCE_DIR}/packaging/help_to_man.cmake
  COMMENT "Man page and bash completion of mixerlab from --help")
set(MIXERLAB_DOC_OUTPUTS ${MIXERLAB_GENERATED_DOCS}/mixerlab.1 ${MIXERLAB_GENERATED_DOCS}/mixerlab.bash-completion)
if(MIXERLAB_BUILD_GUI)
  add_custom_command(
    OUTPUT ${MIXERLAB_GENERATED_DOCS}/mixerlab-gui.1
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:mixerlab-gui> -DNAME=mixerlab-gui
            "-DSUMMARY=desktop workbench for language-model architecture research"
            -DOUT=${MIXERLAB_GENERATED_DOCS}/mixerlab-gui.1 -P ${CMAKE_SOURCE_DIR}/packaging/help_to_man.cmake
    DEPENDS mixerlab-gui ${CMAKE_SOURCE_DIR}/packaging/help_to_man.cmake
    COMMENT "Man page of mixerlab-gui from --help")
  list(APPEND MIXERLAB_DOC_OUTPUTS ${MIXERLAB_GENERATED_DOCS}/mixerlab-gui.1)
  install(TARGETS mixerlab-gui RUNTIME DESTINATION bin)
  install(FILES ${MIXERLAB_GENERATED_DOCS}/mixerlab-gui.1 DESTINATION share/man/man1)
endif()
add_custom_target(mixerlab_docs ALL DEPENDS ${MIXERLAB_DOC_OUTPUTS})

install(FILES ${MIXERLAB_GENERATED_DOCS}/mixerlab.1 DESTINATION share/man/man1)
install(FILES ${MIXERLAB_GENERATED_DOCS}/mixerlab.bash-completion DESTINATION share/bash-completion/completions
        RENAME mixerlab)
install(FILES ${CMAKE_SOURCE_DIR}/resources/mixerlab.desktop DESTINATION share/applications)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/mixerlab.svg DESTINATION share/icons/hicolor/scalable/apps)
install(FILES ${CMAKE_SOURCE_DIR}/projects/demo/project.json DESTINATION share/mixerlab/projects/demo)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/projects/demo/data DESTINATION share/mixerlab/projects/demo)
# `mixerlab reproduce` reads the paper's presets and reported numbers (the TinyStories files for
# --scale paper are the user's to add: data/README.md says where from).
install(FILES ${CMAKE_SOURCE_DIR}/projects/paper/project.json ${CMAKE_SOURCE_DIR}/projects/paper/reported_numbers.json
        DESTINATION share/mixerlab/projects/paper)
install(FILES ${CMAKE_SOURCE_DIR}/projects/paper/data/README.md DESTINATION share/mixerlab/projects/paper/data)
# Blog II's Fineweb-edu presets (the corpus is the user's to add, as data/README.md says).
install(FILES ${CMAKE_SOURCE_DIR}/projects/fineweb/project.json DESTINATION share/mixerlab/projects/fineweb)
install(FILES ${CMAKE_SOURCE_DIR}/projects/fineweb/data/README.md DESTINATION share/mixerlab/projects/fineweb/data)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/mixerlab)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/mixerlab/docs)

set(CPACK_PACKAGE_NAME mixerlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "MixerLab developers <mixerlab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Workbench for masked-mixer and transformer language-model research")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Train, compare and analyse masked mixers, Llama/GPT transformers, hybrids and Mamba models:\n live loss curves, side-by-side generation, representation inversion and retrieval.\n A Qt 6 desktop workbench (mixerlab-gui) over a LibTorch core, and the headless mixerlab CLI.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded with dlopen, so dpkg-shlibdeps cannot see them: SentencePiece (core/data/
# sentencepiece_runtime.cpp) and OpenBLAS, which LibTorch's BLAS calls resolve to (20x faster).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libsentencepiece0, libopenblas0-pthread")
set(CPACK_GENERATOR DEB)
include(CPack)
