"""Fake torch.backends: cuda.matmul.allow_tf32 (False, real torch's default)."""

import types as _types

cuda = _types.SimpleNamespace(matmul=_types.SimpleNamespace(allow_tf32=False))
