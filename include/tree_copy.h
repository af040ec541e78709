/* Copying a directory tree with its owners and modes: regular files, symlinks and
 * directories, as systemd-tmpfiles' "C" copies a factory tree. */
#pragma once

#include <sys/types.h>

/* Creates dir_fd/name with exactly mode: mkdir alone would leave the umask's mark on 1777.
 * 0 or -errno. */
int mkdir_mode_at(int dir_fd, const char *name, mode_t mode);

/* Copies what src_dir holds into dst_dir, never replacing an entry, at most max_depth
 * directories deep (-ELOOP below). Copies what it can and returns the first error; *failed
 * (NULL before) then names the entry that had it. Device nodes and fifos: -EOPNOTSUPP. */
int tree_copy(int src_dir, int dst_dir, int max_depth, const char **failed);
