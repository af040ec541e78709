/* Small helpers shared by every part of earlymount. */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline bool streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* The blanks between the words of the kernel's command line and of the values in it. */
static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* The rest of s after prefix, or NULL when s does not start with it. */
static inline const char *startswith(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* The decimal number of the len bytes at s, digits only, at most max. 0 or -EINVAL. */
static inline int parse_decimal(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Copies src into dst (always terminated); -ENAMETOOLONG when it did not fit. */
static inline int copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (size == 0)
		return -ENAMETOOLONG;
	if (n >= size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

#define COPY_STR(dst, src) copy_str((dst), sizeof(dst), (src))

/* Formats one message into buf (cut to fit; nothing when buf is NULL): the "why" of a
 * failure, written where it is decided. */
static inline void __attribute__((format(printf, 3, 4)))
set_why(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!buf || size == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}
