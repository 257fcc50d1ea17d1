# Finds LibTorch and exposes it as the interface target mixerlab::torch.
# LibTorch 2.x (e.g. the PyTorch wheel on a GPU box) ships TorchConfig.cmake; Debian's libtorch-dev 1.13
# does not, so we fall back to its headers and libraries under the system prefix.
find_package(Torch CONFIG QUIET)
add_library(mixerlab_torch INTERFACE)
add_library(mixerlab::torch ALIAS mixerlab_torch)
if(Torch_FOUND)
  message(STATUS "LibTorch: TorchConfig.cmake (${Torch_DIR})")
  target_link_libraries(mixerlab_torch INTERFACE ${TORCH_LIBRARIES})
  separate_arguments(_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  target_compile_options(mixerlab_torch INTERFACE ${_torch_flags})
else()
  find_path(MIXERLAB_TORCH_API_INCLUDE torch/torch.h
            PATHS /usr/include/torch/csrc/api/include /usr/local/include/torch/csrc/api/include)
  find_library(MIXERLAB_TORCH_LIB torch)
  find_library(MIXERLAB_TORCH_CPU_LIB torch_cpu)
  find_library(MIXERLAB_C10_LIB c10)
  if(NOT MIXERLAB_TORCH_API_INCLUDE OR NOT MIXERLAB_TORCH_CPU_LIB OR NOT MIXERLAB_C10_LIB)
    message(FATAL_ERROR "LibTorch not found. On Debian run installer/install-deps.sh (installs libtorch-dev); "
                        "elsewhere pass -DCMAKE_PREFIX_PATH=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')")
  endif()
  get_filename_component(_torch_root_include "${MIXERLAB_TORCH_API_INCLUDE}/../../../.." ABSOLUTE)
  message(STATUS "LibTorch: system fallback (${MIXERLAB_TORCH_CPU_LIB})")
  target_include_directories(mixerlab_torch SYSTEM INTERFACE ${MIXERLAB_TORCH_API_INCLUDE} ${_torch_root_include})
  target_link_libraries(mixerlab_torch INTERFACE ${MIXERLAB_TORCH_LIB} ${MIXERLAB_TORCH_CPU_LIB} ${MIXERLAB_C10_LIB})
endif()
find_package(Threads REQUIRED)
target_link_libraries(mixerlab_torch INTERFACE Threads::Threads)
