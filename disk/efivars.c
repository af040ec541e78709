/* EFI variables as efivarfs shows them: a 4-byte attribute word, then the raw value. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "efivars.h"
#include "util.h"

/* Room for any string variable earlymount reads; a UUID needs 4 + 37 * 2 bytes. */
#define EFIVAR_MAX 1024

static ssize_t read_whole(const char *path, uint8_t *buf, size_t size)
{
	size_t used = 0;
	ssize_t r = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	while (used < size) {
		ssize_t n = read(fd, buf + used, size - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	r = used == size ? -E2BIG : (ssize_t)used;
out:
	close(fd);
	return r;
}

static int utf16le_to_ascii(const uint8_t *in, size_t len, char *out, size_t size)
{
	size_t n = 0;
	int r = 0;

	if (len % 2 != 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i += 2) {
		unsigned c = (unsigned)in[i] | (unsigned)in[i + 1] << 8;

		if (c == 0)
			break;
		if (c > 0x7e || c < 0x20) {
			r = -EINVAL;
			goto out;
		}
		if (n + 1 >= size) {
			r = -E2BIG;
			goto out;
		}
		out[n++] = (char)c;
	}
out:
	if (size > 0)
		out[r == 0 ? n : 0] = '\0';
	return r;
}

int efivar_read_string(const char *dir, const char *name, const char *vendor, char *out,
		       size_t size)
{
	uint8_t buf[EFIVAR_MAX];
	char path[512];
	ssize_t len;
	int r;

	if (size == 0)
		return -E2BIG;
	out[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/%s-%s", dir, name, vendor) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	len = read_whole(path, buf, sizeof(buf));
	if (len < 0) {
		r = (int)len;
		goto out;
	}
	if (len < 4) {
		r = -EINVAL;
		goto out;
	}
	r = utf16le_to_ascii(buf + 4, (size_t)len - 4, out, size);
out:
	return r;
}

int efivars_boot_partuuid(const char *dir, char out[UUID_STR_LEN])
{
	static const char *const names[] = { "LoaderDevicePartUUID", "StubDevicePartUUID" };
	int r = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(names) && r == -ENOENT; i++)
		r = efivar_read_string(dir, names[i], EFI_LOADER_VENDOR, out, UUID_STR_LEN);
	if (r == -E2BIG)
		r = -EINVAL;
	if (r == 0)
		r = uuid_normalize(out);
	if (r < 0)
		out[0] = '\0';
	return r;
}
