/* One-line attribute files, as sysfs keeps them. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "sysfs.h"

bool sysfs_read_line_at(int dirfd, const char *path, char *buf, size_t size)
{
	(void)read_file_at(dirfd, path, buf, size); /* a missing file reads as empty */
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
