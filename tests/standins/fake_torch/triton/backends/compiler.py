"""triton.backends.compiler.GPUTarget, as in Triton: (backend, arch, warp_size)."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class GPUTarget:
    backend: str
    arch: object
    warp_size: int
