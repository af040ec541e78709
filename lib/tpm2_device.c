/* The kernel takes a whole command in one write and returns the whole response in one read;
 * a socket may split it, so the response is read until the size its header gives. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fileio.h"
#include "tpm2_device.h"

int tpm2_device_open(void)
{
	int fd = tpm2_device_open_path("/dev/tpmrm0");

	if (fd < 0)
		fd = tpm2_device_open_path("/dev/tpm0");
	return fd;
}

static int connect_socket(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = -1;
	int r;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
	if (r < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

int tpm2_device_open_path(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		return connect_socket(path);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int tpm2_device_transceive(int fd, const uint8_t *cmd, size_t len, uint8_t *resp, size_t size)
{
	size_t used = 0, want = 10;
	int r = write_all(fd, cmd, len);

	while (r == 0 && used < want) {
		ssize_t n = read(fd, resp + used, size - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EPROTO;
			break;
		}
		used += (size_t)n;
		if (used >= 6)
			want = (size_t)resp[2] << 24 | (size_t)resp[3] << 16 | (size_t)resp[4] << 8 | resp[5];
		if (want > size || want < 10)
			r = -EPROTO;
	}
	return r < 0 ? r : (int)used;
}
