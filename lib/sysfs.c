/* One-line attribute files, as sysfs keeps them. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"

bool sysfs_read_line_at(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] != '\0';
}

int sysfs_write(const char *path, const char *value)
{
	size_t len = strlen(value);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	close(fd);
	return r;
}
