/* The device of a key file or a detached header, mounted read-only for the unlock alone:
 * systemd's crypttab forms PATH:DEVICE (key file) and header=PATH:DEVICE. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "file_device.h"
#include "fileio.h"
#include "node_wait.h"
#include "probe.h"
#include "util.h"

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

int file_device_mount(const char *spec, int timeout_sec, const char *where, const char *role,
		      int (*ensure_fs)(const char *fstype, void *data), void *data, char *why,
		      size_t why_size)
{
	char node[PATH_MAX];
	char fstype[32] = "";
	int r = find_device(spec, timeout_sec, node, sizeof(node));

	if (r < 0) {
		set_why(why, why_size, "the %s device %s is not there%s", role, spec,
			timeout_sec > 0 ? " (waited keyfile-timeout=)" : "");
		goto out;
	}
	r = probe_device_fstype(node, fstype, sizeof(fstype));
	if (r < 0 || !fstype[0]) {
		r = r < 0 ? r : -EINVAL;
		set_why(why, why_size, "the %s device %s (%s) holds no filesystem earlymount "
			"recognises", role, spec, node);
		goto out;
	}
	if (ensure_fs)
		ensure_fs(fstype, data);
	r = make_directories(where, 0700);
	if (r == 0 && mount(node, where, fstype, MS_RDONLY | MS_NODEV | MS_NOSUID | MS_NOEXEC,
			    NULL) < 0)
		r = -errno;
	if (r < 0)
		set_why(why, why_size, "unable to mount the %s device %s (%s, %s) read-only: %s",
			role, spec, node, fstype, strerror(-r));
out:
	return r;
}

void file_device_umount(const char *where)
{
	umount2(where, MNT_DETACH);
	rmdir(where);
}
