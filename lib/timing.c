/* Stage timings on CLOCK_BOOTTIME, so they line up with the kernel's own timestamps. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "timing.h"
#include "util.h"

#ifndef EARLYMOUNT_VERSION
#define EARLYMOUNT_VERSION "unknown"
#endif

static struct timing_stage timing_overflow;

double timing_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timing_stage *timing_current(struct timings *t)
{
	return t->n > 0 && t->n <= TIMING_MAX_STAGES ? &t->stages[t->n - 1] : &timing_overflow;
}

void timing_begin(struct timings *t, const char *name)
{
	struct timing_stage *s = t->n < TIMING_MAX_STAGES ? &t->stages[t->n] : &timing_overflow;

	copy_str(s->name, sizeof(s->name), name);
	s->duration_ms = 0;
	s->start_sec = timing_now();
	if (t->n < TIMING_MAX_STAGES)
		t->n++;
}

void timing_add(struct timings *t, const char *name, double start_sec, double duration_ms)
{
	struct timing_stage *s;

	if (t->n >= TIMING_MAX_STAGES)
		return;
	s = &t->stages[t->n++];
	copy_str(s->name, sizeof(s->name), name);
	s->start_sec = start_sec;
	s->duration_ms = duration_ms;
}

void timing_end(struct timings *t)
{
	struct timing_stage *s = timing_current(t);

	s->duration_ms = (timing_now() - s->start_sec) * 1e3;
	log_info("stage %s: %.1f ms", s->name, s->duration_ms);
}

static int append(char *buf, size_t size, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *used, size - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *used)
		return -E2BIG;
	*used += (size_t)n;
	return 0;
}

int timing_format(const struct timings *t, const char *version, char *buf, size_t size)
{
	size_t used = 0;
	int r;

	if (size == 0)
		return -E2BIG;
	buf[0] = '\0';
	r = append(buf, size, &used, "earlymount %s\n", version);
	for (size_t i = 0; r == 0 && i < t->n && i < TIMING_MAX_STAGES; i++)
		r = append(buf, size, &used, "%s %.6f %.3f\n", t->stages[i].name,
			   t->stages[i].start_sec, t->stages[i].duration_ms);
	if (r == 0 && t->handoff_sec > 0)
		r = append(buf, size, &used, "handoff %.6f 0\n", t->handoff_sec);
	return r < 0 ? r : (int)used;
}

static int write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	int r = 0;

	if (fd < 0)
		return -errno;
	r = write_all(fd, text, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int timing_write(struct timings *t, const char *path)
{
	char text[4096];
	char dir[256];
	char *slash;
	int n;
	int r;

	t->handoff_sec = timing_now();
	r = copy_str(dir, sizeof(dir), path);
	if (r < 0)
		goto out;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			goto out;
		}
	}
	n = timing_format(t, EARLYMOUNT_VERSION, text, sizeof(text));
	if (n < 0) {
		r = n;
		goto out;
	}
	r = write_file(path, text, (size_t)n);
out:
	return r;
}
