/* Writing whole buffers and making directories, the way every part of earlymount needs it. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Writes all len bytes of buf to fd, again after EINTR: 0, or -errno (-EIO when the file
 * takes no more). */
int write_all(int fd, const void *buf, size_t len);

/* mkdir -p: path and its missing parents (0755), path itself with mode. 0 or -errno. */
int make_directories(const char *path, mode_t mode);

/* Copies what in_fd reads until its end to out_fd: 0, or -errno. */
int copy_fd(int in_fd, int out_fd);

/* Reads path (relative to dirfd; AT_FDCWD for an absolute path) until its end or until buf
 * is full, and ends buf with a NUL (buf is "" on failure): the length read, or -errno. For
 * the small text files of /proc, sysfs and /etc. */
ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size);
