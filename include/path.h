/* File names: joining them, and finding programs. */
#pragma once

#include <stddef.h>

/* out = dir/name: 0, or -ENAMETOOLONG. */
int path_join(char *out, size_t size, const char *dir, const char *name);

/* What the running program was started from: the running binary itself, even when its file
 * was replaced since (the kernel's link). */
#define PATH_SELF "/proc/self/exe"

/* The path of the running program's file into out: 0, or -errno. */
int path_self(char *out, size_t size);

/* The first executable name in $PATH (/usr/bin:/bin when it is unset or empty), then in the
 * colon-separated dirs of also (NULL: none), into out: 0, -ENOENT, or -ENAMETOOLONG when
 * $PATH is longer than this searches. */
int path_find_program(const char *name, const char *also, char *out, size_t size);
