// A fake CUDA driver (libcuda.so.1) and NVTX library (libnvtx3interop.so.1) for the harness's
// early primer on machines without a GPU, and a fake NVML (libnvidia-ml.so.1) that counts the
// machine's GPUs: KPROF_FAKE_GPU_COUNT, default 1, as the fake torch does.
// tests/python/test_harness.py builds this file three times, into a folder it puts on
// LD_LIBRARY_PATH. Each call appends one line to the file named by
// KPROF_FAKE_TORCH_LOG, the fake torch's event log ("cuda cuInit", "push kprof:primer",
// "cuda launch", "pop", ...). KPROF_FAKE_CUDA_FAIL=NAME makes the driver call NAME return 999.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void log_event(const char* event) {
  const char* path = getenv("KPROF_FAKE_TORCH_LOG");
  if (path == NULL) {
    return;
  }
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return;
  }
  char line[256];
  const int n = snprintf(line, sizeof line, "%s\n", event);
  if (n > 0) {
    (void)!write(fd, line, (size_t)n);
  }
  close(fd);
}

static int driver_call(const char* name) {
  char event[128];
  snprintf(event, sizeof event, "cuda %s", name);
  log_event(event);
  const char* fail = getenv("KPROF_FAKE_CUDA_FAIL");
  return fail != NULL && strcmp(fail, name) == 0 ? 999 : 0;
}

#if defined(KPROF_FAKE_NVML)
int nvmlInit_v2(void) {
  log_event("nvml init");
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned* count) {
  const char* machine = getenv("KPROF_FAKE_GPU_COUNT");
  *count = machine != NULL ? (unsigned)strtoul(machine, NULL, 10) : 1U;
  return 0;
}
int nvmlShutdown(void) {
  return 0;
}
#elif defined(KPROF_FAKE_NVTX)
int nvtxRangePushA(const char* message) {
  char event[200];
  snprintf(event, sizeof event, "push %s", message);
  log_event(event);
  return 0;
}
int nvtxRangePop(void) {
  log_event("pop");
  return 0;
}
#else
int cuInit(unsigned flags) {
  (void)flags;
  return driver_call("cuInit");
}
int cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return driver_call("cuDeviceGet");
}
int cuDevicePrimaryCtxRetain(void** context, int device) {
  (void)device;
  static int primary;
  *context = &primary;
  return driver_call("cuDevicePrimaryCtxRetain");
}
int cuCtxSetCurrent(void* context) {
  (void)context;
  return driver_call("cuCtxSetCurrent");
}
int cuModuleLoadData(void** module, const void* image) {
  static int loaded;
  *module = &loaded;
  return strstr((const char*)image, ".entry kprof_primer") != NULL ? driver_call("cuModuleLoadData")
                                                                   : 1;
}
int cuModuleGetFunction(void** function, void* module, const char* name) {
  (void)module;
  static int found;
  *function = &found;
  return strcmp(name, "kprof_primer") == 0 ? driver_call("cuModuleGetFunction") : 500;
}
int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared;
  (void)stream, (void)params, (void)extra;
  return driver_call("launch");
}
int cuCtxSynchronize(void) {
  return driver_call("sync");
}
#endif
