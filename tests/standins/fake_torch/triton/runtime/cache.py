"""triton.runtime.cache: triton_key(), as in Triton 3.6 the hash of Triton's own sources and
library that begins every compile's cache key, computed once per process (functools.lru_cache).
Test hooks (not in Triton): with KPROF_FAKE_TRITON_LOG_KEY=1 each computation logs "triton key"
to KPROF_FAKE_TORCH_LOG (see the fake torch); KPROF_FAKE_TRITON_KEY_SECONDS=S makes it take S
seconds; KPROF_FAKE_TRITON_KEY_RAISES=1 makes it raise OSError (a file of Triton's unreadable)."""

import functools
import os
import time


@functools.lru_cache()
def triton_key():
    if os.environ.get("KPROF_FAKE_TRITON_KEY_RAISES") == "1":
        raise OSError("libtriton.so: permission denied")
    if os.environ.get("KPROF_FAKE_TRITON_KEY_SECONDS"):
        time.sleep(float(os.environ["KPROF_FAKE_TRITON_KEY_SECONDS"]))
    path = os.environ.get("KPROF_FAKE_TORCH_LOG")
    if path and os.environ.get("KPROF_FAKE_TRITON_LOG_KEY") == "1":
        with open(path, "a", encoding="utf-8") as f:
            f.write("triton key\n")
    return "0.0-fake-key"
