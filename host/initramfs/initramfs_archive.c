/* `earlymount initramfs`: the archive. The skeleton, /init, the staged modules and --add
 * files go into a newc cpio, written next to the output and renamed into place. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "initramfs.h"
#include "log.h"
#include "luks_helper.h"
#include "paths.h"
#include "util.h"

/* The image's fixed skeleton. /dev/console must exist before devtmpfs is mounted: the kernel
 * opens it for PID 1's standard file descriptors. */
static const struct skeleton_dir {
	const char *path;
	unsigned mode;
} skeleton_dirs[] = {
	{ "dev", 0755 }, { "proc", 0755 }, { "sys", 0755 }, { "run", 0755 },
	{ "sysroot", 0755 }, { "tmp", 01777 }, { "etc", 0755 },
};
#define CONSOLE_MAJOR 5
#define CONSOLE_MINOR 1

/* Adds the tree at src as dest. keep_modes: the host's permission bits, else 0755/0644. */
int initramfs_add_tree(struct builder *b, const char *src, const char *dest, bool keep_modes,
		    bool follow)
{
	char sub_src[PATH_MAX], sub_dest[PATH_MAX], target[PATH_MAX];
	struct stat st;
	DIR *dir = NULL;
	struct dirent *de;
	ssize_t n;
	int r = 0;

	if ((follow ? stat(src, &st) : lstat(src, &st)) < 0) {
		r = -errno;
		log_err("unable to add %s: %s", src, strerror(-r));
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(src, target, sizeof(target) - 1);
		if (n < 0) {
			r = -errno;
			log_err("unable to read the symlink %s: %s", src, strerror(-r));
			goto out;
		}
		target[n] = '\0';
		r = cpio_add_symlink(&b->cpio, dest, target);
	} else if (S_ISREG(st.st_mode)) {
		r = cpio_add_file(&b->cpio, dest, keep_modes ? st.st_mode : 0644, src);
	} else if (S_ISDIR(st.st_mode)) {
		r = cpio_add_dir(&b->cpio, dest, keep_modes ? st.st_mode : 0755);
		dir = r == 0 ? opendir(src) : NULL;
		if (r == 0 && !dir) {
			r = -errno;
			log_err("unable to read the directory %s: %s", src, strerror(-r));
		}
		while (r == 0 && dir && (de = readdir(dir))) {
			if (streq(de->d_name, ".") || streq(de->d_name, ".."))
				continue;
			r = path_join(sub_src, sizeof(sub_src), src, de->d_name);
			if (r == 0)
				r = path_join(sub_dest, sizeof(sub_dest), dest, de->d_name);
			if (r == 0)
				r = initramfs_add_tree(b, sub_src, sub_dest, keep_modes, false);
			else
				log_err("unable to add %s/%s: the path is too long", src, de->d_name);
		}
	} else {
		log_warn("skipping %s: only files, directories and symlinks are added", src);
		goto out;
	}
	if (r == -EINVAL)
		log_err("unable to add %s as %s: not a path inside the image", src, dest);
	else if (r == -ENOMEM)
		log_err("unable to add %s: %s", src, strerror(-r));
	if (r == 0 && !S_ISDIR(st.st_mode))
		b->n_files++;
out:
	if (dir)
		closedir(dir);
	return r;
}

int initramfs_add_skeleton(struct builder *b, const char *init)
{
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(skeleton_dirs) && r == 0; i++)
		r = cpio_add_dir(&b->cpio, skeleton_dirs[i].path, skeleton_dirs[i].mode);
	if (r == 0)
		r = cpio_add_char_dev(&b->cpio, "dev/console", 0600, CONSOLE_MAJOR, CONSOLE_MINOR);
	if (r == 0)
		r = cpio_add_file(&b->cpio, "init", 0755, init);
	if (r == 0 && b->luks)
		r = cpio_add_file(&b->cpio, LUKS_HELPER_PATH, 0755, b->luks_helper_found);
	if (r == 0 && b->lvm)
		r = cpio_add_file(&b->cpio, EARLYMOUNT_LVM, 0755, b->lvm_tool_found);
	if (r == 0 && b->md)
		r = cpio_add_file(&b->cpio, EARLYMOUNT_MDADM, 0755, b->md_tool_found);
	if (r == 0 && b->md_conf_found[0])
		r = cpio_add_file(&b->cpio, MDADM_CONF, 0644, b->md_conf_found);
	return r;
}

int initramfs_add_extras(struct builder *b)
{
	size_t before = b->n_files;
	int r = 0;

	for (size_t i = 0; i < b->adds.n && r == 0; i++) {
		char *spec = b->adds.names[i];
		char *colon = strchr(spec, ':');
		const char *dest = colon ? colon + 1 : spec;

		if (colon)
			*colon = '\0';
		r = initramfs_add_tree(b, spec, dest, true, true);
		if (colon)
			*colon = ':';
	}
	b->n_added = b->n_files - before;
	return r;
}

/* Writes the archive into fd, reporting what failed. */
static int write_archive(struct builder *b, int fd, uint64_t *written)
{
	int copy = dup(fd);
	FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;
	int r;

	if (!f) {
		r = -errno;
		if (copy >= 0)
			close(copy);
		log_err("unable to write the archive: %s", strerror(-r));
		goto out;
	}
	r = cpio_write(&b->cpio, f, b->mtime, written);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == -EEXIST)
		log_err("unable to write the archive: /%s is added twice (--add over a file the image already has?)",
			b->cpio.failed_path);
	else if (r < 0 && b->cpio.failed_path[0])
		log_err("unable to write /%s into the archive: %s", b->cpio.failed_path, strerror(-r));
	else if (r < 0)
		log_err("unable to write the archive: %s", strerror(-r));
out:
	return r;
}

/* The archive goes to a file in the staging directory, then through the compressor into
 * out_fd: the compressor then knows the size (zstd puts it in the frame header). */
static int write_compressed(struct builder *b, int out_fd, uint64_t *raw_size)
{
	char path[PATH_MAX];
	int fd = -1;
	int r;

	r = path_join(path, sizeof(path), b->staging, "archive.cpio");
	if (r == 0) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		r = fd < 0 ? -errno : 0;
	}
	if (r < 0) {
		log_err("unable to create %s: %s", path, strerror(-r));
		goto out;
	}
	r = write_archive(b, fd, raw_size);
	if (r < 0)
		goto out;
	if (lseek(fd, 0, SEEK_SET) < 0)
		r = -errno;
	if (r == 0)
		r = compress_fd(b->compression, fd, out_fd);
	if (r < 0)
		log_err("unable to compress the archive with %s: %s", compress_program(b->compression),
			r == -EIO ? "it failed (see above)" : strerror(-r));
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* Writes the image next to b->output and renames it into place, so that a failed build
 * leaves no half image behind. */
int initramfs_write_image(struct builder *b, uint64_t *image_size, uint64_t *raw_size)
{
	char tmp[PATH_MAX];
	struct stat st;
	int fd = -1;
	int n, r = 0;

	n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", b->output);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		r = -ENAMETOOLONG;
		log_err("unable to write %s: %s", b->output, strerror(-r));
		tmp[0] = '\0';
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		r = -errno;
		log_err("unable to write %s: %s", b->output, strerror(-r));
		tmp[0] = '\0';
		goto out;
	}
	if (b->compression == COMPRESS_NONE)
		r = write_archive(b, fd, raw_size);
	else
		r = write_compressed(b, fd, raw_size);
	if (r < 0)
		goto out;
	if (fstat(fd, &st) < 0 || fchmod(fd, b->crypttab_keys.n || b->ssh_authorized_keys ? 0600 : 0644) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	fd = -1;
	if (r == 0 && rename(tmp, b->output) < 0)
		r = -errno;
	if (r < 0) {
		log_err("unable to write %s: %s", b->output, strerror(-r));
		goto out;
	}
	*image_size = (uint64_t)st.st_size;
out:
	if (fd >= 0)
		close(fd);
	if (r < 0 && tmp[0])
		unlink(tmp);
	return r;
}
