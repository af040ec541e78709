/* Key files for LUKS volumes. systemd's rd.luks.key=PATH:DEVICE names a file on a device (a
 * USB stick, say) that the initrd mounts read-only for the moment it reads the key; PATH
 * alone is a file of the initramfs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "file_device.h"
#include "luks_helper.h"
#include "luks_key.h"
#include "plan.h"
#include "util.h"

#define KEY_MOUNT EARLYMOUNT_RUN "/key-device"

static int read_key_file(int dir_fd, const char *path, const struct luks_options *o,
			 struct luks_key *key, char *why, size_t why_size)
{
	int fd = openat(dir_fd, path[0] == '/' ? path + 1 : path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	uint64_t avail, want;
	ssize_t n = 0;
	int r = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		set_why(why, why_size, "key file %s: %s", path, strerror(-r));
		goto out;
	}
	avail = (uint64_t)st.st_size > o->keyfile_offset ? (uint64_t)st.st_size - o->keyfile_offset : 0;
	want = o->keyfile_size && o->keyfile_size < avail ? o->keyfile_size : avail;
	if (!S_ISREG(st.st_mode) || want == 0 || want > LUKS_KEY_MAX) {
		r = -EINVAL;
		set_why(why, why_size, "key file %s: %s", path,
			!S_ISREG(st.st_mode) ? "not a regular file"
			: want == 0 ? "empty (after keyfile-offset=)"
				    : "longer than the 8 MiB a LUKS key may be");
		goto out;
	}
	key->bytes = malloc(want);
	if (!key->bytes) {
		r = -ENOMEM;
		set_why(why, why_size, "key file %s: out of memory", path);
		goto out;
	}
	(void)mlock(key->bytes, want);
	n = pread(fd, key->bytes, want, (off_t)o->keyfile_offset);
	if (n != (ssize_t)want) {
		r = n < 0 ? -errno : -EIO;
		set_why(why, why_size, "key file %s: %s", path, n < 0 ? strerror(errno) : "short read");
		key->len = want;
		luks_key_free(key);
		goto out;
	}
	key->len = want;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

int luks_key_read(const char *path, const char *device_spec, const struct luks_options *o,
		  int (*ensure_fs)(const char *fstype, void *data), void *data, struct luks_key *key,
		  char *why, size_t why_size)
{
	bool on_device = device_spec && device_spec[0];
	int dir_fd = -1;
	int r = 0;

	memset(key, 0, sizeof(*key));
	if (on_device)
		r = file_device_mount(device_spec, o->keyfile_timeout_sec, KEY_MOUNT, "key",
				      ensure_fs, data, why, why_size);
	if (r < 0)
		goto out;
	dir_fd = open(on_device ? KEY_MOUNT : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		r = -errno;
		set_why(why, why_size, "key file %s: %s", path, strerror(-r));
	} else {
		r = read_key_file(dir_fd, path, o, key, why, why_size);
		close(dir_fd);
	}
	if (on_device)
		file_device_umount(KEY_MOUNT);
out:
	return r;
}

void luks_key_free(struct luks_key *key)
{
	if (key->bytes) {
		explicit_bzero(key->bytes, key->len);
		munlock(key->bytes, key->len);
		free(key->bytes);
	}
	key->bytes = NULL;
	key->len = 0;
}
