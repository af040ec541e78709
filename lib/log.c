/* The one logging helper. PID 1 writes to /dev/kmsg so messages land in the kernel log with
 * their level, and to the console only what the kernel will not echo itself, so a serial
 * console never shows a line twice. Logging never fails the caller. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "util.h"

#define LOG_PREFIX "earlymount: "
/* The kernel refuses /dev/kmsg writes longer than its record size (1024 bytes less the
 * prefix room on older kernels); keep well below. */
#define KMSG_LINE_MAX 976
#define LOG_MSG_MAX 2048
#define EARLY_BUFFER_SIZE (16 * 1024)
/* /dev/kmsg ratelimits each open file to 10 lines per 5 s unless printk.devkmsg=on; a fresh
 * open starts a fresh budget. */
#define KMSG_LINES_PER_OPEN 8
#define KMSG_PATH "/dev/kmsg"
#define PRINTK_PATH "/proc/sys/kernel/printk"
/* The kernel's default console loglevel (CONFIG_CONSOLE_LOGLEVEL_DEFAULT). */
#define CONSOLE_LOGLEVEL_DEFAULT 7

static struct {
	enum log_target target;
	int max_level;
	int kmsg_fd;
	bool kmsg_failed;          /* log_open_kmsg() gave up: the console is all there is */
	unsigned kmsg_lines;       /* lines written on kmsg_fd since it was opened */
	int console_loglevel;      /* the kernel prints levels below this one itself */
	size_t early_used;         /* bytes of log_early in use */
	unsigned early_lost;
} log_state = {
	.target = LOG_TARGET_STDERR,
	.max_level = LOG_INFO,
	.kmsg_fd = -1,
	.console_loglevel = CONSOLE_LOGLEVEL_DEFAULT,
};
/* Messages from before /dev/kmsg opened: a level byte, the text, a NUL; in order. Apart from
 * log_state, whose initial values put it in .data: zeroed, this costs the binary nothing. */
static char log_early[EARLY_BUFFER_SIZE];

void log_setup(enum log_target target)
{
	log_state.target = target;
}

void log_set_max_level(int level)
{
	if (level < LOG_EMERG)
		level = LOG_EMERG;
	if (level > LOG_DEBUG)
		level = LOG_DEBUG;
	log_state.max_level = level;
}

int log_get_max_level(void)
{
	return log_state.max_level;
}


static bool level_for_console(int level)
{
	return level <= log_state.max_level;
}

/* quiet only keeps info lines off the console; the kernel log still gets them. */
static bool level_for_kmsg(int level)
{
	return level <= (log_state.max_level > LOG_INFO ? log_state.max_level : LOG_INFO);
}

static void console_write_line(const char *line, size_t len)
{
	char buf[LOG_MSG_MAX + sizeof(LOG_PREFIX) + 1];
	size_t n = 0;

	memcpy(buf, LOG_PREFIX, sizeof(LOG_PREFIX) - 1);
	n = sizeof(LOG_PREFIX) - 1;
	if (len > sizeof(buf) - n - 1)
		len = sizeof(buf) - n - 1;
	memcpy(buf + n, line, len);
	n += len;
	buf[n++] = '\n';
	(void)write_all(STDERR_FILENO, buf, n); /* nowhere to report a failure */
}

/* Cuts at most max bytes without splitting a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

static void kmsg_reopen_if_spent(void)
{
	int fd;

	if (log_state.kmsg_lines < KMSG_LINES_PER_OPEN)
		return;
	fd = open(KMSG_PATH, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	close(log_state.kmsg_fd);
	log_state.kmsg_fd = fd;
	log_state.kmsg_lines = 0;
}

static void kmsg_write_line(int level, const char *line, size_t len)
{
	char buf[KMSG_LINE_MAX];
	int head = snprintf(buf, sizeof(buf), "<%d>" LOG_PREFIX, level);
	size_t room = sizeof(buf) - 1 - (size_t)head; /* the newline takes the last byte */

	kmsg_reopen_if_spent();
	len = utf8_cut(line, len, room);
	memcpy(buf + head, line, len);
	buf[head + len] = '\n';
	(void)write_all(log_state.kmsg_fd, buf, (size_t)head + len + 1);
	log_state.kmsg_lines++;
}

/* One message may hold several lines; each becomes its own record. */
static void emit(int level, const char *msg)
{
	const char *p = msg;

	do {
		size_t len = strcspn(p, "\n");

		if (log_state.target == LOG_TARGET_STDERR || log_state.kmsg_fd < 0) {
			if (level_for_console(level))
				console_write_line(p, len);
		} else {
			if (level_for_kmsg(level))
				kmsg_write_line(level, p, len);
			if (level_for_console(level) && level >= log_state.console_loglevel)
				console_write_line(p, len);
		}
		p += len;
		if (*p == '\n')
			p++;
	} while (*p);
}

static void early_keep(int level, const char *msg)
{
	size_t len = strlen(msg);

	if (log_state.early_used + len + 2 > sizeof(log_early)) {
		log_state.early_lost++;
		return;
	}
	log_early[log_state.early_used++] = (char)level;
	memcpy(log_early + log_state.early_used, msg, len + 1);
	log_state.early_used += len + 1;
}

static void early_replay(void)
{
	size_t off = 0;

	while (off < log_state.early_used) {
		int level = log_early[off++];
		const char *msg = log_early + off;

		emit(level, msg);
		off += strlen(msg) + 1;
	}
	if (log_state.early_lost > 0) {
		char note[96];

		snprintf(note, sizeof(note), "%u early messages lost (the buffer was full)",
			 log_state.early_lost);
		emit(LOG_WARNING, note);
	}
	log_state.early_used = 0;
	log_state.early_lost = 0;
}

static int read_console_loglevel(void)
{
	char buf[64];
	int level = CONSOLE_LOGLEVEL_DEFAULT;

	if (read_file_at(AT_FDCWD, PRINTK_PATH, buf, sizeof(buf)) > 0 && buf[0] >= '0' &&
	    buf[0] <= '9')
		level = atoi(buf);
	return level;
}

int log_open_kmsg(void)
{
	int r = 0;

	if (log_state.kmsg_fd >= 0)
		goto out;
	log_state.kmsg_fd = open(KMSG_PATH, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (log_state.kmsg_fd < 0) {
		r = -errno;
		log_state.kmsg_failed = true;
	} else {
		log_state.kmsg_lines = 0;
		log_state.console_loglevel = read_console_loglevel();
	}
	early_replay();
out:
	return r;
}

static bool keep_for_later(void)
{
	return log_state.target == LOG_TARGET_CONSOLE && log_state.kmsg_fd < 0 &&
	       !log_state.kmsg_failed;
}

void log_vmsg(int level, const char *fmt, va_list ap)
{
	char msg[LOG_MSG_MAX];
	int saved_errno = errno;
	int n;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		goto out;
	if ((size_t)n >= sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	if (keep_for_later()) {
		if (level_for_kmsg(level) || level_for_console(level))
			early_keep(level, msg);
	} else {
		emit(level, msg);
	}
out:
	errno = saved_errno;
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

void log_libkmod(void *data, int priority, const char *file, int line, const char *fn,
		 const char *format, va_list args)
{
	char text[512];
	size_t len;

	vsnprintf(text, sizeof(text), format, args);
	len = strlen(text);
	if (len > 0 && text[len - 1] == '\n')
		text[len - 1] = '\0';
	/* libkmod's errors are details of a failure we report ourselves with context */
	log_msg(LOG_DEBUG, "libkmod: %s", text);
}
