/*
 * The floor under `diskprobe du`: a parallel directory walk in plain C with
 * nothing around it. The threads share one stack of open directories; each
 * reads a directory with getdents64 into a large buffer and stats every
 * entry relative to the directory's descriptor, so no path is ever walked
 * twice. Totals are kept per thread and summed at the end; the only shared
 * writes are a directory push or pop and, for files with more than one
 * link, a (dev, ino) set, so each inode is counted once, as du counts it.
 * For npm run bench:du.
 *
 *   cc -O2 -pthread -o duFloor duFloor.c
 *   duFloor [-t THREADS] [-s fstatat|statx] [-x] [-A] [-M] [-r REPEATS] PATH
 *
 * -t  worker threads (default 2)
 * -s  the stat call: fstatat(AT_SYMLINK_NOFOLLOW) or statx(AT_SYMLINK_NOFOLLOW
 *     | AT_STATX_DONT_SYNC) asking only for type, ino, nlink, size, blocks
 * -x  stay on PATH's file system: a directory on another one is skipped,
 *     not counted, as GNU du -x does
 * -A  open directories with O_NOATIME; -M  stat with AT_NO_AUTOMOUNT
 * -r  walk REPEATS times in this process (fresh totals each time)
 *
 * Prints one JSON line: the milliseconds of each walk (elapsed, and CPU time
 * of all threads, user + system, from getrusage), then the last walk's
 * totals: allocated bytes (st_blocks × 512, what du -s -B1 prints),
 * apparent bytes (st_size, what du -s -b prints), files, directories (PATH
 * included), symlinks, other entries, names skipped as a link to an inode
 * already counted, and entries that could not be read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* The record getdents64 fills; glibc declares none for the raw call. */
struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Large enough that most directories are read in one call. */
#define DENTS_BUFFER (256 * 1024)
/* Past this many directories waiting, a thread walks its subdirectories
 * itself: open descriptors stay bounded whatever the tree's fan-out. */
#define MAX_PENDING 4096

enum stat_call { USE_FSTATAT, USE_STATX };

static enum stat_call stat_call = USE_FSTATAT;
static bool one_device;
static int open_flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
static int stat_flags = AT_SYMLINK_NOFOLLOW;
static dev_t root_dev;

struct meta {
	dev_t dev;
	ino_t ino;
	mode_t mode;
	nlink_t nlink;
	uint64_t size;
	uint64_t blocks;
};

/* One thread's running totals; aligned so threads never share a cache line. */
struct totals {
	_Alignas(64) uint64_t allocated, apparent, files, dirs, symlinks, others, linked, errors;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int fds[MAX_PENDING];
	int count;
	int busy; /* threads walking a directory, which may push more */
} pending = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

/* The inodes with more than one link seen so far: open addressing on (dev, ino). */
static struct {
	pthread_mutex_t lock;
	struct key {
		uint64_t dev, ino;
	} *slots;
	size_t capacity, used;
} seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t slot_of(uint64_t dev, uint64_t ino, size_t capacity)
{
	uint64_t h = (ino ^ (dev << 32 | dev >> 32)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (capacity - 1);
}

/* True the first time (dev, ino) is offered. Slot (0, 0) marks an empty slot: no file has inode 0. */
static bool first_sight(uint64_t dev, uint64_t ino)
{
	pthread_mutex_lock(&seen.lock);
	if (2 * (seen.used + 1) > seen.capacity) {
		size_t capacity = seen.capacity ? 2 * seen.capacity : 4096;
		struct key *slots = calloc(capacity, sizeof *slots);
		if (slots == NULL) {
			perror("duFloor: calloc");
			exit(1);
		}
		for (size_t i = 0; i < seen.capacity; i++) {
			if (seen.slots[i].ino == 0 && seen.slots[i].dev == 0) continue;
			size_t at = slot_of(seen.slots[i].dev, seen.slots[i].ino, capacity);
			while (slots[at].ino != 0 || slots[at].dev != 0) at = (at + 1) & (capacity - 1);
			slots[at] = seen.slots[i];
		}
		free(seen.slots);
		seen.slots = slots;
		seen.capacity = capacity;
	}
	size_t at = slot_of(dev, ino, seen.capacity);
	bool first = true;
	for (;; at = (at + 1) & (seen.capacity - 1)) {
		struct key *slot = &seen.slots[at];
		if (slot->ino == 0 && slot->dev == 0) {
			*slot = (struct key){ dev, ino };
			seen.used++;
			break;
		}
		if (slot->ino == ino && slot->dev == dev) {
			first = false;
			break;
		}
	}
	pthread_mutex_unlock(&seen.lock);
	return first;
}

static int meta_at(int dirfd, const char *name, struct meta *m)
{
	if (stat_call == USE_STATX) {
		struct statx stx;
		if (statx(dirfd, name, stat_flags | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO | STATX_NLINK | STATX_SIZE | STATX_BLOCKS, &stx) != 0)
			return -1;
		*m = (struct meta){ makedev(stx.stx_dev_major, stx.stx_dev_minor), stx.stx_ino, stx.stx_mode, stx.stx_nlink, stx.stx_size, stx.stx_blocks };
	} else {
		struct stat st;
		if (fstatat(dirfd, name, &st, stat_flags) != 0) return -1;
		*m = (struct meta){ st.st_dev, st.st_ino, st.st_mode, st.st_nlink, (uint64_t)st.st_size, (uint64_t)st.st_blocks };
	}
	return 0;
}

/* Adds one entry to `t`; false when it is a directory not to descend into. */
static bool count(const struct meta *m, struct totals *t)
{
	if (S_ISDIR(m->mode)) {
		if (one_device && m->dev != root_dev) return false;
		t->dirs++;
	} else {
		if (m->nlink > 1 && !first_sight(m->dev, m->ino)) {
			t->linked++;
			return false;
		}
		if (S_ISREG(m->mode)) t->files++;
		else if (S_ISLNK(m->mode)) t->symlinks++;
		else t->others++;
	}
	t->allocated += m->blocks * 512;
	t->apparent += m->size;
	return S_ISDIR(m->mode);
}

/* Pushes a directory for any thread to take; false when too many wait already. */
static bool push(int fd)
{
	pthread_mutex_lock(&pending.lock);
	bool room = pending.count < MAX_PENDING;
	if (room) {
		pending.fds[pending.count++] = fd;
		pthread_cond_signal(&pending.wake);
	}
	pthread_mutex_unlock(&pending.lock);
	return room;
}

/* Counts the entries of the open directory `fd` and closes it. */
static void walk(int fd, char *buffer, struct totals *t)
{
	int *kept = NULL; /* subdirectories this thread walks itself when `pending` is full */
	size_t nkept = 0, kept_capacity = 0;
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buffer, DENTS_BUFFER);
		if (n <= 0) {
			if (n < 0) t->errors++;
			break;
		}
		for (long at = 0; at < n;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buffer + at);
			at += d->d_reclen;
			const char *name = d->d_name;
			if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
			struct meta m;
			if (meta_at(fd, name, &m) != 0) {
				t->errors++;
				continue;
			}
			if (!count(&m, t)) continue;
			int child = openat(fd, name, open_flags);
			if (child < 0) {
				t->errors++;
			} else if (!push(child)) {
				if (nkept == kept_capacity) {
					kept_capacity = kept_capacity ? 2 * kept_capacity : 64;
					kept = realloc(kept, kept_capacity * sizeof *kept);
					if (kept == NULL) {
						perror("duFloor: realloc");
						exit(1);
					}
				}
				kept[nkept++] = child;
			}
		}
	}
	close(fd);
	for (size_t i = 0; i < nkept; i++) walk(kept[i], buffer, t);
	free(kept);
}

static void *worker(void *arg)
{
	struct totals *t = arg;
	char *buffer = malloc(DENTS_BUFFER);
	if (buffer == NULL) {
		perror("duFloor: malloc");
		exit(1);
	}
	pthread_mutex_lock(&pending.lock);
	for (;;) {
		while (pending.count == 0 && pending.busy > 0) pthread_cond_wait(&pending.wake, &pending.lock);
		if (pending.count == 0) break; /* nothing waiting and nobody to push more: done */
		int fd = pending.fds[--pending.count];
		pending.busy++;
		pthread_mutex_unlock(&pending.lock);
		walk(fd, buffer, t);
		pthread_mutex_lock(&pending.lock);
		if (--pending.busy == 0 && pending.count == 0) pthread_cond_broadcast(&pending.wake);
	}
	pthread_mutex_unlock(&pending.lock);
	free(buffer);
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of every thread of this process so far. On a shared machine it
 * varies far less than elapsed time, which waits for a free core. */
static double cpu_ms(void)
{
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
}

/* One walk of `path` with `threads` threads; the sum of their totals in `sum`. */
static void walk_tree(const char *path, int threads, struct totals *sum)
{
	struct totals *per = calloc((size_t)threads, sizeof *per);
	pthread_t *ids = calloc((size_t)threads, sizeof *ids);
	if (per == NULL || ids == NULL) {
		perror("duFloor: calloc");
		exit(1);
	}
	free(seen.slots);
	seen.slots = NULL;
	seen.capacity = seen.used = 0;

	struct meta m;
	if (meta_at(AT_FDCWD, path, &m) != 0) {
		fprintf(stderr, "duFloor: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	root_dev = m.dev;
	memset(sum, 0, sizeof *sum);
	if (count(&m, sum)) {
		int fd = open(path, open_flags);
		if (fd < 0) {
			fprintf(stderr, "duFloor: %s: %s\n", path, strerror(errno));
			exit(1);
		}
		pending.fds[pending.count++] = fd;
		for (int i = 0; i < threads; i++) {
			int error = pthread_create(&ids[i], NULL, worker, &per[i]);
			if (error != 0) {
				fprintf(stderr, "duFloor: pthread_create: %s\n", strerror(error));
				exit(1);
			}
		}
		for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
	}
	for (int i = 0; i < threads; i++) {
		sum->allocated += per[i].allocated;
		sum->apparent += per[i].apparent;
		sum->files += per[i].files;
		sum->dirs += per[i].dirs;
		sum->symlinks += per[i].symlinks;
		sum->others += per[i].others;
		sum->linked += per[i].linked;
		sum->errors += per[i].errors;
	}
	free(per);
	free(ids);
}

int main(int argc, char **argv)
{
	int threads = 2, repeats = 1;
	for (int opt; (opt = getopt(argc, argv, "t:s:xAMr:")) != -1;) {
		switch (opt) {
		case 't': threads = atoi(optarg); break;
		case 'r': repeats = atoi(optarg); break;
		case 'x': one_device = true; break;
		case 'A': open_flags |= O_NOATIME; break;
		case 'M': stat_flags |= AT_NO_AUTOMOUNT; break;
		case 's':
			if (strcmp(optarg, "statx") == 0) stat_call = USE_STATX;
			else if (strcmp(optarg, "fstatat") == 0) stat_call = USE_FSTATAT;
			else goto usage;
			break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || threads < 1 || repeats < 1) goto usage;

	/* Each pending directory is an open descriptor: allow as many as the hard limit does. */
	struct rlimit files;
	if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
		files.rlim_cur = files.rlim_max;
		setrlimit(RLIMIT_NOFILE, &files);
	}

	struct totals sum;
	double *cpu = calloc((size_t)repeats, sizeof *cpu);
	printf("{\"ms\":[");
	for (int i = 0; i < repeats; i++) {
		double start = now_ms(), cpu_start = cpu_ms();
		walk_tree(argv[optind], threads, &sum);
		cpu[i] = cpu_ms() - cpu_start;
		printf("%s%.3f", i ? "," : "", now_ms() - start);
	}
	printf("],\"cpuMs\":[");
	for (int i = 0; i < repeats; i++) printf("%s%.3f", i ? "," : "", cpu[i]);
	free(cpu);
	printf("],\"allocated\":%llu,\"apparent\":%llu,\"files\":%llu,\"dirs\":%llu,\"symlinks\":%llu,\"others\":%llu,\"linked\":%llu,\"errors\":%llu}\n",
	       (unsigned long long)sum.allocated, (unsigned long long)sum.apparent, (unsigned long long)sum.files, (unsigned long long)sum.dirs,
	       (unsigned long long)sum.symlinks, (unsigned long long)sum.others, (unsigned long long)sum.linked, (unsigned long long)sum.errors);
	return sum.errors ? 1 : 0;

usage:
	fprintf(stderr, "usage: duFloor [-t THREADS] [-s fstatat|statx] [-x] [-A] [-M] [-r REPEATS] PATH\n");
	return 2;
}
