/* The "limit" of the boot benchmark (qemu/bench): the least an initramfs can do to reach the
 * real init of one known disk. It loads /m/00.ko, /m/01.ko, ... in that order (the bench puts
 * the needed modules there, dependencies first), mounts the root it is told at build time
 * (LIMIT_ROOT, LIMIT_FSTYPE) read-only, moves /dev /proc /sys /run into it as earlymount
 * does, and execs /sbin/init. No discovery, no command line, no generality, no cleanup of
 * the initramfs: whatever earlymount spends beyond this is the price of being general.
 * On any failure it says what failed and then waits forever: PID 1 must not exit. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef LIMIT_ROOT
#define LIMIT_ROOT "/dev/vda1"
#endif
#ifndef LIMIT_FSTYPE
#define LIMIT_FSTYPE "ext4"
#endif
#define SYSROOT "/sysroot"
/* The disk appears asynchronously once virtio_blk is loaded: poll this often, this long. */
#define POLL_NS (1000 * 1000)
#define POLL_MAX 10000

struct api_mount {
	const char *source, *target, *fstype, *data;
	unsigned long flags;
};

static const struct api_mount api_mounts[] = {
	{ "devtmpfs", "/dev", "devtmpfs", "mode=0755", MS_NOSUID },
	{ "proc", "/proc", "proc", NULL, MS_NOSUID | MS_NODEV | MS_NOEXEC },
	{ "sysfs", "/sys", "sysfs", NULL, MS_NOSUID | MS_NODEV | MS_NOEXEC },
	{ "tmpfs", "/run", "tmpfs", "mode=0755", MS_NOSUID | MS_NODEV },
};
#define N_API (sizeof(api_mounts) / sizeof(api_mounts[0]))

static void say(const char *what, int err)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "limit-init: %s: %s\n", what, strerror(err));

	if (n > 0)
		(void)!write(2, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void hang(void)
{
	for (;;)
		pause();
}

static int mount_api(void)
{
	size_t i;

	for (i = 0; i < N_API; i++) {
		mkdir(api_mounts[i].target, 0755);
		if (mount(api_mounts[i].source, api_mounts[i].target, api_mounts[i].fstype,
			  api_mounts[i].flags, api_mounts[i].data) < 0) {
			say(api_mounts[i].target, errno);
			return -errno;
		}
	}
	return 0;
}

/* EEXIST (built in or loaded) and ENODEV (no such hardware) are not failures. */
static int load_modules(void)
{
	char path[32];
	int i, fd, r = 0;

	for (i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "/m/%02d.ko", i);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST && errno != ENODEV) {
			r = -errno;
			say(path, errno);
		}
		close(fd);
	}
	return r;
}

static int wait_root(void)
{
	struct timespec ts = { 0, POLL_NS };
	int i;

	for (i = 0; i < POLL_MAX; i++) {
		if (access(LIMIT_ROOT, F_OK) == 0)
			return 0;
		nanosleep(&ts, NULL);
	}
	say(LIMIT_ROOT " never appeared", ENOENT);
	return -ENOENT;
}

static int switch_root(void)
{
	char target[64];
	size_t i;

	for (i = 0; i < N_API; i++) {
		snprintf(target, sizeof(target), SYSROOT "%s", api_mounts[i].target);
		if (mount(api_mounts[i].target, target, NULL, MS_MOVE, NULL) < 0) {
			say(target, errno);
			return -errno;
		}
	}
	if (chdir(SYSROOT) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 ||
	    chdir("/") < 0) {
		say("switching to " SYSROOT, errno);
		return -errno;
	}
	return 0;
}

int main(void)
{
	if (mount_api() < 0 || load_modules() < 0 || wait_root() < 0)
		hang();
	mkdir(SYSROOT, 0755);
	if (mount(LIMIT_ROOT, SYSROOT, LIMIT_FSTYPE, MS_RDONLY | MS_NODEV, NULL) < 0) {
		say("mounting " LIMIT_ROOT " on " SYSROOT, errno);
		hang();
	}
	if (switch_root() < 0)
		hang();
	execl("/sbin/init", "/sbin/init", (char *)NULL);
	say("exec /sbin/init", errno);
	hang();
	return 0;
}
