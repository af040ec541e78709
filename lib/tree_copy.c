/* Copying a directory tree with its owners and modes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "tree_copy.h"
#include "util.h"

/* Creates dir_fd/name with exactly mode: mkdir alone would leave the umask's mark on 1777. */
int mkdir_mode_at(int dir_fd, const char *name, mode_t mode)
{
	int r = 0;

	if (mkdirat(dir_fd, name, mode) < 0 || fchmodat(dir_fd, name, mode, 0) < 0)
		r = -errno;
	return r;
}

static int copy_file_at(int src_dir, int dst_dir, const char *name, const struct stat *st)
{
	int in = openat(src_dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int out = -1;
	int r = 0;

	if (in < 0) {
		r = -errno;
		goto out;
	}
	out = openat(dst_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0) {
		r = -errno;
		goto out;
	}
	r = copy_fd(in, out);
	if (r == 0 && (fchown(out, st->st_uid, st->st_gid) < 0 ||
		       fchmod(out, st->st_mode & 07777) < 0))
		r = -errno;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return r;
}

static int copy_symlink_at(int src_dir, int dst_dir, const char *name, const struct stat *st)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(src_dir, name, target, sizeof(target) - 1);
	int r = 0;

	if (n < 0) {
		r = -errno;
		goto out;
	}
	target[n] = '\0';
	if (symlinkat(target, dst_dir, name) < 0 ||
	    fchownat(dst_dir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
out:
	return r;
}

static int copy_tree_at(int src_dir, int dst_dir, int depth_left, const char **failed);

static int copy_entry_at(int src_dir, int dst_dir, const char *name, int depth_left,
			 const char **failed)
{
	struct stat st;
	int r = 0;

	if (fstatat(src_dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		int from = -1, to = -1;

		r = mkdir_mode_at(dst_dir, name, st.st_mode & 07777);
		if (r == 0 && fchownat(dst_dir, name, st.st_uid, st.st_gid, 0) < 0)
			r = -errno;
		if (r == 0 && (from = openat(src_dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			r = -errno;
		if (r == 0 && (to = openat(dst_dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			r = -errno;
		if (r == 0)
			r = copy_tree_at(from, to, depth_left - 1, failed);
		if (from >= 0)
			close(from);
		if (to >= 0)
			close(to);
	} else if (S_ISREG(st.st_mode)) {
		r = copy_file_at(src_dir, dst_dir, name, &st);
	} else if (S_ISLNK(st.st_mode)) {
		r = copy_symlink_at(src_dir, dst_dir, name, &st);
	} else {
		r = -EOPNOTSUPP; /* device nodes and fifos do not belong in a factory tree */
	}
out:
	if (r < 0 && !*failed)
		*failed = name;
	return r;
}

static int copy_tree_at(int src_dir, int dst_dir, int depth_left, const char **failed)
{
	static char failed_name[NAME_MAX + 1];
	DIR *dir;
	struct dirent *de;
	int fd, r = 0;

	if (depth_left < 0)
		return -ELOOP;
	fd = dup(src_dir);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	while ((de = readdir(dir))) {
		const char *was = *failed;
		int e;

		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		e = copy_entry_at(src_dir, dst_dir, de->d_name, depth_left, failed);
		if (e < 0 && r == 0)
			r = e;
		/* d_name dies with the next readdir: keep the name of the first failure. */
		if (!was && *failed == de->d_name) {
			copy_str(failed_name, sizeof(failed_name), de->d_name);
			*failed = failed_name;
		}
	}
	closedir(dir);
	return r;
}

int tree_copy(int src_dir, int dst_dir, int max_depth, const char **failed)
{
	return copy_tree_at(src_dir, dst_dir, max_depth, failed);
}
