/* Reading one-line attributes of sysfs (and /proc) files. Effect layer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Reads the first line of path, relative to dirfd (AT_FDCWD for an absolute path), into buf
 * without its newline; buf is "" when the file is missing or empty. True when it held text. */
bool sysfs_read_line_at(int dirfd, const char *path, char *buf, size_t size);
/* Writes value to the attribute file path in one write(2), as sysfs wants it. 0 or -errno. */
int sysfs_write(const char *path, const char *value);
