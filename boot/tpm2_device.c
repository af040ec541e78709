/* The kernel takes a whole command in one write and returns the whole response in one read. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fileio.h"
#include "tpm2_device.h"

int tpm2_device_open(void)
{
	int fd = open("/dev/tpmrm0", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fd = open("/dev/tpm0", O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int tpm2_device_transceive(int fd, const uint8_t *cmd, size_t len, uint8_t *resp, size_t size)
{
	int r = write_all(fd, cmd, len);
	ssize_t n = 0;

	if (r == 0) {
		do
			n = read(fd, resp, size);
		while (n < 0 && errno == EINTR);
		r = n < 0 ? -errno : (int)n;
	}
	return r;
}
