import os
import signal


def kernel_function(x, y):
    # What a fault in native code (a C extension, ctypes, the driver) does to the process.
    os.kill(os.getpid(), signal.SIGSEGV)
