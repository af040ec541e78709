/* Reading one-line attributes of sysfs (and /proc) files. Effect layer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Reads the first line of path, relative to dirfd (AT_FDCWD for an absolute path), into buf
 * without its newline; buf is "" when the file is missing or empty. True when it held text. */
bool sysfs_read_line_at(int dirfd, const char *path, char *buf, size_t size);
