/* `earlymount initramfs` end to end on a tiny module directory made by depmod: exit codes,
 * the archive's contents, reproducibility. */
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

#include <cmocka.h>

#include "commands.h"
#include "cpio.h"
#include "dps.h"

#define KVER "9.9.9-test"

static char root[64];
static char moddir[256];
static char out_path[256];
static char out_path2[256];
static char extra_file[256];
static char text_file[256];
static char static_elf[256];
static char dynamic_elf[256];
static bool have_depmod;

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

/* A module directory with no modules and one built-in driver, indexed by the real depmod. */
static int setup(void **state)
{
	static const char modinfo[] = "fakefs.alias=fs-fakefs\0fakefs.description=test\0";
	char path[512], cmd[1024];
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
	if (have_depmod) {
		snprintf(cmd, sizeof(cmd), "%s -b %s " KVER " 2>/dev/null", depmod, root);
		assert_int_equal(system(cmd), 0);
	}
	return 0;
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

static void test_usage_errors(void **state)
{
	assert_int_equal(run(NULL), EXIT_USAGE);
	assert_int_equal(run("--help", NULL), 0);
	assert_int_equal(run("--moddir", moddir, NULL), EXIT_USAGE);
	assert_int_equal(run("-o", out_path, NULL), EXIT_USAGE);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress", "lz4", NULL), EXIT_USAGE);
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
	size_t size1, size2;
	char *a, *b;

	if (!have_depmod)
		skip();
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress", "gzip", "--init", static_elf, NULL), 0);
	assert_int_equal(run("--moddir", moddir, "-o", out_path2, "--compress", "gzip", "--init", static_elf, NULL), 0);
	unsetenv("SOURCE_DATE_EPOCH");
	a = read_file(out_path, &size1);
	b = read_file(out_path2, &size2);
	assert_int_equal(size1, size2);
	assert_memory_equal(a, b, size1);
	assert_int_equal((unsigned char)a[0], 0x1f);
	assert_int_equal((unsigned char)a[1], 0x8b);
	free(a);
	free(b);

	assert_int_equal(run("--moddir", moddir, "-o", out_path, "--compress", "none", "--init", static_elf, NULL), 0);
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	assert_int_equal(run("--moddir", moddir, "-o", out_path2, "--compress", "none", "--init", static_elf, NULL), 0);
	unsetenv("SOURCE_DATE_EPOCH");
	a = read_file(out_path2, &size2);
	assert_int_equal(hex_field(find_entry(a, size2, "init"), 5), 1700000000);
	free(a);
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
		cmocka_unit_test_setup(test_refusals, remove_output),
		cmocka_unit_test_setup(test_unwritable_output, remove_output),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
