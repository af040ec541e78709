/* fstab-style option strings -> mount(2) flags and data. Pure. */
#pragma once

#include <stddef.h>

/* Splits options ("ro,nodev,umask=0077") into MS_* flags and the data string the filesystem
 * gets ("umask=0077"), words in their order. Later words win over earlier ones (ro,rw is rw).
 * Empty words are skipped. 0, -EINVAL for a NULL argument, or -E2BIG when data does not fit. */
int mountopts_parse(const char *options, unsigned long *flags, char *data, size_t data_size);

/* Whether the word (up to a ',' or the end) appears in options. */
int mountopts_has(const char *options, const char *word);
