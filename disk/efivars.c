/* EFI variables as efivarfs shows them: a 4-byte attribute word, then the raw value. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "efivars.h"
#include "util.h"

/* Room for any string variable earlymount reads (a UUID needs 4 + 37 * 2 bytes), and for the
 * attributes and data of any variable it writes. */
#define EFIVAR_MAX (4 + EFIVAR_DATA_MAX)

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

static int var_path(char *path, size_t size, const char *dir, const char *name, const char *vendor)
{
	return snprintf(path, size, "%s/%s-%s", dir, name, vendor) >= (int)size ? -ENAMETOOLONG : 0;
}

ssize_t efivar_read(const char *dir, const char *name, const char *vendor, uint32_t *attributes,
		    void *data, size_t size)
{
	uint8_t buf[EFIVAR_MAX + 1];
	char path[512];
	ssize_t len;
	int r = var_path(path, sizeof(path), dir, name, vendor);

	if (r < 0)
		return r;
	len = read_whole(path, buf, sizeof(buf));
	if (len < 0)
		return len;
	if (len < 4)
		return -EINVAL;
	if ((size_t)len - 4 > size)
		return -E2BIG;
	memcpy(attributes, buf, 4);
	memcpy(data, buf + 4, (size_t)len - 4);
	return len - 4;
}

/* efivarfs makes the files of variables it does not know immutable (a stray rm must not brick
 * a machine): the flag goes before a variable is written again or deleted. A filesystem
 * without flags (a test's directory) has nothing immutable. */
static int make_mutable(const char *path)
{
	unsigned int flags;
	int r = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
		r = errno == ENOTTY || errno == EOPNOTSUPP || errno == EINVAL ? 0 : -errno;
		goto out;
	}
	if (!(flags & FS_IMMUTABLE_FL))
		goto out;
	flags &= ~(unsigned int)FS_IMMUTABLE_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)
		r = -errno;
out:
	close(fd);
	return r;
}

int efivar_write(const char *dir, const char *name, const char *vendor, uint32_t attributes,
		 const void *data, size_t len)
{
	uint8_t buf[EFIVAR_MAX];
	char path[512];
	ssize_t n;
	int fd, r = var_path(path, sizeof(path), dir, name, vendor);

	if (r < 0)
		return r;
	if (len > EFIVAR_DATA_MAX)
		return -E2BIG;
	r = make_mutable(path);
	if (r < 0 && r != -ENOENT)
		return r;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return -errno;
	memcpy(buf, &attributes, 4);
	memcpy(buf + 4, data, len);
	/* one write: efivarfs hands each write to SetVariable() whole */
	n = write(fd, buf, 4 + len);
	r = n < 0 ? -errno : (size_t)n != 4 + len ? -EIO : 0;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int efivar_delete(const char *dir, const char *name, const char *vendor)
{
	char path[512];
	int r = var_path(path, sizeof(path), dir, name, vendor);

	if (r == 0)
		r = make_mutable(path);
	if (r == 0 && unlink(path) < 0)
		r = -errno;
	return r;
}
