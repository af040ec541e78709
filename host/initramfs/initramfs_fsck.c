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

/* Where the dynamic loaders look without an ld.so.cache: the multiarch directory first. */
static const char *const lib_dirs[] = { "lib/%s", "usr/lib/%s", "lib64", "usr/lib64", "lib", "usr/lib" };

static const char *const gnu_triplets[ARCH_MAX] = {
	[ARCH_X86_64] = "x86_64-linux-gnu",       [ARCH_AARCH64] = "aarch64-linux-gnu",
	[ARCH_X86] = "i386-linux-gnu",            [ARCH_ARM] = "arm-linux-gnueabihf",
	[ARCH_RISCV64] = "riscv64-linux-gnu",     [ARCH_PPC64LE] = "powerpc64le-linux-gnu",
	[ARCH_S390X] = "s390x-linux-gnu",         [ARCH_LOONGARCH64] = "loongarch64-linux-gnu",
};

#define FOLLOW_MAX 16

/* The files one checker needs: image path and source path, in pairs; a source seen under
 * another name (the loader is both PT_INTERP and libc's DT_NEEDED) becomes a symlink. */
struct closure {
	struct name_list dests;
	struct name_list sources;
	struct name_list link_to; /* "" for a file, else the absolute image path it points to */
	uint64_t bytes;
};

static const char *fsck_root(const struct builder *b)
{
	return b->fsck_root ? b->fsck_root : "/";
}

/* rel (relative to the root) as a path on the host. */
static int root_path(const struct builder *b, const char *rel, char *out, size_t size)
{
	const char *root = fsck_root(b);
	size_t len = strlen(root);

	return snprintf(out, size, "%s%s%s", root, len && root[len - 1] == '/' ? "" : "/", rel) <
			       (int)size ? 0 : -ENAMETOOLONG;
}

/* rel (relative to the root) with its last component's symlinks followed inside the root;
 * out is the path on the host. -ENOENT when nothing is there. */
static int resolve_in_root(const struct builder *b, const char *rel, char *out, size_t size)
{
	char cur[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int r = copy_str(cur, sizeof(cur), rel);

	for (int i = 0; r == 0 && i < FOLLOW_MAX; i++) {
		r = root_path(b, cur, out, size);
		if (r == 0 && lstat(out, &st) < 0)
			r = -errno;
		if (r < 0 || !S_ISLNK(st.st_mode))
			goto out;
		n = readlink(out, target, sizeof(target) - 1);
		if (n < 0) {
			r = -errno;
			goto out;
		}
		target[n] = '\0';
		if (target[0] == '/') {
			r = copy_str(cur, sizeof(cur), target + 1);
		} else {
			char *slash = strrchr(cur, '/');
			int len = slash ? (int)(slash - cur + 1) : 0;

			r = snprintf(out, size, "%.*s%s", len, cur, target) < (int)size ? 0 : -ENAMETOOLONG;
			if (r == 0)
				r = copy_str(cur, sizeof(cur), out);
		}
	}
	r = -ELOOP;
out:
	return r;
}

static int closure_add(const struct builder *b, struct closure *c, const char *dest,
		       const char *src, char *why, size_t why_size)
{
	char link[PATH_MAX] = "";
	enum arch arch;
	struct stat st;
	int r = 0;

	if (name_list_has(&c->dests, dest) || name_list_has(&b->fsck_files, dest))
		goto out;
	for (size_t i = 0; i < c->sources.n && !link[0]; i++)
		if (streq(c->sources.names[i], src) && !c->link_to.names[i][0])
			snprintf(link, sizeof(link), "/%s", c->dests.names[i]);
	r = elf_file_arch(src, &arch);
	if (r == 0 && arch != b->arch) {
		snprintf(why, why_size, "%s is for %s, the image for %s", src, arch_name(arch),
			 arch_name(b->arch));
		r = -ENOEXEC;
	} else if (r < 0) {
		snprintf(why, why_size, "%s: %s", src, r == -ENOEXEC ? "not an ELF file" : strerror(-r));
	}
	if (r == 0 && !link[0] && stat(src, &st) == 0)
		c->bytes += (uint64_t)st.st_size;
	if (r == 0)
		r = name_list_add(&c->dests, dest);
	if (r == 0)
		r = name_list_add(&c->sources, src);
	if (r == 0)
		r = name_list_add(&c->link_to, link);
out:
	return r;
}

/* The directory (relative to the root) a library soname is found in. */
static int find_library(const struct builder *b, const char *soname, char *rel, size_t size)
{
	char dir[64], src[PATH_MAX];
	int r = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(lib_dirs) && r < 0; i++) {
		snprintf(dir, sizeof(dir), lib_dirs[i], gnu_triplets[b->arch]);
		if (snprintf(rel, size, "%s/%s", dir, soname) >= (int)size)
			continue;
		r = resolve_in_root(b, rel, src, sizeof(src));
	}
	return r;
}

/* Adds the interpreter and the libraries src needs, and theirs, to c. */
static int closure_deps(const struct builder *b, struct closure *c, const char *src, int depth,
			char *why, size_t why_size)
{
	struct name_list needed = { 0 };
	char interp[PATH_MAX], rel[PATH_MAX], lib_src[PATH_MAX];
	int r = elf_dependencies(src, interp, sizeof(interp), &needed);

	if (r < 0)
		snprintf(why, why_size, "unable to read the ELF dependencies of %s", src);
	if (r == 0 && interp[0]) {
		r = resolve_in_root(b, interp + (interp[0] == '/'), lib_src, sizeof(lib_src));
		if (r < 0)
			snprintf(why, why_size, "its interpreter %s is not in %s", interp, fsck_root(b));
		else
			r = closure_add(b, c, interp + (interp[0] == '/'), lib_src, why, why_size);
	}
	for (size_t i = 0; r == 0 && i < needed.n; i++) {
		size_t before = c->dests.n;

		r = find_library(b, needed.names[i], rel, sizeof(rel));
		if (r < 0) {
			snprintf(why, why_size, "%s needs %s, which is not in the library directories of %s",
				 src, needed.names[i], fsck_root(b));
			break;
		}
		r = resolve_in_root(b, rel, lib_src, sizeof(lib_src));
		if (r == 0)
			r = closure_add(b, c, rel, lib_src, why, why_size);
		/* a library seen for the first time brings its own */
		if (r == 0 && c->dests.n > before && depth < FOLLOW_MAX)
			r = closure_deps(b, c, lib_src, depth + 1, why, why_size);
	}
	name_list_free(&needed);
	return r;
}

static int find_checker_in_root(const struct builder *b, const struct checker_program *p,
				char *src, size_t size)
{
	char rel[PATH_MAX];
	int r = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(program_dirs) && r < 0; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", program_dirs[i], p->name);
		r = resolve_in_root(b, rel, src, size);
	}
	return r;
}

static void closure_free(struct closure *c)
{
	name_list_free(&c->dests);
	name_list_free(&c->sources);
	name_list_free(&c->link_to);
}

static int add_closure(struct builder *b, const struct checker_program *p, const struct closure *c)
{
	char dest[PATH_MAX];
	int r = 0;

	for (size_t i = 0; i < c->dests.n && r == 0; i++) {
		if (c->link_to.names[i][0])
			r = cpio_add_symlink(&b->cpio, c->dests.names[i], c->link_to.names[i]);
		else
			r = cpio_add_file(&b->cpio, c->dests.names[i], 0755, c->sources.names[i]);
		if (r == 0)
			r = name_list_add(&b->fsck_files, c->dests.names[i]);
	}
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
		snprintf(why, sizeof(why), "%s: not in %s (Debian package %s)", p->name, fsck_root(b),
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
	if (!gnu_triplets[b->arch]) {
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
