/* The file-hierarchy skeleton's steps: conditional, never replacing, warnings only. What
 * they could not make, the real init may still make; none of them stops the boot. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execute_skeleton.h"
#include "log.h"
#include "tree_copy.h"
#include "util.h"

/* A factory tree deeper than this is a loop or a mistake, not defaults for /etc. */
#define POPULATE_DEPTH_MAX 32

static bool path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static bool dir_is_empty(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!dir)
		return false;
	while (empty && (de = readdir(dir)))
		empty = streq(de->d_name, ".") || streq(de->d_name, "..");
	closedir(dir);
	return empty;
}

/* systemd-tmpfiles' "C": a factory tree fills a target that is missing or empty, else
 * nothing is touched. */
int execute_populate(const struct plan_step *s, struct execute_ctx *ctx)
{
	struct stat st;
	const char *failed = NULL;
	int from = -1, to = -1;
	int r = 0;

	(void)ctx;
	if (stat(s->source, &st) < 0 || !S_ISDIR(st.st_mode)) {
		log_debug("  skipped: no directory %s", s->source);
		goto out;
	}
	if (path_exists(s->target) && !dir_is_empty(s->target)) {
		log_debug("  skipped: %s is there already", s->target);
		goto out;
	}
	if (!path_exists(s->target)) {
		r = mkdir_mode_at(AT_FDCWD, s->target, st.st_mode & 07777);
		if (r == 0 && chown(s->target, st.st_uid, st.st_gid) < 0)
			r = -errno;
		if (r < 0) {
			failed = s->target;
			goto out;
		}
	}
	from = open(s->source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	to = open(s->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (from < 0 || to < 0) {
		r = -errno;
		failed = from < 0 ? s->source : s->target;
		goto out;
	}
	r = tree_copy(from, to, POPULATE_DEPTH_MAX, &failed);
	if (r == 0)
		log_info("skeleton: %s filled from %s", s->target, s->source);
out:
	if (r < 0)
		log_warn("unable to copy %s into %s (at %s): %s; the real init finds what was copied",
			 s->source, s->target, failed ? failed : "?", strerror(-r));
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	return 0;
}

int execute_skel_dir(const struct plan_step *s, struct execute_ctx *ctx)
{
	int r;

	(void)ctx;
	if (path_exists(s->target)) {
		log_debug("  skipped: %s is there already", s->target);
		return 0;
	}
	r = mkdir_mode_at(AT_FDCWD, s->target, s->mode);
	if (r == 0)
		log_info("skeleton: made %s (mode %04o)", s->target, s->mode & 07777);
	else
		log_warn("unable to create the directory %s: %s; the real init may miss it",
			 s->target, strerror(-r));
	return 0;
}

/* The link's text is read from the link's own directory, as the kernel will read it. */
int execute_skel_link(const struct plan_step *s, struct execute_ctx *ctx)
{
	char resolved[PATH_MAX];
	const char *slash = strrchr(s->target, '/');
	int dir_len = slash ? (int)(slash - s->target) : 0;
	struct stat st;

	(void)ctx;
	if (path_exists(s->target)) {
		log_debug("  skipped: %s is there already", s->target);
		goto out;
	}
	if (s->source[0] == '/')
		snprintf(resolved, sizeof(resolved), "%s", s->source);
	else
		snprintf(resolved, sizeof(resolved), "%.*s/%s", dir_len, s->target, s->source);
	if (stat(resolved, &st) < 0) {
		log_debug("  skipped: nothing at %s", resolved);
		goto out;
	}
	if (symlinkat(s->source, AT_FDCWD, s->target) == 0)
		log_info("skeleton: made %s -> %s", s->target, s->source);
	else
		log_warn("unable to create the symlink %s -> %s: %s; the real init may miss it",
			 s->target, s->source, strerror(errno));
out:
	return 0;
}
