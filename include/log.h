/* The one logging helper. On the host: stderr. As PID 1: the console and /dev/kmsg with
 * kernel levels and an "earlymount: " prefix; messages from before /dev exists are kept
 * and replayed once /dev/kmsg opens. Levels are syslog's (LOG_ERR … LOG_DEBUG). */
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <syslog.h>

enum log_target {
	LOG_TARGET_STDERR,  /* host commands */
	LOG_TARGET_CONSOLE, /* PID 1: console, and /dev/kmsg once log_open_kmsg() succeeded */
};

void log_setup(enum log_target target);
/* Messages above level are dropped (default LOG_INFO; quiet: LOG_WARNING; debug: LOG_DEBUG). */
void log_set_max_level(int level);
int log_get_max_level(void);
/* Opens /dev/kmsg and replays what was logged before; -errno when it cannot be opened. */
int log_open_kmsg(void);

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(int level, const char *fmt, va_list ap);

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* libkmod's log function, to kmod_set_log_fn(): its messages at debug level, since each
 * failure they describe is reported once, with context, by the caller. */
void log_libkmod(void *data, int priority, const char *file, int line, const char *fn,
		 const char *format, va_list args);
