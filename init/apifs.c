/* The API filesystems, from one table walked once: what systemd mounts before any unit runs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apifs.h"
#include "efivars.h"
#include "log.h"
#include "paths.h"
#include "util.h"

#define MS_API (MS_NOSUID | MS_NOEXEC | MS_NODEV)

const struct apifs_entry apifs_table[] = {
	{ "proc", "/proc", { "" }, MS_API, APIFS_REQUIRED },
	{ "sysfs", "/sys", { "" }, MS_API, APIFS_REQUIRED },
	{ "devtmpfs", "/dev", { "mode=0755,size=4m" }, MS_NOSUID | MS_STRICTATIME, APIFS_REQUIRED },
	{ "securityfs", "/sys/kernel/security", { "" }, MS_API, APIFS_OPTIONAL },
	{ "tmpfs", "/dev/shm", { "mode=01777" }, MS_NOSUID | MS_NODEV | MS_STRICTATIME,
	  APIFS_REQUIRED },
	{ "devpts", "/dev/pts", { "mode=0620,gid=5" }, MS_NOSUID | MS_NOEXEC, APIFS_OPTIONAL },
	{ "tmpfs", "/run", { "mode=0755,size=20%,nr_inodes=800k" },
	  MS_NOSUID | MS_NODEV | MS_STRICTATIME, APIFS_REQUIRED },
	/* memory_recursiveprot needs 5.7, nsdelegate 4.13: older kernels refuse the option. */
	{ "cgroup2", "/sys/fs/cgroup", { "nsdelegate,memory_recursiveprot", "nsdelegate", "" },
	  MS_API, APIFS_REQUIRED },
	{ "efivarfs", EFIVARS_DIR, { "" }, MS_API, APIFS_IF_EFI },
	{ "bpf", "/sys/fs/bpf", { "mode=0700" }, MS_API, APIFS_OPTIONAL },
};
const size_t apifs_table_size = ARRAY_SIZE(apifs_table);

static const struct apifs_link {
	const char *path;
	const char *target;
} apifs_links[] = {
	{ "/dev/fd", "/proc/self/fd" },
	{ "/dev/stdin", "/proc/self/fd/0" },
	{ "/dev/stdout", "/proc/self/fd/1" },
	{ "/dev/stderr", "/proc/self/fd/2" },
};

bool apifs_is_mount_point(const char *path)
{
	char parent[PATH_MAX];
	struct stat st, pst;
	char *slash;

	if (copy_str(parent, sizeof(parent), path) < 0)
		return false;
	slash = strrchr(parent, '/');
	if (!slash)
		return false;
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(path, &st) < 0 || stat(parent, &pst) < 0)
		return false;
	return st.st_dev != pst.st_dev;
}

static bool efi_booted(void)
{
	struct stat st;

	return stat(EFI_FIRMWARE_DIR, &st) == 0;
}

static int ensure_mount_point(const char *target)
{
	struct stat st;

	if (stat(target, &st) == 0)
		return 0;
	if (mkdir(target, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* Tries each option set in turn; the error of the last one is returned. */
static int mount_entry(const struct apifs_entry *e)
{
	int r = -EINVAL;

	for (size_t i = 0; i < APIFS_MAX_OPTIONS && e->options[i]; i++) {
		const char *data = e->options[i][0] ? e->options[i] : NULL;

		if (mount(e->fstype, e->target, e->fstype, e->flags, data) == 0) {
			if (i > 0)
				log_info("mounted %s on %s with options \"%s\": the kernel refused \"%s\"",
					 e->fstype, e->target, e->options[i], e->options[0]);
			return 0;
		}
		r = -errno;
	}
	return r;
}

static int apifs_mount_entry(const struct apifs_entry *e)
{
	int r;

	if (apifs_is_mount_point(e->target)) {
		log_debug("%s is already mounted, leaving it", e->target);
		return 0;
	}
	r = ensure_mount_point(e->target);
	if (r < 0)
		return r;
	return mount_entry(e);
}

static void report_failure(const struct apifs_entry *e, int r, char *why, size_t why_size)
{
	if (e->need == APIFS_REQUIRED) {
		if (why)
			snprintf(why, why_size, "unable to mount %s on %s: %s", e->fstype, e->target,
				 strerror(-r));
	} else if (e->need == APIFS_IF_EFI && r == -ENODEV) {
		log_debug("%s is not available yet (no module loaded): mounting %s later",
			  e->fstype, e->target);
	} else {
		log_warn("unable to mount %s on %s: %s; continuing without it", e->fstype, e->target,
			 strerror(-r));
	}
}

int apifs_mount_table(const struct apifs_entry *table, size_t n, char *why, size_t why_size)
{
	int first = 0;

	for (size_t i = 0; i < n; i++) {
		const struct apifs_entry *e = &table[i];
		int r;

		if (e->need == APIFS_IF_EFI && !efi_booted())
			continue;
		r = apifs_mount_entry(e);
		if (r == 0)
			continue;
		if (first == 0 && e->need == APIFS_REQUIRED) {
			report_failure(e, r, why, why_size);
			first = r;
		} else if (e->need != APIFS_REQUIRED) {
			report_failure(e, r, NULL, 0);
		} else {
			log_err("unable to mount %s on %s: %s", e->fstype, e->target, strerror(-r));
		}
	}
	return first;
}

int apifs_mount_one(const char *target)
{
	for (size_t i = 0; i < apifs_table_size; i++)
		if (streq(apifs_table[i].target, target))
			return apifs_mount_entry(&apifs_table[i]);
	return -ENOENT;
}

void apifs_make_links(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(apifs_links); i++)
		if (symlink(apifs_links[i].target, apifs_links[i].path) < 0 && errno != EEXIST)
			log_warn("unable to create the symlink %s -> %s: %s", apifs_links[i].path,
				 apifs_links[i].target, strerror(errno));
}

int apifs_ensure_console(void)
{
	int fd = -1;
	int r = 0;

	for (int i = 0; i <= 2; i++) {
		if (fcntl(i, F_GETFD) >= 0)
			continue;
		if (fd < 0) {
			fd = open("/dev/console", O_RDWR | O_NOCTTY);
			if (fd < 0) {
				r = -errno;
				goto out;
			}
		}
		if (fd != i && dup2(fd, i) < 0) {
			r = -errno;
			goto out;
		}
	}
out:
	if (fd > 2)
		close(fd);
	return r;
}
