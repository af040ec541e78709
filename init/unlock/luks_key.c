/* Key files for LUKS volumes. systemd's rd.luks.key=PATH:DEVICE names a file on a device (a
 * USB stick, say) that the initrd mounts read-only for the moment it reads the key; PATH
 * alone is a file of the initramfs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "luks_helper.h"
#include "luks_key.h"
#include "node_wait.h"
#include "plan.h"
#include "probe.h"
#include "util.h"

#define KEY_MOUNT EARLYMOUNT_RUN "/key-device"

/* The device node, waited for up to timeout_sec. The executor has turned a tag (UUID=,
 * LABEL=) into the node of a disk found at boot already; one still a tag was not found. */
static int find_device(const char *spec, int timeout_sec, char *node, size_t size)
{
	const char *paths[] = { spec, NULL };
	/* node_wait() counts milliseconds in an int */
	int ms = timeout_sec > INT_MAX / 1000 ? INT_MAX : timeout_sec > 0 ? timeout_sec * 1000 : 0;
	int r = spec[0] == '/' ? node_wait(paths, true, ms, NULL) : -ENOENT;

	return r < 0 ? r : copy_str(node, size, spec);
}

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

/* Mounts the key device read-only: reading a key must not change the device. */
static int mount_key_device(const char *spec, const struct luks_options *o,
			    int (*ensure_fs)(const char *fstype, void *data), void *data,
			    char *why, size_t why_size)
{
	char node[PATH_MAX];
	char fstype[32] = "";
	int r = find_device(spec, o->keyfile_timeout_sec, node, sizeof(node));

	if (r < 0) {
		set_why(why, why_size, "the key device %s is not there%s", spec,
			o->keyfile_timeout_sec > 0 ? " (waited keyfile-timeout=)" : "");
		goto out;
	}
	r = probe_device_fstype(node, fstype, sizeof(fstype));
	if (r < 0 || !fstype[0]) {
		r = r < 0 ? r : -EINVAL;
		set_why(why, why_size, "the key device %s (%s) holds no filesystem earlymount "
			"recognises", spec, node);
		goto out;
	}
	if (ensure_fs)
		ensure_fs(fstype, data);
	r = make_directories(KEY_MOUNT, 0700);
	if (r == 0 && mount(node, KEY_MOUNT, fstype, MS_RDONLY | MS_NODEV | MS_NOSUID | MS_NOEXEC,
			    NULL) < 0)
		r = -errno;
	if (r < 0)
		set_why(why, why_size, "unable to mount the key device %s (%s, %s) read-only: %s",
			spec, node, fstype, strerror(-r));
out:
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
		r = mount_key_device(device_spec, o, ensure_fs, data, why, why_size);
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
	if (on_device) {
		umount2(KEY_MOUNT, MNT_DETACH);
		rmdir(KEY_MOUNT);
	}
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
