/* `earlymount initramfs`: the staging tree. The chosen modules are copied (or compressed)
 * below a temporary directory and indexed again there with the host's depmod, so that the
 * image's indexes name only what it holds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "initramfs.h"
#include "log.h"
#include "util.h"

/* Index files depmod writes; copied from the kernel's directory when there is no depmod. */
static const char *const module_indexes[] = {
	"modules.dep",     "modules.dep.bin",     "modules.alias",   "modules.alias.bin",
	"modules.softdep", "modules.symbols",     "modules.symbols.bin",
	"modules.builtin.bin", "modules.builtin.alias.bin", "modules.devname",
};
/* What depmod reads besides the modules themselves. */
static const char *const module_metadata[] = {
	"modules.order",
	"modules.builtin",
	"modules.builtin.modinfo",
};

static int mkdir_parents(const char *path, unsigned mode)
{
	char buf[PATH_MAX];
	int r = COPY_STR(buf, path);

	for (char *p = buf + 1; r == 0 && *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			r = -errno;
		*p = '/';
	}
	if (r == 0 && mkdir(buf, mode) < 0 && errno != EEXIST)
		r = -errno;
	return r;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = -1;
	ssize_t n;
	int r = 0;

	if (in < 0) {
		r = -errno;
		goto out;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		r = -errno;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = errno ? -errno : -EIO;
			goto out;
		}
	if (n < 0)
		r = -errno;
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && r == 0)
		r = -errno;
	return r;
}

int initramfs_remove_tree(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	int flags = 0;

	if (dir) {
		while ((de = readdir(dir)))
			if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
				initramfs_remove_tree(fd, de->d_name);
		closedir(dir);
		flags = AT_REMOVEDIR;
	} else if (fd >= 0) {
		close(fd);
	}
	return unlinkat(dirfd, name, flags) < 0 ? -errno : 0;
}

static int run_depmod(const struct builder *b, const char *depmod)
{
	const char *argv[] = { depmod, "-b", b->staging, b->kver, NULL };
	pid_t pid;
	int status;
	int r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = -1, .err = -1,
						 .exec_failed = 127 },
			    &pid);

	if (r < 0) {
		log_err("unable to start %s: %s", depmod, strerror(-r));
		goto out;
	}
	r = child_wait(pid, &status);
	if (r < 0)
		goto out;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_err("%s -b %s %s failed (%s %d)", depmod, b->staging, b->kver,
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		r = -EIO;
	}
out:
	return r;
}

static int copy_into_staging(const struct builder *b, const char *stage_dir, const char *from_dir,
			     const char *const *names, size_t n, bool optional)
{
	char from[PATH_MAX], to[PATH_MAX];
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		r = path_join(from, sizeof(from), from_dir, names[i]);
		if (r == 0)
			r = path_join(to, sizeof(to), stage_dir, names[i]);
		if (r == 0 && optional && access(from, F_OK) < 0)
			continue;
		if (r == 0)
			r = copy_file(from, to);
		if (r < 0)
			log_err("unable to copy %s to %s: %s", from, to, strerror(-r));
	}
	return r;
}

/* A module whose name says it is compressed already (.ko.xz, .ko.zst) is stored as it is,
 * and so is one most boots insert (initramfs_plain.c). */
static bool module_compressible(const struct builder *b, const struct chosen_module *m)
{
	size_t len = strlen(m->relpath);

	return b->module_compression != COMPRESS_NONE && !m->plain && len > 3 &&
	       streq(m->relpath + len - 3, ".ko");
}

/* Copies m below stage_dir, compressed with --compress-modules (depmod then names the
 * compressed file in modules.dep, and libkmod decompresses it when it loads it). */
static int stage_module(struct builder *b, struct chosen_module *m, const char *stage_dir)
{
	enum compression c = module_compressible(b, m) ? b->module_compression : COMPRESS_NONE;
	char to[PATH_MAX];
	int in = -1, out = -1;
	struct stat st;
	int n, r;

	n = snprintf(to, sizeof(to), "%s/%s%s", stage_dir, m->relpath, compress_suffix(c));
	r = n < 0 || (size_t)n >= sizeof(to) ? -ENAMETOOLONG : 0;
	if (r == 0) {
		*strrchr(to, '/') = '\0';
		r = mkdir_parents(to, 0755);
		to[strlen(to)] = '/';
	}
	if (r < 0)
		goto out;
	in = open(m->path, O_RDONLY | O_CLOEXEC);
	out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (in < 0 || out < 0) {
		r = -errno;
		goto out;
	}
	r = compress_fd(c, in, out);
	if (r == 0 && fstat(out, &st) < 0)
		r = -errno;
	if (r == 0)
		m->stored_size = (uint64_t)st.st_size;
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		log_err("unable to %s %s to %s: %s", c == COMPRESS_NONE ? "copy" : "compress", m->path, to,
			r == -EIO ? "the compressor failed" : strerror(-r));
	return r;
}

int initramfs_stage_modules(struct builder *b, char *stage_dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char depmod[PATH_MAX];
	int n, r = 0;

	snprintf(b->staging, sizeof(b->staging), "%s/earlymount-initramfs.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(b->staging)) {
		r = -errno;
		log_err("unable to create a staging directory %s: %s", b->staging, strerror(-r));
		b->staging[0] = '\0';
		goto out;
	}
	n = snprintf(stage_dir, size, "%s/lib/modules/%s", b->staging, b->kver);
	if (n < 0 || (size_t)n >= size)
		r = -ENAMETOOLONG;
	for (size_t i = 0; i < b->n_modules && r == 0; i++)
		r = stage_module(b, &b->modules[i], stage_dir);
	if (r == 0)
		r = mkdir_parents(stage_dir, 0755);
	if (r == 0)
		r = copy_into_staging(b, stage_dir, b->moddir, module_metadata, ARRAY_SIZE(module_metadata),
				      true);
	if (r < 0)
		goto out;
	/* depmod lives in /sbin, which is not on an ordinary user's PATH in Debian */
	if (path_find_program("depmod", "/usr/sbin:/sbin", depmod, sizeof(depmod)) == 0) {
		r = run_depmod(b, depmod);
		goto out;
	}
	/* the original indexes name modules the image lacks; at boot those are reported as
	 * missing, which is still better than no index at all */
	b->indexes_copied = true;
	r = copy_into_staging(b, stage_dir, b->moddir, module_indexes, ARRAY_SIZE(module_indexes), true);
out:
	return r;
}
