"""The fake triton's backends: GPUTarget (backends.compiler) and the CUDA driver class
(backends.nvidia.driver) that a process without a visible GPU sets active by hand."""
