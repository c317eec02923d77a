/*
 * The floor under diskprobe's synchronous probe: the same system calls from C,
 * with nothing around them. bench/probe.mjs compiles and runs this each run.
 *
 *   floor <path> <calls-per-batch> <batches> [statvfs+stat|statvfs|statfs]
 *
 * Prints one line per batch: the mean nanoseconds per call in that batch.
 * "statvfs+stat" (the default) is native/probe/disk_usage_posix.cc's full probe on
 * Linux; "statvfs" is the probe without the device id, for a path whose
 * mount is already known; "statfs" is the single call behind Node's
 * fs.statfsSync (libuv's uv_fs_statfs).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#if defined(__linux__)
#include <sys/vfs.h>
#define HAVE_STATFS 1
#endif

/* Written after every call, so the compiler cannot drop the calls as unused. */
static volatile unsigned long long sink;

static int probe_statvfs_and_stat(const char *path) {
  struct statvfs vfs;
  struct stat st;
  if (statvfs(path, &vfs) != 0) return errno;
  if (stat(path, &st) != 0) return errno;
  sink = (unsigned long long)vfs.f_bavail * vfs.f_frsize + (unsigned long long)st.st_dev;
  return 0;
}

static int probe_statvfs(const char *path) {
  struct statvfs vfs;
  if (statvfs(path, &vfs) != 0) return errno;
  sink = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
  return 0;
}

#if HAVE_STATFS
static int probe_statfs(const char *path) {
  struct statfs fs;
  if (statfs(path, &fs) != 0) return errno;
  sink = (unsigned long long)fs.f_bavail * fs.f_bsize;
  return 0;
}
#endif

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s <path> <calls-per-batch> <batches> [statvfs+stat|statvfs|statfs]\n", argv[0]);
    return 2;
  }
  const char *path = argv[1];
  long calls = strtol(argv[2], NULL, 10);
  long batches = strtol(argv[3], NULL, 10);
  const char *mode = argc > 4 ? argv[4] : "statvfs+stat";
  if (calls < 1 || batches < 1) {
    fprintf(stderr, "calls-per-batch and batches must be positive\n");
    return 2;
  }

  int (*probe)(const char *) = NULL;
  if (strcmp(mode, "statvfs+stat") == 0) probe = probe_statvfs_and_stat;
  if (strcmp(mode, "statvfs") == 0) probe = probe_statvfs;
#if HAVE_STATFS
  if (strcmp(mode, "statfs") == 0) probe = probe_statfs;
#endif
  if (probe == NULL) {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }

  /* One unreported batch first: page faults, dentry cache, CPU frequency. */
  for (long i = 0; i < calls; i++) {
    int error = probe(path);
    if (error != 0) {
      fprintf(stderr, "%s: %s\n", path, strerror(error));
      return 1;
    }
  }
  for (long b = 0; b < batches; b++) {
    long long start = now_ns();
    for (long i = 0; i < calls; i++) probe(path);
    long long elapsed = now_ns() - start;
    printf("%.1f\n", (double)elapsed / (double)calls);
  }
  return 0;
}
