/*
 * The floor for listing every mount's usage: read /proc/self/mountinfo,
 * then statvfs each mount point, as a C program does with nothing else to
 * do. `mountsFloor ROUNDS` prints one line of JSON: the milliseconds of each
 * round, and how many mount points a round probed. For npm run bench:mounts.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* mountinfo's 5th field, its octal escapes (\040) undone in place. */
static char *mount_point(char *line)
{
	char *field = line;
	for (int i = 0; i < 4 && field; i++) {
		field = strchr(field, ' ');
		if (field) field++;
	}
	if (!field) return NULL;
	char *end = strchr(field, ' ');
	if (end) *end = '\0';
	char *in = field, *out = field;
	while (*in) {
		if (in[0] == '\\' && in[1] && in[2] && in[3]) {
			*out++ = (char)(((in[1] - '0') << 6) | ((in[2] - '0') << 3) | (in[3] - '0'));
			in += 4;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
	return field;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9;
	size_t capacity = 1 << 20;
	char *text = malloc(capacity);
	int probed = 0;
	printf("{\"ms\":[");
	for (int round = 0; round < rounds; round++) {
		double start = now_ms();
		int fd = open("/proc/self/mountinfo", O_RDONLY);
		size_t length = 0;
		for (ssize_t n; (n = read(fd, text + length, capacity - length - 1)) > 0;) {
			length += (size_t)n;
			if (capacity - length < 4096) text = realloc(text, capacity *= 2);
		}
		close(fd);
		text[length] = '\0';
		probed = 0;
		struct statvfs vfs;
		for (char *line = text, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next) *next++ = '\0';
			char *point = mount_point(line);
			if (point && statvfs(point, &vfs) == 0) probed++;
		}
		printf("%s%.3f", round ? "," : "", now_ms() - start);
	}
	printf("],\"probed\":%d}\n", probed);
	return 0;
}
