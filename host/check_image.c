/* An initramfs image's contents, read once into lists (host/initramfs/cpio_read.c walks it). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_image.h"
#include "cpio_read.h"
#include "crypttab.h"
#include "paths.h"
#include "util.h"

/* What earlymount's binaries print and log as their version: "earlymount 0.1.0". */
#define VERSION_WORD "earlymount "
/* The init is a static binary of a few hundred KiB; its version string is found in one read
 * of this size at a time, with an overlap for a string across two reads. */
#define INIT_CHUNK (64 * 1024)
#define BUILTIN_MAX (1024 * 1024)

static const char *const program_dirs[] = { "usr/sbin/", "usr/bin/", "sbin/", "bin/" };

/* A module's name as the kernel compares it: '-' and '_' are the same. */
static void module_name(const char *in, size_t len, char *out, size_t size)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++)
		out[i] = in[i] == '-' ? '_' : in[i];
	out[i] = '\0';
}

/* "…/name.ko", "…/name.ko.xz" (.gz, .zst): name's length, or 0 for other files. */
static size_t ko_name(const char *base)
{
	const char *ko = strstr(base, ".ko");
	const char *rest = ko ? ko + 3 : NULL;

	if (!rest || (*rest && !streq(rest, ".xz") && !streq(rest, ".gz") && !streq(rest, ".zst")))
		return 0;
	return (size_t)(ko - base);
}

/* "earlymount X.Y.Z" among the bytes of /init: the version, or "" when none. */
static void find_version(const struct cpio_file *f, struct image_contents *c)
{
	static char buf[INIT_CHUNK + 1];
	struct cpio_file part = *f;
	const char *hit = NULL;
	size_t w = strlen(VERSION_WORD);

	for (uint64_t at = 0; at < f->size && !hit; at += INIT_CHUNK - 64) {
		ssize_t n;

		part.offset = f->offset + (off_t)at;
		part.size = f->size - at;
		n = cpio_file_read(&part, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (const char *p = buf; !hit && (p = memmem(p, (size_t)n - (size_t)(p - buf),
							      VERSION_WORD, w)); p++) {
			if (p[w] >= '0' && p[w] <= '9')
				hit = p + w;
			/* builds before the version was one literal: theirs is unknown */
			c->init_is_earlymount |= hit || (p[w] == '%' && p[w + 1] == 's');
		}
	}
	if (!hit)
		return;
	w = 0;
	while (w + 1 < sizeof(c->init_version) && (hit[w] == '.' || (hit[w] >= '0' && hit[w] <= '9')))
		w++;
	memcpy(c->init_version, hit, w);
	c->init_version[w] = '\0';
}

static int read_builtin(const struct cpio_file *f, struct image_contents *c)
{
	char *text = malloc(BUILTIN_MAX + 1);
	ssize_t n = text ? cpio_file_read(f, text, BUILTIN_MAX + 1) : -ENOMEM;
	char name[NAME_MAX + 1], *save = NULL;
	int r = n < 0 ? (int)n : 0;

	/* one path a line: kernel/drivers/md/dm-mod.ko */
	for (char *line = r == 0 ? strtok_r(text, "\n", &save) : NULL; line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
		size_t len = ko_name(base);

		module_name(base, len, name, sizeof(name));
		if (len && !name_list_has(&c->builtin, name))
			r = name_list_add(&c->builtin, name);
	}
	free(text);
	return r;
}

/* The release in "lib/modules/RELEASE/…" (also under usr/), into out: whether path is one. */
static bool module_release(const char *path, const char **rest, char *out, size_t size)
{
	const char *p = startswith(path, "usr/") ? path + 4 : path;
	const char *end;

	p = startswith(p, "lib/modules/");
	end = p ? strchr(p, '/') : NULL;
	if (!end || (size_t)(end - p) >= size)
		return false;
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = '\0';
	*rest = end + 1;
	return true;
}

static int take_module_file(const struct cpio_file *f, struct image_contents *c)
{
	char release[NAME_MAX + 1], name[NAME_MAX + 1];
	const char *rest, *base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	size_t len = ko_name(base);
	int r = 0;

	if (!module_release(f->path, &rest, release, sizeof(release)))
		goto out;
	r = name_list_add_once(&c->releases, release);
	if (r == 0 && streq(rest, "modules.builtin") && S_ISREG(f->mode))
		r = read_builtin(f, c);
	module_name(base, len, name, sizeof(name));
	if (r == 0 && len && !name_list_has(&c->modules, name))
		r = name_list_add(&c->modules, name);
out:
	return r;
}

/* The image's crypttab: the volumes its boot opens. */
static int read_crypttab(const struct cpio_file *f, struct image_contents *c)
{
	ssize_t n;

	free(c->crypttab);
	c->crypttab = malloc(CRYPTTAB_TEXT_MAX + 1);
	if (!c->crypttab)
		return -ENOMEM;
	n = cpio_file_read(f, c->crypttab, CRYPTTAB_TEXT_MAX + 1);
	c->crypttab_len = n < 0 ? 0 : (size_t)n;
	return n < 0 ? (int)n : 0;
}

static int take(const struct cpio_file *f, void *data)
{
	struct image_contents *c = data;
	int r = 0;

	if (!S_ISREG(f->mode) && !S_ISLNK(f->mode))
		goto out;
	if (streq(f->path, "init")) {
		c->has_init = true;
		if (S_ISREG(f->mode))
			find_version(f, c);
	}
	r = name_list_add(&c->files, f->path);
	if (r == 0)
		r = take_module_file(f, c);
	if (r == 0 && S_ISREG(f->mode) && streq(f->path, INITRAMFS_CRYPTTAB + 1))
		r = read_crypttab(f, c);
out:
	return r;
}

int image_contents_read(const char *path, struct image_contents *c)
{
	int r;

	memset(c, 0, sizeof(*c));
	r = cpio_read_image(path, take, c);
	if (r == -EMEDIUMTYPE)
		fprintf(stderr, "earlymount: %s is no initramfs image earlymount can read (newc cpio "
				"archives, uncompressed or compressed with gzip, zstd or xz)\n", path);
	else if (r == -EBADMSG)
		fprintf(stderr, "earlymount: %s: a cpio archive in it is damaged or cut short\n", path);
	else if (r == -ENOENT && access(path, F_OK) == 0)
		fprintf(stderr, "earlymount: %s: the program that decompresses it is not installed\n", path);
	else if (r < 0)
		fprintf(stderr, "earlymount: cannot read %s: %s\n", path, strerror(-r));
	return r;
}

void image_contents_free(struct image_contents *c)
{
	name_list_free(&c->files);
	name_list_free(&c->modules);
	name_list_free(&c->builtin);
	name_list_free(&c->releases);
	free(c->crypttab);
	c->crypttab = NULL;
}

bool image_has_file(const struct image_contents *c, const char *path)
{
	while (*path == '/')
		path++;
	return name_list_has(&c->files, path);
}

bool image_has_program(const struct image_contents *c, const char *name)
{
	char path[PATH_MAX];
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(program_dirs) && !found; i++) {
		snprintf(path, sizeof(path), "%s%s", program_dirs[i], name);
		found = name_list_has(&c->files, path);
	}
	return found;
}

bool image_has_module(const struct image_contents *c, const char *name, bool *builtin)
{
	char want[NAME_MAX + 1];

	module_name(name, strlen(name), want, sizeof(want));
	*builtin = name_list_has(&c->builtin, want);
	return *builtin || name_list_has(&c->modules, want);
}
