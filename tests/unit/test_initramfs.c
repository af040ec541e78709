/* `earlymount initramfs` end to end on a tiny module directory made by depmod: exit codes,
 * the archive's contents, the modules stored compressed, reproducibility. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cmocka.h>

#include "commands.h"
#include "cpio.h"
#include "dps.h"
#include "luks_helper.h"
#include "util.h"

#define KVER "9.9.9-test"

static char root[64];
static char moddir[256];
static char out_path[256];
static char out_path2[256];
static char extra_file[256];
static char text_file[256];
static char static_elf[256];
static char dynamic_elf[256];
static char module_path[512];
static bool have_depmod;
static bool have_module;

#define MODULE_DIR "lib/modules/" KVER "/kernel/fs/fakemod/"
static const unsigned char zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };
static const unsigned char xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

static int run(const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)"initramfs";
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *)) {
		assert_true(argc < 31);
		argv[argc++] = (char *)a;
	}
	va_end(ap);
	argv[argc] = NULL;
	return cmd_initramfs(argc, argv);
}

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
}

static char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* The smallest ELF header earlymount's checks accept as a static executable of this machine,
 * or, with a PT_INTERP program header, as a dynamically linked one. */
static void write_elf(const char *path, bool dynamic)
{
	unsigned char elf[64 + 56] = { 0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LSB */, 1 };
	uint16_t machine = arch_native() == ARCH_X86_64 ? 62 : 183;

	elf[16] = 2; /* ET_EXEC */
	elf[18] = (unsigned char)machine;
	elf[19] = (unsigned char)(machine >> 8);
	elf[20] = 1;
	if (dynamic) {
		elf[32] = 64; /* e_phoff */
		elf[54] = 56; /* e_phentsize */
		elf[56] = 1;  /* e_phnum */
		elf[64] = 3;  /* PT_INTERP */
	}
	write_file(path, elf, dynamic ? sizeof(elf) : 64);
}

/* A module directory with one module (when there is a compiler) and one built-in driver,
 * indexed by the real depmod. */
static int setup(void **state)
{
	static const char modinfo[] = "fakefs.alias=fs-fakefs\0fakefs.description=test\0";
	static const char module_source[] =
		"const char modinfo[] __attribute__((section(\".modinfo\"), used)) =\n"
		"\t\"alias=fs-fakemod\\0license=GPL\\0depends=\\0name=fakemod\\0\";\n"
		"int __this_module;\n";
	static const char likely_source[] =
		"const char modinfo[] __attribute__((section(\".modinfo\"), used)) =\n"
		"\t\"alias=fs-ext4\\0license=GPL\\0depends=\\0name=ext4\\0\";\n"
		"int __this_module;\n";
	char path[512], cmd[2048];
	const char *depmod = access("/usr/sbin/depmod", X_OK) == 0 ? "/usr/sbin/depmod" : "/sbin/depmod";

	snprintf(root, sizeof(root), "/tmp/test_initramfs.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(moddir, sizeof(moddir), "%s/lib/modules/" KVER, root);
	snprintf(path, sizeof(path), "mkdir -p %s", moddir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/modules.builtin", moddir);
	write_file(path, "kernel/fs/fakefs/fakefs.ko\n", 27);
	snprintf(path, sizeof(path), "%s/modules.builtin.modinfo", moddir);
	write_file(path, modinfo, sizeof(modinfo) - 1);
	snprintf(path, sizeof(path), "%s/modules.order", moddir);
	write_file(path, "", 0);
	snprintf(extra_file, sizeof(extra_file), "%s/extra.conf", root);
	write_file(extra_file, "key=value\n", 10);
	chmod(extra_file, 0640);
	snprintf(text_file, sizeof(text_file), "%s/not-elf", root);
	write_file(text_file, "#!/bin/sh\necho\n", 15);
	snprintf(static_elf, sizeof(static_elf), "%s/static-init", root);
	write_elf(static_elf, false);
	snprintf(dynamic_elf, sizeof(dynamic_elf), "%s/dynamic-init", root);
	write_elf(dynamic_elf, true);
	snprintf(out_path, sizeof(out_path), "%s/out.img", root);
	snprintf(out_path2, sizeof(out_path2), "%s/out2.img", root);
	have_depmod = access(depmod, X_OK) == 0;
	/* a real module, as depmod and libkmod see one: an ELF object of this machine with a
	 * .modinfo section; made by the host's compiler */
	snprintf(path, sizeof(path), "%s/fakemod.c", root);
	write_file(path, module_source, sizeof(module_source) - 1);
	snprintf(module_path, sizeof(module_path), "%s/kernel/fs/fakemod/fakemod.ko", moddir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/kernel/fs/fakemod && cc -c -o %s %s/fakemod.c 2>/dev/null",
		 moddir, module_path, root);
	have_module = system(cmd) == 0;
	/* one named as a module most boots insert, which is stored uncompressed */
	snprintf(path, sizeof(path), "%s/ext4.c", root);
	write_file(path, likely_source, sizeof(likely_source) - 1);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/kernel/fs/ext4 && cc -c -o %s/kernel/fs/ext4/ext4.ko %s/ext4.c 2>/dev/null",
		 moddir, moddir, root);
	have_module = have_module && system(cmd) == 0;
	if (have_depmod) {
		snprintf(cmd, sizeof(cmd), "%s -b %s " KVER " 2>/dev/null", depmod, root);
		assert_int_equal(system(cmd), 0);
	}
	return 0;
}

/* The directories a file is to be written in. */
static void make_dirs(const char *file)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", file);
	assert_int_equal(system(cmd), 0);
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

static unsigned hex_field(const char *h, int index)
{
	char field[9];

	memcpy(field, h + 6 + 8 * index, 8);
	field[8] = '\0';
	return (unsigned)strtoul(field, NULL, 16);
}

/* Finds name in a newc archive; returns its header, or NULL. */
static const char *find_entry(const char *buf, size_t size, const char *name)
{
	size_t off = 0;

	while (off + CPIO_HEADER_SIZE <= size && memcmp(buf + off, CPIO_MAGIC, 6) == 0) {
		unsigned namesize = hex_field(buf + off, 11);
		unsigned filesize = hex_field(buf + off, 6);
		const char *entry = buf + off;

		if (strcmp(entry + CPIO_HEADER_SIZE, name) == 0)
			return entry;
		off = (off + CPIO_HEADER_SIZE + namesize + 3) & ~(size_t)3;
		off = (off + filesize + 3) & ~(size_t)3;
	}
	return NULL;
}

static const char *entry_data(const char *h)
{
	size_t name_end = CPIO_HEADER_SIZE + hex_field(h, 11);

	return h + ((name_end + 3) & ~(size_t)3);
}

static bool entry_has_text(const char *buf, size_t size, const char *name, const char *text)
{
	const char *h = find_entry(buf, size, name);
	char *copy;
	bool found;

	assert_non_null(h);
	copy = strndup(entry_data(h), hex_field(h, 6));
	found = strstr(copy, text) != NULL;
	free(copy);
	return found;
}

static void test_usage_errors(void **state)
{
	assert_int_equal(run(NULL), EXIT_USAGE);
	assert_int_equal(run("--help", NULL), 0);
	assert_int_equal(run("--moddir", moddir, NULL), EXIT_USAGE);
	assert_int_equal(run("-o", out_path, NULL), EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress", "lz4", NULL), EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress-modules", "lz4", NULL),
			 EXIT_USAGE);
	/* libkmod is built without zlib */
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress-modules", "gzip", NULL),
			 EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--arch", "vax", NULL), EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--add", ":/x", NULL), EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--add", "/etc/hostname:", NULL),
			 EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "stray", NULL), EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--bogus", NULL), EXIT_USAGE);
	/* --omit takes only a module of the default set */
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--omit", "bogus", NULL), EXIT_USAGE);
	setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, NULL), EXIT_USAGE);
	unsetenv("SOURCE_DATE_EPOCH");
	assert_int_equal(access(out_path, F_OK), -1);
}

static void test_missing_moddir(void **state)
{
	char parent[300];

	assert_int_equal(run("--moddir", "/nonexistent/lib/modules/1", "-o", out_path, NULL), EXIT_SYSTEM);
	/* a directory without modules.dep is not a kernel's module directory */
	snprintf(parent, sizeof(parent), "%s/lib", root);
	assert_int_equal(run("--moddir", parent, "-o", out_path, "--compress", "none", "--init",
			     static_elf, NULL),
			 EXIT_SYSTEM);
	assert_int_equal(access(out_path, F_OK), -1);
}

static void test_builds_image(void **state)
{
	char add[300];
	const char *h;
	size_t size;
	char *buf;

	if (!have_depmod)
		skip();
	snprintf(add, sizeof(add), "%s:/etc/extra.conf", extra_file);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress", "none", "--init",
			     static_elf, "--module", "fakefs", "--add", add, NULL),
			 0);
	buf = read_file(out_path, &size);
	assert_true(size % 4 == 0);

	h = find_entry(buf, size, "init");
	assert_non_null(h);
	assert_int_equal(hex_field(h, 1), S_IFREG | 0755);
	assert_int_equal(hex_field(h, 6), 64);
	h = find_entry(buf, size, "dev/console");
	assert_non_null(h);
	assert_int_equal(hex_field(h, 1), S_IFCHR | 0600);
	assert_int_equal(hex_field(h, 9), 5);
	assert_int_equal(hex_field(h, 10), 1);
	h = find_entry(buf, size, "tmp");
	assert_non_null(h);
	assert_int_equal(hex_field(h, 1), S_IFDIR | 01777);
	for (const char *const *d = (const char *const[]){ "dev", "proc", "sys", "run", "sysroot", "etc",
							 "lib", "lib/modules", NULL };
	     *d; d++) {
		h = find_entry(buf, size, *d);
		assert_non_null(h);
		assert_int_equal(hex_field(h, 1), S_IFDIR | 0755);
	}
	h = find_entry(buf, size, "etc/extra.conf");
	assert_non_null(h);
	assert_int_equal(hex_field(h, 1), S_IFREG | 0640);
	assert_int_equal(hex_field(h, 6), 10);
	/* the index was made again by depmod, built-in list included */
	assert_non_null(find_entry(buf, size, "lib/modules/" KVER "/modules.dep.bin"));
	assert_non_null(find_entry(buf, size, "lib/modules/" KVER "/modules.builtin.bin"));
	assert_non_null(find_entry(buf, size, "lib/modules/" KVER "/modules.alias.bin"));
	assert_non_null(find_entry(buf, size, CPIO_TRAILER));
	assert_int_equal(hex_field(find_entry(buf, size, "init"), 5), 0); /* mtime */
	free(buf);
}

static void test_reproducible(void **state)
{
	/* the module, when there is one, goes through a compressor too */
	static const struct {
		const char *method;
		const char *module_method;
		const unsigned char *magic;
		size_t magic_size;
	} methods[] = {
		{ "gzip", "xz", (const unsigned char *)"\x1f\x8b", 2 },
		{ "zstd", "zstd", zstd_magic, sizeof(zstd_magic) },
		{ "xz", "xz", xz_magic, sizeof(xz_magic) },
	};
	const char *module = have_module ? "fakemod" : "fakefs";
	size_t size1, size2;
	char *a, *b;

	if (!have_depmod)
		skip();
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++) {
		setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
		assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress", methods[i].method,
				     "--compress-modules", methods[i].module_method, "--module", module,
				     "--init", static_elf, NULL),
				 0);
		assert_int_equal(run("--moddir", moddir, "-o", out_path2, "--compress", methods[i].method,
				     "--compress-modules", methods[i].module_method, "--module", module,
				     "--init", static_elf, NULL),
				 0);
		unsetenv("SOURCE_DATE_EPOCH");
		a = read_file(out_path, &size1);
		b = read_file(out_path2, &size2);
		assert_int_equal(size1, size2);
		assert_memory_equal(a, b, size1);
		assert_memory_equal(a, methods[i].magic, methods[i].magic_size);
		free(a);
		free(b);
	}

	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress", "none", "--init", static_elf, NULL), 0);
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	assert_int_equal(run("--moddir", moddir, "-o", out_path2, "--compress", "none", "--init", static_elf, NULL), 0);
	unsetenv("SOURCE_DATE_EPOCH");
	a = read_file(out_path2, &size2);
	assert_int_equal(hex_field(find_entry(a, size2, "init"), 5), 1700000000);
	free(a);
}

/* By default the archive is not compressed and the module inside is a .ko.zst, which the
 * regenerated index names. */
static void test_default_compression(void **state)
{
	size_t size, ko_size, back_size;
	char *buf, *ko, *back;
	const char *h;

	if (!have_depmod || !have_module)
		skip();
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--module",
			     "fakemod", NULL),
			 0);
	buf = read_file(out_path, &size);
	assert_memory_equal(buf, CPIO_MAGIC, 6);
	assert_null(find_entry(buf, size, MODULE_DIR "fakemod.ko"));
	h = find_entry(buf, size, MODULE_DIR "fakemod.ko.zst");
	assert_non_null(h);
	assert_int_equal(hex_field(h, 1), S_IFREG | 0644);
	assert_memory_equal(entry_data(h), zstd_magic, sizeof(zstd_magic));
	/* what libkmod reads at boot is the module, byte for byte */
	ko = read_file(module_path, &ko_size);
	back = malloc(ko_size + 1);
	back_size = ZSTD_decompress(back, ko_size + 1, entry_data(h), hex_field(h, 6));
	assert_int_equal(back_size, ko_size);
	assert_memory_equal(back, ko, ko_size);
	assert_true(entry_has_text(buf, size, "lib/modules/" KVER "/modules.dep",
				   "kernel/fs/fakemod/fakemod.ko.zst:"));
	free(back);
	free(ko);
	free(buf);
}

/* A module most boots insert (initramfs_plain.c) stays a .ko beside the compressed ones: the
 * kernel copies it with the archive, and no insert decompresses it. */
static void test_likely_module_plain(void **state)
{
	size_t size;
	char *buf;
	const char *h;

	if (!have_depmod || !have_module)
		skip();
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--module",
			     "fakemod", "--module", "ext4", NULL),
			 0);
	buf = read_file(out_path, &size);
	h = find_entry(buf, size, "lib/modules/" KVER "/kernel/fs/ext4/ext4.ko");
	assert_non_null(h);
	assert_memory_equal(entry_data(h), "\177ELF", 4);
	assert_null(find_entry(buf, size, "lib/modules/" KVER "/kernel/fs/ext4/ext4.ko.zst"));
	assert_non_null(find_entry(buf, size, MODULE_DIR "fakemod.ko.zst"));
	assert_true(entry_has_text(buf, size, "lib/modules/" KVER "/modules.dep", "kernel/fs/ext4/ext4.ko:"));
	free(buf);
}

static void test_module_compression(void **state)
{
	size_t size, ko_size;
	char *buf, *ko;
	const char *h;

	if (!have_depmod || !have_module)
		skip();
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--module",
			     "fakemod", "--compress-modules", "xz", NULL),
			 0);
	buf = read_file(out_path, &size);
	h = find_entry(buf, size, MODULE_DIR "fakemod.ko.xz");
	assert_non_null(h);
	assert_memory_equal(entry_data(h), xz_magic, sizeof(xz_magic));
	assert_true(entry_has_text(buf, size, "lib/modules/" KVER "/modules.dep",
				   "kernel/fs/fakemod/fakemod.ko.xz:"));
	free(buf);

	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--module",
			     "fakemod", "--compress-modules", "none", NULL),
			 0);
	buf = read_file(out_path, &size);
	ko = read_file(module_path, &ko_size);
	h = find_entry(buf, size, MODULE_DIR "fakemod.ko");
	assert_non_null(h);
	assert_int_equal(hex_field(h, 6), ko_size);
	assert_memory_equal(entry_data(h), ko, ko_size);
	assert_true(entry_has_text(buf, size, "lib/modules/" KVER "/modules.dep",
				   "kernel/fs/fakemod/fakemod.ko:"));
	free(ko);
	free(buf);
}

/* A compressor that is not installed is named before any work, with the way around it. */
static void test_missing_compressor(void **state)
{
	char *saved = strdup(getenv("PATH"));
	char empty[300];

	if (!have_depmod)
		skip();
	snprintf(empty, sizeof(empty), "%s/empty-path", root);
	assert_int_equal(mkdir(empty, 0755), 0);
	/* depmod is still found: earlymount looks in /usr/sbin and /sbin too */
	setenv("PATH", empty, 1);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, NULL), EXIT_USAGE);
	assert_int_equal(access(out_path, F_OK), -1);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf,
			     "--compress-modules", "none", "--compress", "gzip", NULL),
			 EXIT_USAGE);
	assert_int_equal(access(out_path, F_OK), -1);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf,
			     "--compress-modules", "none", NULL),
			 0);
	setenv("PATH", saved, 1);
	rmdir(empty);
	free(saved);
}

static void test_refusals(void **state)
{
	const char *other = arch_native() == ARCH_X86_64 ? "arm64" : "x86-64";
	char over_init[300];

	if (!have_depmod)
		skip();
	/* an explicit module the kernel does not have is an error; a default one is a note */
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--module",
			     "no_such_module", NULL),
			 EXIT_USAGE);
	/* /init must run on the machine the image is for, without a libc */
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--arch", other,
			     NULL),
			 EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", dynamic_elf, NULL),
			 EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", text_file, NULL), EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", "/nonexistent", NULL),
			 EXIT_SYSTEM);
	/* --add over a file the image already has */
	snprintf(over_init, sizeof(over_init), "%s:/init", text_file);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress", "none", "--init",
			     static_elf, "--add", over_init, NULL),
			 EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--add",
			     "/nonexistent:/x", NULL),
			 EXIT_SYSTEM);
	assert_int_equal(access(out_path, F_OK), -1);
}

/* `earlymount initramfs --luks` with INIT as /init, into out_path. */
static int run_luks(const char *init)
{
	return run("--moddir", moddir, "-o", out_path, "--init", init, "--luks", NULL);
}

static bool image_has(const char *image, const char *entry)
{
	size_t size;
	char *buf = read_file(image, &size);
	bool found = find_entry(buf, size, entry) != NULL;

	free(buf);
	return found;
}

/* --luks puts the helper beside /init (or --luks-helper) into the image, checked as /init is;
 * the LUKS modules this kernel lacks (all of them here) are no error. */
static void test_luks_helper(void **state)
{
	const char *entry = LUKS_HELPER_PATH + 1;
	char beside[300];
	const char *h;
	size_t size;
	char *buf;

	if (!have_depmod)
		skip();
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--luks-helper",
			     static_elf, NULL),
			 0);
	buf = read_file(out_path, &size);
	h = find_entry(buf, size, entry);
	assert_non_null(h);
	assert_int_equal(hex_field(h, 1), S_IFREG | 0755);
	assert_int_equal(hex_field(h, 6), 64);
	free(buf);
	/* without --luks, no helper */
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, NULL), 0);
	buf = read_file(out_path, &size);
	assert_null(find_entry(buf, size, entry));
	free(buf);
	/* --luks alone: earlymount-luks beside the /init binary */
	snprintf(beside, sizeof(beside), "%s/earlymount-luks", root);
	unlink(beside);
	assert_int_equal(run_luks(static_elf), EXIT_SYSTEM);
	write_elf(beside, false);
	assert_int_equal(run_luks(static_elf), 0);
	assert_true(image_has(out_path, entry));
	unlink(beside);
	/* the helper runs in the image as /init does: static, of the image's machine */
	assert_int_equal(run("--moddir", moddir, "-o", out_path2, "--init", static_elf, "--luks-helper",
			     dynamic_elf, NULL),
			 EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path2, "--init", static_elf, "--luks-helper",
			     text_file, NULL),
			 EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path2, "--init", static_elf, "--luks-helper",
			     "/nonexistent", NULL),
			 EXIT_SYSTEM);
	assert_int_equal(access(out_path2, F_OK), -1);
}

/* Installed: PREFIX/bin/earlymount takes PREFIX/lib/earlymount/earlymount-luks when it has
 * none beside it, and the one beside it first; only a directory named bin is PREFIX/bin. */
static void test_luks_helper_installed(void **state)
{
	const char *entry = LUKS_HELPER_PATH + 1;
	char bin_init[300], beside[300], installed[300], lib_init[300], wrong[300];

	if (!have_depmod)
		skip();
	snprintf(bin_init, sizeof(bin_init), "%s/prefix/bin/earlymount", root);
	snprintf(beside, sizeof(beside), "%s/prefix/bin/earlymount-luks", root);
	snprintf(installed, sizeof(installed), "%s/prefix/lib/earlymount/earlymount-luks", root);
	make_dirs(bin_init);
	make_dirs(installed);
	write_elf(bin_init, false);
	assert_int_equal(run_luks(bin_init), EXIT_SYSTEM);
	write_elf(installed, false);
	assert_int_equal(run_luks(bin_init), 0);
	assert_true(image_has(out_path, entry));
	write_elf(beside, true); /* taken first, and refused */
	assert_int_equal(run_luks(bin_init), EXIT_USAGE);
	unlink(beside);
	unlink(installed);
	/* PREFIX/lib/earlymount/init: beside it only, not PREFIX/lib/lib/earlymount/ */
	snprintf(lib_init, sizeof(lib_init), "%s/prefix/lib/earlymount/init", root);
	snprintf(wrong, sizeof(wrong), "%s/prefix/lib/lib/earlymount/earlymount-luks", root);
	make_dirs(wrong);
	write_elf(lib_init, false);
	write_elf(wrong, false);
	assert_int_equal(run_luks(lib_init), EXIT_SYSTEM);
}

/* The checkers: the host's by default (when it has e2fsck) with their libraries, none with
 * --no-fsck; from --fsck-root a static one whole, a dynamic one whose interpreter is missing
 * not at all (it could not start at boot). */
static void test_checkers(void **state)
{
	const char *triplet = arch_native() == ARCH_X86_64 ? "x86_64-linux-gnu" : "aarch64-linux-gnu";
	char fsck_root[128], path[300], lib[128], lib2[128];
	const char *h;
	size_t size;
	char *buf;

	if (!have_depmod)
		skip();
	if (access("/usr/sbin/e2fsck", X_OK) == 0 || access("/sbin/e2fsck", X_OK) == 0) {
		assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, NULL), 0);
		buf = read_file(out_path, &size);
		h = find_entry(buf, size, "usr/sbin/e2fsck");
		assert_non_null(h);
		assert_int_equal(hex_field(h, 1), S_IFREG | 0755);
		h = find_entry(buf, size, "usr/sbin/fsck.ext4");
		assert_non_null(h);
		assert_int_equal(hex_field(h, 1) & S_IFMT, S_IFLNK);
		snprintf(lib, sizeof(lib), "lib/%s/libext2fs.so.2", triplet);
		snprintf(lib2, sizeof(lib2), "usr/lib/%s/libext2fs.so.2", triplet);
		assert_true(find_entry(buf, size, lib) || find_entry(buf, size, lib2));
		snprintf(lib, sizeof(lib), "lib/%s/libc.so.6", triplet);
		snprintf(lib2, sizeof(lib2), "usr/lib/%s/libc.so.6", triplet);
		assert_true(find_entry(buf, size, lib) || find_entry(buf, size, lib2));
		free(buf);
	}
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--no-fsck",
			     NULL), 0);
	assert_false(image_has(out_path, "usr/sbin/e2fsck"));
	assert_false(image_has(out_path, "usr/sbin/fsck.fat"));

	snprintf(fsck_root, sizeof(fsck_root), "%s/fsck-root", root);
	snprintf(path, sizeof(path), "mkdir -p %s/sbin", fsck_root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/sbin/fsck.fat", fsck_root);
	write_elf(path, false);
	snprintf(path, sizeof(path), "%s/sbin/e2fsck", fsck_root);
	write_elf(path, true);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--init", static_elf, "--fsck-root",
			     fsck_root, NULL), 0);
	buf = read_file(out_path, &size);
	h = find_entry(buf, size, "usr/sbin/fsck.fat");
	assert_non_null(h);
	assert_int_equal(hex_field(h, 6), 64);
	assert_non_null(find_entry(buf, size, "usr/sbin/fsck.vfat"));
	assert_null(find_entry(buf, size, "usr/sbin/e2fsck"));
	assert_null(find_entry(buf, size, "usr/sbin/fsck.ext4"));
	free(buf);
}

static void test_unwritable_output(void **state)
{
	if (!have_depmod)
		skip();
	assert_int_equal(run("--moddir", moddir, "-o", "/nonexistent/dir/out.img", "--compress", "none",
			     "--init", static_elf, NULL),
			 EXIT_SYSTEM);
}

static int remove_output(void **state)
{
	unlink(out_path);
	unlink(out_path2);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_usage_errors, remove_output),
		cmocka_unit_test_setup(test_missing_moddir, remove_output),
		cmocka_unit_test_setup(test_builds_image, remove_output),
		cmocka_unit_test_setup(test_reproducible, remove_output),
		cmocka_unit_test_setup(test_default_compression, remove_output),
		cmocka_unit_test_setup(test_likely_module_plain, remove_output),
		cmocka_unit_test_setup(test_module_compression, remove_output),
		cmocka_unit_test_setup(test_missing_compressor, remove_output),
		cmocka_unit_test_setup(test_refusals, remove_output),
		cmocka_unit_test_setup(test_luks_helper, remove_output),
		cmocka_unit_test_setup(test_luks_helper_installed, remove_output),
		cmocka_unit_test_setup(test_checkers, remove_output),
		cmocka_unit_test_setup(test_unwritable_output, remove_output),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
