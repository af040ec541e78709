/* Writing whole buffers and making directories. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "util.h"

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	int r = 0;

	while (len > 0 && r == 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		else if (n == 0)
			r = -EIO;
		else {
			p += n;
			len -= (size_t)n;
		}
	}
	return r;
}

int make_directories(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	int r = copy_str(buf, sizeof(buf), path);

	if (r < 0)
		goto out;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			goto out;
		}
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		r = -errno;
out:
	return r;
}

int copy_fd(int in_fd, int out_fd)
{
	char buf[65536];
	int r = 0;

	for (;;) {
		ssize_t n = read(in_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		r = write_all(out_fd, buf, (size_t)n);
		if (r < 0)
			break;
	}
	return r;
}

ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	size_t used = 0;
	ssize_t r = 0;

	if (fd < 0) {
		r = -errno;
		goto out;
	}
	while (used + 1 < size) {
		ssize_t n = read(fd, buf + used, size - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	if (r == 0)
		r = (ssize_t)used;
out:
	if (size > 0)
		buf[r < 0 ? 0 : used] = '\0';
	return r;
}
