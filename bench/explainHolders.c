// The processes npm run bench:explain scans: COUNT children, each holding
// FDS descriptors: 0, 1 and 2 on /dev/null, one file of its own on TARGET
// written and then unlinked (deleted, still held: what explain and lsof +L1
// must find), one such file on OTHER (deleted too, but on another file
// system: to be left out by a scan of TARGET), and the rest open on
// ordinary files, a pool of 1,000 on OTHER shared between the children.
//
//   explainHolders COUNT FDS TARGET OTHER
//
// Prints "ready COUNT BYTES" once every child holds its files (BYTES: what
// the deleted files on TARGET take, st_blocks × 512, summed), then waits
// for its stdin to reach EOF (the bench ended, however it ended) or for
// SIGTERM, and kills and reaps every child before it exits. Each child also
// dies with it (PR_SET_PDEATHSIG), should it be killed first.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

enum { POOL = 1000 };

static pid_t *children;
static int started;

static void end_all(int status) {
  for (int i = 0; i < started; i++) kill(children[i], SIGKILL);
  for (int i = 0; i < started; i++) {
    while (waitpid(children[i], NULL, 0) < 0 && errno == EINTR) {
    }
  }
  exit(status);
}

static void on_term(int signal) {
  (void)signal;
  end_all(0);
}

// Opens `path` for writing, writes `bytes` of it, unlinks it: held, deleted. The fd, or -1.
static int held_deleted(const char *path, size_t bytes) {
  static char page[4096];
  int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
  if (fd < 0) return -1;
  for (size_t done = 0; done < bytes; done += sizeof page) {
    if (write(fd, page, sizeof page) != (ssize_t)sizeof page) return -1;
  }
  return unlink(path) == 0 ? fd : -1;
}

// One child: its descriptors, one byte on `ready` ('k', or 'e' when it could not), then pause().
static void child(int index, int fds, const char *target, const char *other, int ready, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  signal(SIGTERM, SIG_DFL);
  int null = open("/dev/null", O_RDWR);
  int ok = null >= 0 && dup2(null, 0) == 0 && dup2(null, 1) == 1 && dup2(null, 2) == 2;
  if (null > 2) close(null);
  char path[4096];
  snprintf(path, sizeof path, "%s/held-%d", target, index);
  ok = ok && held_deleted(path, 4096 * (size_t)(1 + index % 4)) >= 0;
  snprintf(path, sizeof path, "%s/gone-%d", other, index);
  ok = ok && held_deleted(path, 4096) >= 0;
  for (int k = 0; ok && k < fds - 5; k++) {
    snprintf(path, sizeof path, "%s/pool/f%d", other, (index * (fds - 5) + k) % POOL);
    ok = open(path, O_RDONLY) >= 0;
  }
  if (write(ready, ok ? "k" : "e", 1) != 1) _exit(1);
  close(ready);
  for (;;) pause();
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: explainHolders COUNT FDS TARGET OTHER\n");
    return 2;
  }
  int count = atoi(argv[1]), fds = atoi(argv[2]);
  const char *target = argv[3], *other = argv[4];
  if (count < 1 || fds < 6) {
    fprintf(stderr, "explainHolders: COUNT must be at least 1 and FDS at least 6\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/pool", other);
  if (mkdir(path, 0755) != 0 && errno != EEXIST) {
    perror(path);
    return 1;
  }
  for (int i = 0; i < POOL; i++) {
    snprintf(path, sizeof path, "%s/pool/f%d", other, i);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0 || write(fd, "pool\n", 5) != 5) {
      perror(path);
      return 1;
    }
    close(fd);
  }
  children = calloc((size_t)count, sizeof *children);
  int pipe_fds[2];
  if (children == NULL || pipe(pipe_fds) != 0) {
    perror("explainHolders");
    return 1;
  }
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  signal(SIGHUP, on_term);
  pid_t self = getpid();
  for (int i = 0; i < count; i++) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("fork");
      end_all(1);
    }
    if (pid == 0) {
      close(pipe_fds[0]);
      child(i, fds, target, other, pipe_fds[1], self);
    }
    children[started++] = pid;
  }
  close(pipe_fds[1]);
  int held = 0;
  for (;;) {
    char answers[512];
    ssize_t got = read(pipe_fds[0], answers, sizeof answers);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    for (ssize_t i = 0; i < got; i++) {
      if (answers[i] != 'k') {
        fprintf(stderr, "explainHolders: a child could not open its files\n");
        end_all(1);
      }
      held++;
    }
    if (held == count) break;
  }
  close(pipe_fds[0]);
  if (held != count) {
    fprintf(stderr, "explainHolders: %d of %d children ready\n", held, count);
    end_all(1);
  }
  // What the deleted files take: written in whole pages, 1 to 4 a file.
  long long bytes = 0;
  for (int i = 0; i < count; i++) bytes += 4096LL * (1 + i % 4);
  printf("ready %d %lld\n", count, bytes);
  fflush(stdout);
  char sink[64];
  for (;;) {
    ssize_t got = read(0, sink, sizeof sink);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
  }
  end_all(0);
}
