/* `earlymount initramfs`: the filesystem checkers earlymount runs before a read-write mount
 * (init/mounts/fsck.c), with the shared libraries and the program interpreter they need. They come
 * from the host, or from --fsck-root DIR (a tree unpacked from another architecture's
 * packages); a checker of another architecture, or one whose libraries are not all found, is
 * left out whole, with a line in the summary: a checker that cannot start would stop the boot
 * (fsck's exit 8) instead of leaving the partition unchecked. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "initramfs.h"
#include "log.h"
#include "util.h"

struct checker_program {
	const char *name;
	const char *const *links;   /* the names fsck(8) and earlymount also look for */
	const char *package;        /* Debian's */
	const char *const *fstypes; /* what it checks, as mountinfo names the types */
	const char *checks;         /* the same, for the summary */
};

static const char *const e2fsck_links[] = { "fsck.ext2", "fsck.ext3", "fsck.ext4", NULL };
static const char *const fat_links[] = { "fsck.vfat", "fsck.msdos", NULL };
static const char *const ext_types[] = { "ext2", "ext3", "ext4", NULL };
static const char *const fat_types[] = { "vfat", "msdos", NULL };

/* xfs_repair stays out: xfs replays and checks its log on mount, and its repair is a
 * person's job. */
static const struct checker_program checker_programs[] = {
	{ "e2fsck", e2fsck_links, "e2fsprogs", ext_types, "ext2/3/4" },
	{ "fsck.fat", fat_links, "dosfstools", fat_types, "FAT" },
};

/* Relative to the root the checkers come from; the image gets them in /usr/sbin. */
static const char *const program_dirs[] = { "usr/sbin", "sbin" };
#define IMAGE_SBIN "usr/sbin"

static int find_checker_in_root(const struct builder *b, const struct checker_program *p,
				char *src, size_t size)
{
	char rel[PATH_MAX];
	int r = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(program_dirs) && r < 0; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", program_dirs[i], p->name);
		r = initramfs_resolve_in_root(b, rel, src, size);
	}
	return r;
}

static int add_closure(struct builder *b, const struct checker_program *p, const struct closure *c)
{
	char dest[PATH_MAX];
	int r = 0;

	r = closure_install(b, c);
	for (const char *const *l = p->links; *l && r == 0; l++) {
		snprintf(dest, sizeof(dest), IMAGE_SBIN "/%s", *l);
		r = cpio_add_symlink(&b->cpio, dest, p->name);
	}
	if (r == 0)
		r = name_list_add(&b->fsck_programs, p->name);
	b->fsck_bytes += c->bytes;
	return r;
}

/* A host-only image mounts the filesystems of the host's mounts the walk read and those
 * --module adds (by name or as fs-TYPE), whose modules it has: the checkers of other types
 * would only cost every boot their unpacking (3.3 MiB with their libraries; 6–14 ms under
 * QEMU, docs/performance.md). */
static bool host_needs(const struct builder *b, const struct checker_program *p)
{
	bool needed = !b->host_only;
	char alias[32];

	for (const char *const *t = p->fstypes; *t && !needed; t++) {
		snprintf(alias, sizeof(alias), "fs-%s", *t);
		needed = name_list_has(&b->host_fstypes, *t) || name_list_has(&b->extra_modules, *t) ||
			 name_list_has(&b->extra_modules, alias);
	}
	return needed;
}

/* One checker and what it needs, or a line in the summary saying why it is left out. */
static int add_checker(struct builder *b, const struct checker_program *p)
{
	struct closure c = { 0 };
	char src[PATH_MAX], dest[PATH_MAX], why[PATH_MAX + 128] = "";
	int r = 0;

	if (!host_needs(b, p)) {
		snprintf(why, sizeof(why), "%s: not needed, neither the host's mounts nor --module name %s (--host-only)",
			 p->name, p->checks);
		goto skip;
	}
	r = find_checker_in_root(b, p, src, sizeof(src));
	if (r < 0) {
		snprintf(why, sizeof(why), "%s: not in %s (Debian package %s)", p->name, initramfs_tools_root(b),
			 p->package);
		goto skip;
	}
	snprintf(dest, sizeof(dest), IMAGE_SBIN "/%s", p->name);
	r = closure_add(b, &c, dest, src, why, sizeof(why));
	if (r == 0)
		r = closure_deps(b, &c, src, 0, why, sizeof(why));
	if (r == -ENOMEM)
		goto out;
	if (r < 0)
		goto skip;
	r = add_closure(b, p, &c);
	goto out;
skip:
	r = name_list_add(&b->fsck_left_out, why);
out:
	closure_free(&c);
	return r;
}

int initramfs_add_checkers(struct builder *b)
{
	int r = 0;

	if (b->no_fsck)
		goto out;
	if (!initramfs_gnu_triplets[b->arch]) {
		r = name_list_add(&b->fsck_left_out, "no library directories known for this architecture");
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(checker_programs) && r == 0; i++)
		r = add_checker(b, &checker_programs[i]);
	if (r < 0)
		log_err("unable to add the filesystem checkers: %s", strerror(-r));
out:
	return r;
}
