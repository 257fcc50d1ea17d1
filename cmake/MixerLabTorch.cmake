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
  # A PyTorch wheel's libtorch.so exports some C++ standard library functions of its own (166 in 2.11,
  # std::filesystem::remove_all among them), which crash when a program's lookup reaches libtorch.so
  # before libstdc++.so (docs/gpu-build.md). Naming libstdc++ first makes it the first library the
  # dynamic linker searches after the program, as it is in Python.
  target_link_options(mixerlab_torch INTERFACE "LINKER:--push-state,--no-as-needed,-lstdc++,--pop-state")
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

# NCCL for data-parallel GPU ranks (core/distributed/process_group.cpp): on by default when the
# LibTorch found has CUDA (a PyTorch wheel's) and nccl.h is found (the CUDA toolkit, NCCL_HOME, or
# the wheel's nvidia-nccl package beside torch). Debian's CPU LibTorch has no NCCL, so there the
# option is off and every group is Gloo. Forcing it ON there compiles process_group.cpp against the
# NCCL headers (a compile check; the link then fails without libtorch_cuda).
set(_torch_has_cuda OFF)
if(Torch_FOUND AND (TARGET torch_cuda OR TORCH_CUDA_LIBRARIES))
  set(_torch_has_cuda ON)
endif()
set(_torch_site "")
if(Torch_DIR)
  get_filename_component(_torch_site "${Torch_DIR}/../../../.." ABSOLUTE)
endif()
find_path(MIXERLAB_NCCL_INCLUDE nccl.h
          HINTS $ENV{NCCL_HOME}/include ${_torch_site}/nvidia/nccl/include /usr/local/cuda/include /usr/include)
find_path(MIXERLAB_CUDA_RUNTIME_INCLUDE cuda_runtime_api.h HINTS /usr/local/cuda/include $ENV{CUDA_HOME}/include)
set(_nccl_default OFF)
if(_torch_has_cuda AND MIXERLAB_NCCL_INCLUDE)
  set(_nccl_default ON)
endif()
option(MIXERLAB_WITH_NCCL "Data-parallel GPU ranks over NCCL (needs a CUDA LibTorch)" ${_nccl_default})
if(MIXERLAB_WITH_NCCL AND NOT MIXERLAB_NCCL_INCLUDE)
  message(FATAL_ERROR "MIXERLAB_WITH_NCCL is ON but nccl.h was not found: set NCCL_HOME or install the NCCL headers")
endif()
message(STATUS "NCCL process groups: ${MIXERLAB_WITH_NCCL}")
