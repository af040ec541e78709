/* The kernel and the earlymount initramfs of a guest, for `earlymount qemu` and
 * `earlymount uki`: the kernel and its modules as given or found, and the initramfs as given
 * or built by `earlymount initramfs`, cached by its inputs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "commands.h"
#include "fileio.h"
#include "guest_kernel.h"
#include "initramfs.h"
#include "log.h"
#include "path.h"
#include "sha256.h"
#include "util.h"

/* The kernel's arch from its header: a bzImage ("HdrS" at 0x202), an arm64 Image ("ARM\x64"
 * at 0x38), or an ELF vmlinux; KVER from a bzImage's version string when asked. */
static enum arch kernel_arch(const char *path, char *kver, size_t kver_size)
{
	unsigned char h[0x240];
	enum arch arch = ARCH_INVALID;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, h, sizeof(h), 0) : -1;

	if (n == (ssize_t)sizeof(h) && memcmp(h + 0x202, "HdrS", 4) == 0) {
		unsigned off = (unsigned)h[0x20e] | (unsigned)h[0x20f] << 8;
		char text[128] = "";

		arch = ARCH_X86_64;
		if (off && pread(fd, text, sizeof(text) - 1, off + 0x200) > 0) {
			text[strcspn(text, " ")] = '\0';
			snprintf(kver, kver_size, "%s", text);
		}
	} else if (n == (ssize_t)sizeof(h) && memcmp(h + 0x38, "ARM\x64", 4) == 0) {
		arch = ARCH_AARCH64;
	} else if (n > 0 && elf_file_arch(path, &arch) < 0) {
		arch = ARCH_INVALID;
	}
	if (fd >= 0)
		close(fd);
	return arch;
}

/* --kernel, --moddir and --arch as given, or found. */
int guest_find_kernel(struct guest_inputs *a, char *kernel, char *moddir)
{
	char kver[NAME_MAX + 1] = "";
	struct utsname u;
	const char *base;

	if (!a->kernel) {
		uname(&u);
		snprintf(kver, sizeof(kver), "%s", u.release);
		snprintf(kernel, PATH_MAX, "/boot/vmlinuz-%s", u.release);
	} else {
		snprintf(kernel, PATH_MAX, "%s", a->kernel);
		base = strrchr(a->kernel, '/') ? strrchr(a->kernel, '/') + 1 : a->kernel;
		if (startswith(base, "vmlinuz-") || startswith(base, "vmlinux-"))
			snprintf(kver, sizeof(kver), "%s", base + 8);
	}
	if (access(kernel, R_OK) < 0) {
		log_err("unable to read the kernel %s: %s (give --kernel)", kernel, strerror(errno));
		return EXIT_SYSTEM;
	}
	if (a->arch == ARCH_INVALID)
		a->arch = kernel_arch(kernel, kver[0] ? NULL : kver, kver[0] ? 0 : sizeof(kver));
	if (a->arch == ARCH_INVALID) {
		log_err("unable to tell the architecture of %s: give --arch", kernel);
		return EXIT_USAGE;
	}
	if (a->moddir)
		snprintf(moddir, PATH_MAX, "%s", a->moddir);
	else if (kver[0])
		snprintf(moddir, PATH_MAX, "/lib/modules/%s", kver);
	if (!a->initrd && !moddir[0]) {
		log_err("unable to tell which modules go with %s: give --moddir", kernel);
		return EXIT_USAGE;
	}
	return 0;
}

/* The earlymount binary for the guest: --init, this one, or ../ARCH/earlymount beside it
 * (the build tree's layout). */
static int find_init(const struct guest_inputs *a, char *init)
{
	char self[PATH_MAX];
	enum arch arch = ARCH_INVALID;
	int r;
	char *slash;

	if (a->init) {
		snprintf(init, PATH_MAX, "%s", a->init);
		return 0;
	}
	r = path_self(self, sizeof(self));
	if (r < 0)
		return r;
	if (elf_file_arch(self, &arch) == 0 && arch == a->arch) {
		snprintf(init, PATH_MAX, "%s", self);
		return 0;
	}
	slash = strrchr(self, '/');
	*slash = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	if (snprintf(init, PATH_MAX, "%s/%s/earlymount", self,
		     a->arch == ARCH_AARCH64 ? "aarch64" : a->arch == ARCH_X86_64 ? "x86_64" : "?") >=
	    PATH_MAX)
		return -ENAMETOOLONG;
	return access(init, X_OK) == 0 ? 0 : -ENOENT;
}

static void hash_file(struct sha256_ctx *h, const char *path)
{
	struct stat st = { 0 };

	stat(path, &st);
	sha256_update(h, path, strlen(path) + 1);
	sha256_update(h, &st.st_size, sizeof(st.st_size));
	sha256_update(h, &st.st_mtim, sizeof(st.st_mtim));
}

/* The cached image for these inputs: the module set (modules.dep), the /init binary, the
 * builder (this binary) and the arch. */
static void cache_path(const struct guest_inputs *a, const char *moddir, const char *init, char *out)
{
	char dep[PATH_MAX + 16];
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx h;
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char hex[17];

	snprintf(dep, sizeof(dep), "%s/modules.dep", moddir);
	sha256_init(&h);
	hash_file(&h, dep);
	hash_file(&h, init);
	hash_file(&h, PATH_SELF);
	sha256_update(&h, &a->arch, sizeof(a->arch));
	sha256_final(&h, digest);
	for (size_t i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	if (xdg && xdg[0])
		snprintf(out, PATH_MAX, "%s/earlymount/initramfs-%s.img", xdg, hex);
	else if (home && home[0])
		snprintf(out, PATH_MAX, "%s/.cache/earlymount/initramfs-%s.img", home, hex);
	else
		snprintf(out, PATH_MAX, "/tmp/earlymount-cache/initramfs-%s.img", hex);
}

static int build_initramfs(const struct guest_inputs *a, const char *moddir, const char *init,
			   const char *out)
{
	char tmp[PATH_MAX + 8], dir[PATH_MAX];
	const char *argv[] = { PATH_SELF, "initramfs", "--moddir", moddir, "--init", init,
			       "--arch", arch_name(a->arch), "-o", tmp, NULL };
	int quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int status = 0;
	pid_t pid;
	int r;

	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	snprintf(dir, sizeof(dir), "%s", out);
	*strrchr(dir, '/') = '\0';
	if (make_directories(dir, 0755) < 0) {
		log_err("unable to make the cache directory %s: %s", dir, strerror(errno));
		return EXIT_SYSTEM;
	}
	if (a->verbose)
		fprintf(stderr, "+ earlymount initramfs --moddir %s --init %s --arch %s -o %s\n", moddir,
			init, arch_name(a->arch), tmp);
	r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = a->verbose ? -1 : quiet,
					     .err = -1, .exec_failed = 127 },
			&pid);
	if (quiet >= 0)
		close(quiet);
	if (r == 0)
		r = child_wait(pid, &status);
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		log_err("earlymount initramfs failed for %s (see above)", moddir);
		unlink(tmp);
		return EXIT_SYSTEM;
	}
	return rename(tmp, out) == 0 ? 0 : EXIT_SYSTEM;
}

/* --initrd, or the cached image, built when missing. */
int guest_find_initrd(const struct guest_inputs *a, const char *moddir, char *initrd)
{
	char init[PATH_MAX];

	if (a->initrd) {
		snprintf(initrd, PATH_MAX, "%s", a->initrd);
		return 0;
	}
	if (find_init(a, init) < 0) {
		log_err("no earlymount binary for %s guests: give --init", arch_name(a->arch));
		return EXIT_USAGE;
	}
	cache_path(a, moddir, init, initrd);
	if (access(initrd, R_OK) == 0) {
		if (a->verbose)
			fprintf(stderr, "earlymount: reusing %s\n", initrd);
		return 0;
	}
	return build_initramfs(a, moddir, init, initrd);
}

