/* Handing the system to the real init: every check first, then the irreversible part. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SWITCHROOT_WHY 512
/* The most arguments the real init is given, its name included. */
#define EXEC_ARGS_MAX 64

/* The facts the checks look at, gathered by switchroot_gather() or given by a test. */
struct switchroot_facts {
	pid_t pid;
	long root_fs_magic;   /* statfs("/").f_type */
	dev_t root_dev;       /* stat("/").st_dev */
	dev_t newroot_dev;    /* stat(newroot).st_dev */
	bool newroot_exists;
};

/* Fills facts for newroot. 0 or -errno. */
int switchroot_gather(const char *newroot, struct switchroot_facts *facts);
/* We are PID 1, "/" is ramfs or tmpfs, newroot is a mount of its own. Pure.
 * 0, or -EPERM / -EINVAL with why saying which check failed and what to try. */
int switchroot_check_facts(const struct switchroot_facts *facts, const char *newroot, char *why,
			   size_t why_size);
/* Whether a file of this mode can be run as init: a regular file with an execute bit. Pure. */
bool switchroot_mode_runnable(mode_t mode);
/* Finds the init to run inside the directory root_fd, resolving symlinks inside it (an
 * absolute link in the new root points into the new root). An explicit init (init=) is the
 * only candidate; else the first runnable of fallbacks (NULL-terminated). 0 with the path in
 * out; -ENOENT (or the explicit init's -errno) with why. */
int switchroot_find_init(int root_fd, const char *explicit_init, const char *const *fallbacks,
			 char *out, size_t out_size, char *why, size_t why_size);
/* Every check of the handoff: the facts and the init. 0 or -errno with why. */
int switchroot_check(const char *newroot, const char *explicit_init, char *init, size_t init_size,
		     char *why, size_t why_size);
/* The irreversible part: "/" private, /dev /proc /sys /run moved into newroot, the initramfs
 * emptied, newroot moved onto "/", chroot. 0 or -errno with why; after a failure past the
 * wipe there is no way back. */
int switchroot_enter(const char *newroot, char *why, size_t why_size);
/* execv(init) with argv[0] = init and our own argv[1..]. Returns only on failure: -errno. */
int switchroot_exec(const char *init, int argc, char **argv);
