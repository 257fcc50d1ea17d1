# One library per layer (static; shared with MIXERLAB_SHARED_LAYERS), linked in one direction, with
# includes that follow the links.
#
# Every layer gets an include "view": a folder in the build tree that holds one symbolic link, to the
# layer's own source folder (build/layer_views/<target>/core/models -> <source>/core/models). A
# target sees its own view and, through PUBLIC linking, the views of the layers it depends on, and
# never the source root. So `#include "core/train/trainer.h"` in core/models/ fails to compile
# ("No such file or directory") instead of quietly creating an upward dependency; the layering is
# enforced by the compiler, not by review. docs/architecture.md lists the layers.
#
# mixerlab_add_layer(<target> <folder> [DEPS <targets...>] [SOURCES <files...>])
#   folder:  the layer's folder relative to the source root (e.g. core/models)
#   SOURCES: explicit sources; default: every *.cpp below the folder (recursively)
function(mixerlab_add_layer target folder)
  cmake_parse_arguments(LAYER "" "" "DEPS;SOURCES" ${ARGN})
  if(NOT LAYER_SOURCES)
    file(GLOB_RECURSE LAYER_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${folder}/*.cpp)
  endif()
  add_library(${target} ${MIXERLAB_LAYER_LIBRARY_TYPE} ${LAYER_SOURCES})
  mixerlab_layer_view(${target} ${folder})
  target_link_libraries(${target} PUBLIC ${LAYER_DEPS})
endfunction()

# Gives an existing target the include view of `folder` (also used by tests and programs).
function(mixerlab_layer_view target folder)
  set(view ${CMAKE_BINARY_DIR}/layer_views/${target})
  get_filename_component(link_parent ${view}/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${link_parent})
  if(NOT EXISTS ${view}/${folder})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${folder} ${view}/${folder} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${view}>)
endfunction()

# Reuses one precompiled header (torch + nlohmann-json) across the torch layers.
function(mixerlab_torch_pch target)
  if(MIXERLAB_USE_PCH)
    if(NOT TARGET mixerlab_pch_anchor)
      message(FATAL_ERROR "mixerlab_torch_pch(${target}) before the PCH anchor exists")
    endif()
    target_precompile_headers(${target} REUSE_FROM mixerlab_pch_anchor)
  endif()
endfunction()
