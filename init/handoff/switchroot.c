/* switch_root done safely: all checks before anything destructive, the wipe never crosses a
 * mount, and the init is resolved inside the new root the way the kernel will see it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "plan.h"
#include "switchroot.h"
#include "util.h"

static const char *const api_mounts[] = { "/dev", "/proc", "/sys", "/run" };

int switchroot_gather(const char *newroot, struct switchroot_facts *facts)
{
	struct statfs sfs;
	struct stat st;
	int r = 0;

	memset(facts, 0, sizeof(*facts));
	facts->pid = getpid();
	if (statfs("/", &sfs) < 0 || stat("/", &st) < 0) {
		r = -errno;
		goto out;
	}
	facts->root_fs_magic = (long)sfs.f_type;
	facts->root_dev = st.st_dev;
	if (stat(newroot, &st) == 0) {
		facts->newroot_exists = true;
		facts->newroot_dev = st.st_dev;
	}
out:
	return r;
}

int switchroot_check_facts(const struct switchroot_facts *facts, const char *newroot, char *why,
			   size_t why_size)
{
	int r = 0;

	if (facts->pid != 1) {
		r = -EPERM;
		snprintf(why, why_size, "not switching to %s: earlymount is not PID 1 (pid %d)",
			 newroot, (int)facts->pid);
	} else if (facts->root_fs_magic != (long)RAMFS_MAGIC &&
		   facts->root_fs_magic != (long)TMPFS_MAGIC) {
		r = -EPERM;
		snprintf(why, why_size,
			 "not switching to %s: \"/\" is not an initramfs (ramfs or tmpfs) and "
			 "earlymount would delete its contents",
			 newroot);
	} else if (!facts->newroot_exists || facts->newroot_dev == facts->root_dev) {
		r = -EINVAL;
		snprintf(why, why_size,
			 "not switching to %s: nothing is mounted there — the root was not mounted",
			 newroot);
	}
	return r;
}

bool switchroot_mode_runnable(mode_t mode)
{
	return S_ISREG(mode) && (mode & 0111) != 0;
}

/* Opens path as the new root will see it: "/" and ".." stay inside root_fd. */
static int open_in_root(int root_fd, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* Kernels before 5.6 (and valgrind) have no openat2: a child that chroots into the new root
 * sees the init exactly as the kernel will, absolute symlinks included. Its exit status is
 * the errno of the answer. */
static int init_runnable_by_chroot(int root_fd, const char *path)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct stat st;
		int e = 0;

		if (fchdir(root_fd) < 0 || chroot(".") < 0 || stat(path, &st) < 0)
			e = errno;
		else if (S_ISDIR(st.st_mode))
			e = EISDIR;
		else if (!switchroot_mode_runnable(st.st_mode))
			e = EACCES;
		_exit(e > 0 && e < 256 ? e : (e ? EIO : 0));
	}
	int r = child_wait(pid, &status);

	if (r < 0)
		return r;
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -EIO;
}

static int init_runnable(int root_fd, const char *path)
{
	struct stat st;
	int fd = open_in_root(root_fd, path);
	int r = 0;

	if (fd == -ENOSYS)
		return init_runnable_by_chroot(root_fd, path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else if (!switchroot_mode_runnable(st.st_mode))
		r = -EACCES;
	close(fd);
	return r;
}

int switchroot_find_init(int root_fd, const char *explicit_init, const char *const *fallbacks,
			 char *out, size_t out_size, char *why, size_t why_size)
{
	size_t used = 0;
	int r = -ENOENT;

	if (explicit_init && explicit_init[0]) {
		r = init_runnable(root_fd, explicit_init);
		if (r == 0)
			r = copy_str(out, out_size, explicit_init);
		else
			snprintf(why, why_size,
				 "init=%s cannot be run in the new root: %s — fix init= or drop it "
				 "to try the usual places",
				 explicit_init, strerror(-r));
		goto out;
	}
	for (size_t i = 0; fallbacks[i]; i++) {
		if (init_runnable(root_fd, fallbacks[i]) == 0) {
			r = copy_str(out, out_size, fallbacks[i]);
			goto out;
		}
	}
	used = (size_t)snprintf(why, why_size, "no init in the new root: tried");
	for (size_t i = 0; fallbacks[i] && used < why_size; i++)
		used += (size_t)snprintf(why + used, why_size - used, "%s %s", i ? "," : "",
					 fallbacks[i]);
	if (used < why_size)
		snprintf(why + used, why_size - used, " — give init=");
out:
	return r;
}

int switchroot_check(const char *newroot, const char *explicit_init, char *init, size_t init_size,
		     char *why, size_t why_size)
{
	static const char *const no_fallbacks[] = { NULL };
	struct switchroot_facts facts;
	int root_fd = -1;
	int r = switchroot_gather(newroot, &facts);

	if (r < 0) {
		snprintf(why, why_size, "unable to inspect \"/\" before switching: %s", strerror(-r));
		goto out;
	}
	r = switchroot_check_facts(&facts, newroot, why, why_size);
	if (r < 0)
		goto out;
	root_fd = open(newroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0) {
		r = -errno;
		snprintf(why, why_size, "unable to open %s: %s", newroot, strerror(-r));
		goto out;
	}
	r = switchroot_find_init(root_fd, explicit_init,
				 explicit_init && explicit_init[0] ? no_fallbacks : plan_default_inits,
				 init, init_size, why, why_size);
out:
	if (root_fd >= 0)
		close(root_fd);
	return r;
}

/* A read-only new root may lack a directory: decide every API mount's fate before the first
 * move, so a failure does not leave half of them moved. */
static void api_mounts_plan(const char *newroot, bool movable[])
{
	for (size_t i = 0; i < ARRAY_SIZE(api_mounts); i++) {
		char path[512];
		struct stat st;

		snprintf(path, sizeof(path), "%s%s", newroot, api_mounts[i]);
		movable[i] = (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) ||
			     mkdir(path, 0755) == 0;
		if (!movable[i])
			log_warn("%s has no %s and it cannot be created (%s): %s is detached, "
				 "the new init must mount its own",
				 newroot, api_mounts[i], strerror(errno), api_mounts[i]);
	}
}

static void api_mounts_move(const char *newroot, const bool movable[])
{
	for (size_t i = 0; i < ARRAY_SIZE(api_mounts); i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s%s", newroot, api_mounts[i]);
		if (movable[i] && mount(api_mounts[i], path, NULL, MS_MOVE, NULL) == 0)
			continue;
		if (movable[i])
			log_warn("unable to move %s to %s: %s; detaching it", api_mounts[i], path,
				 strerror(errno));
		umount2(api_mounts[i], MNT_DETACH);
	}
}

static void remove_tree(int dir_fd, dev_t dev, dev_t skip_dev, ino_t skip_ino);

/* d_type spares a stat for each file (most of the image: 88 of 145 entries; each system
 * call is slow under TCG); a directory is looked at before it is entered. */
static void remove_entry(int dir_fd, const char *name, unsigned char type, dev_t dev,
			 dev_t skip_dev, ino_t skip_ino)
{
	struct stat st;
	int fd;

	if (type != DT_DIR && type != DT_UNKNOWN) {
		unlinkat(dir_fd, name, 0);
		return;
	}
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dir_fd, name, 0);
		return;
	}
	/* Another device is a mount point (the new root among them): never cross it. */
	if (st.st_dev != dev || (st.st_dev == skip_dev && st.st_ino == skip_ino))
		return;
	fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	remove_tree(fd, dev, skip_dev, skip_ino);
	unlinkat(dir_fd, name, AT_REMOVEDIR);
}

/* Takes ownership of dir_fd. */
static void remove_tree(int dir_fd, dev_t dev, dev_t skip_dev, ino_t skip_ino)
{
	DIR *dir = fdopendir(dir_fd);
	struct dirent *de;

	if (!dir) {
		close(dir_fd);
		return;
	}
	while ((de = readdir(dir))) {
		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		remove_entry(dirfd(dir), de->d_name, de->d_type, dev, skip_dev, skip_ino);
	}
	closedir(dir);
}

static void initramfs_wipe(const char *newroot)
{
	struct stat root_st, new_st;
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &root_st) < 0 || stat(newroot, &new_st) < 0) {
		log_warn("not freeing the initramfs: %s", strerror(errno));
		close(fd);
		return;
	}
	remove_tree(fd, root_st.st_dev, new_st.st_dev, new_st.st_ino);
}

int switchroot_enter(const char *newroot, char *why, size_t why_size)
{
	bool movable[ARRAY_SIZE(api_mounts)];
	int r = 0;

	/* The kernel refuses to move a mount whose parent is shared. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		r = -errno;
		snprintf(why, why_size, "unable to make \"/\" private before switching: %s",
			 strerror(-r));
		goto out;
	}
	api_mounts_plan(newroot, movable);
	api_mounts_move(newroot, movable);
	initramfs_wipe(newroot);
	if (chdir(newroot) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 ||
	    chdir("/") < 0) {
		r = -errno;
		snprintf(why, why_size, "unable to make %s the root: %s", newroot, strerror(-r));
	}
out:
	return r;
}

int switchroot_exec(const char *init, int argc, char **argv)
{
	char *args[EXEC_ARGS_MAX + 1];
	size_t n = 0;

	args[n++] = (char *)init;
	for (int i = 1; i < argc && n < EXEC_ARGS_MAX; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	execv(init, args);
	return -errno;
}
