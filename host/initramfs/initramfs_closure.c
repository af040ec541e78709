/* `earlymount initramfs`: programs taken from a root tree (the host's, or --tools-root DIR:
 * another architecture's packages unpacked) with the program interpreter and the shared
 * libraries they need, found as the dynamic loader finds them without an ld.so.cache. The
 * filesystem checkers and klibc's ipconfig come this way. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "initramfs.h"
#include "log.h"
#include "util.h"

/* Where the dynamic loaders look without an ld.so.cache: the multiarch directory first. */
static const char *const lib_dirs[] = { "lib/%s", "usr/lib/%s", "lib64", "usr/lib64", "lib", "usr/lib" };

const char *const initramfs_gnu_triplets[ARCH_MAX] = {
	[ARCH_X86_64] = "x86_64-linux-gnu",       [ARCH_AARCH64] = "aarch64-linux-gnu",
	[ARCH_X86] = "i386-linux-gnu",            [ARCH_ARM] = "arm-linux-gnueabihf",
	[ARCH_RISCV64] = "riscv64-linux-gnu",     [ARCH_PPC64LE] = "powerpc64le-linux-gnu",
	[ARCH_S390X] = "s390x-linux-gnu",         [ARCH_LOONGARCH64] = "loongarch64-linux-gnu",
};

#define FOLLOW_MAX 16

const char *initramfs_tools_root(const struct builder *b)
{
	return b->tools_root ? b->tools_root : "/";
}

/* rel (relative to the root) as a path on the host. */
static int root_path(const struct builder *b, const char *rel, char *out, size_t size)
{
	const char *root = initramfs_tools_root(b);
	size_t len = strlen(root);

	return snprintf(out, size, "%s%s%s", root, len && root[len - 1] == '/' ? "" : "/", rel) <
			       (int)size ? 0 : -ENAMETOOLONG;
}

/* rel (relative to the root) with its last component's symlinks followed inside the root;
 * out is the path on the host. -ENOENT when nothing is there. */
int initramfs_resolve_in_root(const struct builder *b, const char *rel, char *out, size_t size)
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

int closure_add(const struct builder *b, struct closure *c, const char *dest,
		       const char *src, char *why, size_t why_size)
{
	char link[PATH_MAX] = "";
	enum arch arch;
	struct stat st;
	int r = 0;

	if (name_list_has(&c->dests, dest) || name_list_has(&b->tool_files, dest))
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
		snprintf(dir, sizeof(dir), lib_dirs[i], initramfs_gnu_triplets[b->arch]);
		if (snprintf(rel, size, "%s/%s", dir, soname) >= (int)size)
			continue;
		r = initramfs_resolve_in_root(b, rel, src, sizeof(src));
	}
	return r;
}

/* Adds the interpreter and the libraries src needs, and theirs, to c. */
int closure_deps(const struct builder *b, struct closure *c, const char *src, int depth,
			char *why, size_t why_size)
{
	struct name_list needed = { 0 };
	char interp[PATH_MAX], rel[PATH_MAX], lib_src[PATH_MAX];
	int r = elf_dependencies(src, interp, sizeof(interp), &needed);

	if (r < 0)
		snprintf(why, why_size, "unable to read the ELF dependencies of %s", src);
	if (r == 0 && interp[0]) {
		r = initramfs_resolve_in_root(b, interp + (interp[0] == '/'), lib_src, sizeof(lib_src));
		if (r < 0)
			snprintf(why, why_size, "its interpreter %s is not in %s", interp, initramfs_tools_root(b));
		else
			r = closure_add(b, c, interp + (interp[0] == '/'), lib_src, why, why_size);
	}
	for (size_t i = 0; r == 0 && i < needed.n; i++) {
		size_t before = c->dests.n;

		r = find_library(b, needed.names[i], rel, sizeof(rel));
		if (r < 0) {
			snprintf(why, why_size, "%s needs %s, which is not in the library directories of %s",
				 src, needed.names[i], initramfs_tools_root(b));
			break;
		}
		r = initramfs_resolve_in_root(b, rel, lib_src, sizeof(lib_src));
		if (r == 0)
			r = closure_add(b, c, rel, lib_src, why, why_size);
		/* a library seen for the first time brings its own */
		if (r == 0 && c->dests.n > before && depth < FOLLOW_MAX)
			r = closure_deps(b, c, lib_src, depth + 1, why, why_size);
	}
	name_list_free(&needed);
	return r;
}

void closure_free(struct closure *c)
{
	name_list_free(&c->dests);
	name_list_free(&c->sources);
	name_list_free(&c->link_to);
}


/* Puts c's files in the image (a file seen under two names once, the other a symlink). */
int closure_install(struct builder *b, const struct closure *c)
{
	int r = 0;

	for (size_t i = 0; i < c->dests.n && r == 0; i++) {
		if (c->link_to.names[i][0])
			r = cpio_add_symlink(&b->cpio, c->dests.names[i], c->link_to.names[i]);
		else
			r = cpio_add_file(&b->cpio, c->dests.names[i], 0755, c->sources.names[i]);
		if (r == 0)
			r = name_list_add(&b->tool_files, c->dests.names[i]);
	}
	return r;
}

int initramfs_add_program(struct builder *b, const char *in_root, const char *dest,
			  const char *option, const char *package, size_t *files, uint64_t *bytes)
{
	struct closure c = { 0 };
	char src[PATH_MAX], why[PATH_MAX + 128] = "";
	size_t before = b->tool_files.n;
	int r = initramfs_resolve_in_root(b, in_root, src, sizeof(src));

	if (r < 0) {
		log_err("%s: no /%s in %s (Debian package %s)", option, in_root, initramfs_tools_root(b),
			package);
		goto out;
	}
	r = closure_add(b, &c, dest, src, why, sizeof(why));
	if (r == 0)
		r = closure_deps(b, &c, src, 0, why, sizeof(why));
	if (r == 0)
		r = closure_install(b, &c);
	if (r < 0 && why[0])
		log_err("%s: %s", option, why);
	*files = b->tool_files.n - before;
	*bytes = c.bytes;
out:
	closure_free(&c);
	return r;
}
