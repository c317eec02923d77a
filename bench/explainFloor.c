// The floor of explain's scan of /proc for npm run bench:explain: the
// system calls native/explain/open_files_linux.cc makes for every process,
// in plain C, and nothing else (no report, no Node). STEPS says which to
// make, cumulatively, so the bench can say where the time goes:
//
//   p  open /proc/<pid> and fstat it (always)
//   c  read comm and stat
//   f  list fd/
//   r  readlink every fd
//   d  for a link ending " (deleted)": read its fdinfo (the mount id), and
//      where the link is under TARGET, fstatat it (nlink, blocks)
//   m  read maps
//
//   explainFloor [-t THREADS] [-s STEPS] TARGET
//
// THREADS share the processes (pid i goes to thread i mod THREADS). Prints
// { "ms", "processes", "fds", "deleted", "held", "bytes" }: held and bytes
// count the fds on TARGET whose file has no link left.
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char kDeleted[] = " (deleted)";
enum { kDeletedLength = sizeof kDeleted - 1, kMaxThreads = 64 };

static int proc;
static int *pids;
static int count;
static int threads = 1;
static const char *steps = "pcfrdm";
static char target[4096];
static size_t target_length;
static _Atomic long long fds, deleted, held, bytes;

static int has(char step) { return strchr(steps, step) != NULL; }

static void read_all(int dir, const char *name) {
  char buffer[8192];
  int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  while (read(fd, buffer, sizeof buffer) > 0) {
  }
  close(fd);
}

static void descriptors(int pid_dir) {
  int fd_dir = openat(pid_dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_dir < 0) return;
  DIR *listing = fdopendir(fd_dir);
  if (listing == NULL) {
    close(fd_dir);
    return;
  }
  int info_dir = -1;
  char link[4096 + kDeletedLength + 1];
  for (struct dirent *entry; (entry = readdir(listing)) != NULL;) {
    if (entry->d_name[0] == '.') continue;
    fds++;
    if (!has('r')) continue;
    ssize_t length = readlinkat(fd_dir, entry->d_name, link, sizeof link - 1);
    if (length <= kDeletedLength || memcmp(link + length - kDeletedLength, kDeleted, kDeletedLength) != 0) continue;
    deleted++;
    if (!has('d')) continue;
    if (info_dir < 0) info_dir = openat(pid_dir, "fdinfo", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    read_all(info_dir, entry->d_name);
    if ((size_t)length <= target_length || memcmp(link, target, target_length) != 0) continue;
    struct stat st;
    if (fstatat(fd_dir, entry->d_name, &st, 0) == 0 && st.st_nlink == 0) {
      held++;
      bytes += (long long)st.st_blocks * 512;
    }
  }
  if (info_dir >= 0) close(info_dir);
  closedir(listing);
}

static void *scan(void *arg) {
  for (int i = (int)(long)arg; i < count; i += threads) {
    char name[16];
    snprintf(name, sizeof name, "%d", pids[i]);
    int pid_dir = openat(proc, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pid_dir < 0) continue;
    struct stat owner;
    fstat(pid_dir, &owner);
    if (has('c')) {
      read_all(pid_dir, "comm");
      read_all(pid_dir, "stat");
    }
    if (has('f')) descriptors(pid_dir);
    if (has('m')) read_all(pid_dir, "maps");
    close(pid_dir);
  }
  return NULL;
}

int main(int argc, char **argv) {
  for (int option; (option = getopt(argc, argv, "t:s:")) != -1;) {
    if (option == 't') threads = atoi(optarg);
    else if (option == 's') steps = optarg;
    else return 2;
  }
  if (optind != argc - 1 || threads < 1 || threads > kMaxThreads) {
    fprintf(stderr, "usage: explainFloor [-t THREADS] [-s pcfrdm] TARGET\n");
    return 2;
  }
  target_length = (size_t)snprintf(target, sizeof target, "%s/", argv[optind]);
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *listing = fdopendir(dup(proc));
  if (proc < 0 || listing == NULL) {
    perror("/proc");
    return 1;
  }
  int capacity = 1024;
  pids = malloc(sizeof *pids * (size_t)capacity);
  for (struct dirent *entry; (entry = readdir(listing)) != NULL;) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    if (count == capacity) pids = realloc(pids, sizeof *pids * (size_t)(capacity *= 2));
    pids[count++] = atoi(entry->d_name);
  }
  closedir(listing);
  pthread_t workers[kMaxThreads];
  for (long i = 1; i < threads; i++) pthread_create(&workers[i], NULL, scan, (void *)i);
  scan((void *)0);
  for (int i = 1; i < threads; i++) pthread_join(workers[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &end);
  double ms = (double)(end.tv_sec - start.tv_sec) * 1e3 + (double)(end.tv_nsec - start.tv_nsec) / 1e6;
  printf("{\"ms\":%.3f,\"processes\":%d,\"fds\":%lld,\"deleted\":%lld,\"held\":%lld,\"bytes\":%lld}\n", ms, count, (long long)fds, (long long)deleted,
         (long long)held, (long long)bytes);
  return 0;
}
