/* The "limit" of the boot benchmark (qemu/bench): the least an initramfs can do to reach the
 * real init of one known disk. It loads /m/00.ko, /m/01.ko, ... in that order (the bench puts
 * the needed modules there, dependencies first), mounts the root it is told at build time
 * (LIMIT_ROOT, LIMIT_FSTYPE) read-only, moves /dev /proc /sys /run into it as earlymount
 * does, and execs /sbin/init. No discovery, no command line, no generality, no cleanup of
 * the initramfs: whatever earlymount spends beyond this is the price of being general. Its
 * stages' times go to /run/earlymount/timings in earlymount's format, so that the bench
 * puts its timeline beside earlymount's.
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

enum stage { ST_APIFS, ST_MODULES, ST_ROOT_WAIT, ST_MOUNT, N_STAGES };
static const char *const stage_names[N_STAGES] = { "apifs", "modules", "root-wait", "mount" };
/* CLOCK_BOOTTIME seconds, as earlymount's timings: stamp[i] starts stage i, stamp[N] ends it */
static double stamp[N_STAGES + 1];

static double now(void)
{
	struct timespec ts = { 0, 0 };

	(void)clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A few microseconds on the tmpfs; what fails here only costs the bench its column. */
static void write_timings(void)
{
	char buf[512];
	int fd, n = snprintf(buf, sizeof(buf), "limit\n");

	for (int i = 0; i < N_STAGES && n > 0 && (size_t)n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s %.6f %.3f\n", stage_names[i], stamp[i],
			      (stamp[i + 1] - stamp[i]) * 1e3);
	mkdir("/run/earlymount", 0755);
	fd = open("/run/earlymount/timings", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0 && n > 0 && (size_t)n < sizeof(buf))
		(void)!write(fd, buf, (size_t)n);
	if (fd >= 0)
		close(fd);
}

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
	stamp[ST_APIFS] = now();
	if (mount_api() < 0)
		hang();
	stamp[ST_MODULES] = now();
	if (load_modules() < 0)
		hang();
	stamp[ST_ROOT_WAIT] = now();
	if (wait_root() < 0)
		hang();
	stamp[ST_MOUNT] = now();
	mkdir(SYSROOT, 0755);
	if (mount(LIMIT_ROOT, SYSROOT, LIMIT_FSTYPE, MS_RDONLY | MS_NODEV, NULL) < 0) {
		say("mounting " LIMIT_ROOT " on " SYSROOT, errno);
		hang();
	}
	stamp[N_STAGES] = now();
	write_timings();
	if (switch_root() < 0)
		hang();
	execl("/sbin/init", "/sbin/init", (char *)NULL);
	say("exec /sbin/init", errno);
	hang();
	return 0;
}
