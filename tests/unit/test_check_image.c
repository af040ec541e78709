/* Reading an initramfs image back (earlymount check): newc archives one after another, an
 * uncompressed early one, zero padding, then one compressed with each method the builder
 * writes; what the image holds (its /init's version, programs, modules, built-in modules);
 * malformed images refused with their own errors. */
#include <errno.h>
#include <fcntl.h>
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

#include "check_image.h"
#include "compress.h"
#include "cpio.h"
#include "cpio_read.h"

static char dir[] = "/tmp/em-check-image-XXXXXX";

static int make_dir(void **state)
{
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char init_bytes[] = "\x7f" "ELF...padding...earlymount %s\0...earlymount 1.2.3\0tail";
static const char builtin_list[] = "kernel/fs/ext4/ext4.ko\nkernel/drivers/md/dm-mod.ko\n";

/* An archive with fn's entries, appended to out. */
static void write_archive(FILE *out, int which)
{
	struct cpio_archive a;

	cpio_init(&a);
	if (which == 0) {
		assert_int_equal(cpio_add_data(&a, "kernel/x86/microcode/GenuineIntel.bin", 0644, "u", 1), 0);
	} else {
		assert_int_equal(cpio_add_data(&a, "init", 0755, init_bytes, sizeof(init_bytes)), 0);
		assert_int_equal(cpio_add_data(&a, "usr/lib/earlymount/lvm", 0755, "lvm", 3), 0);
		assert_int_equal(cpio_add_data(&a, "usr/sbin/fsck.ext4", 0755, "e2", 2), 0);
		assert_int_equal(cpio_add_data(&a, "lib/modules/6.1.0-9/kernel/drivers/md/dm-crypt.ko.xz",
					       0644, "ko", 2), 0);
		assert_int_equal(cpio_add_data(&a, "lib/modules/6.1.0-9/kernel/fs/btrfs/btrfs.ko", 0644,
					       "ko", 2), 0);
		assert_int_equal(cpio_add_data(&a, "lib/modules/6.1.0-9/modules.builtin", 0644, builtin_list,
					       strlen(builtin_list)), 0);
		assert_int_equal(cpio_add_symlink(&a, "sbin", "usr/sbin"), 0);
	}
	assert_int_equal(cpio_write(&a, out, 0, NULL), 0);
	cpio_free(&a);
}

/* dir/NAME: an early archive, 512 zero bytes, then the main archive compressed with c. */
static void make_image(const char *name, enum compression c, char *path, size_t size)
{
	char main_path[256];
	FILE *out, *main_f;
	int fd;

	snprintf(path, size, "%s/%s", dir, name);
	snprintf(main_path, sizeof(main_path), "%s/%s.main", dir, name);
	out = fopen(path, "w");
	main_f = fopen(main_path, "w+");
	assert_non_null(out);
	assert_non_null(main_f);
	write_archive(out, 0);
	for (int i = 0; i < 512; i++)
		fputc(0, out);
	write_archive(main_f, 1);
	assert_int_equal(fflush(out), 0);
	assert_int_equal(fflush(main_f), 0);
	rewind(main_f);
	fd = fileno(out);
	assert_true(lseek(fd, 0, SEEK_END) > 0);
	assert_int_equal(compress_fd(c, fileno(main_f), fd), 0);
	fclose(main_f);
	fclose(out);
}

static void check_contents(const char *path)
{
	struct image_contents c;
	bool builtin;

	assert_int_equal(image_contents_read(path, &c), 0);
	assert_true(c.has_init);
	assert_true(c.init_is_earlymount);
	assert_string_equal(c.init_version, "1.2.3");
	assert_true(image_has_file(&c, "/usr/lib/earlymount/lvm"));
	assert_true(image_has_file(&c, "kernel/x86/microcode/GenuineIntel.bin"));
	assert_false(image_has_file(&c, "/usr/lib/earlymount/mdadm"));
	assert_true(image_has_program(&c, "fsck.ext4"));
	assert_false(image_has_program(&c, "fsck.vfat"));
	assert_true(image_has_module(&c, "dm-crypt", &builtin));
	assert_false(builtin);
	assert_true(image_has_module(&c, "dm_crypt", &builtin));
	assert_true(image_has_module(&c, "btrfs", &builtin));
	assert_true(image_has_module(&c, "dm_mod", &builtin));
	assert_true(builtin);
	assert_true(image_has_module(&c, "ext4", &builtin));
	assert_false(image_has_module(&c, "md_mod", &builtin));
	assert_int_equal(c.releases.n, 1);
	assert_string_equal(c.releases.names[0], "6.1.0-9");
	image_contents_free(&c);
}

static void test_methods(void **state)
{
	static const struct {
		const char *name;
		enum compression c;
	} methods[] = {
		{ "none", COMPRESS_NONE }, { "gzip", COMPRESS_GZIP }, { "zstd", COMPRESS_ZSTD },
		{ "xz", COMPRESS_XZ },
	};
	char path[256];

	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		make_image(methods[i].name, methods[i].c, path, sizeof(path));
		check_contents(path);
	}
}

static void test_detect(void **state)
{
	assert_int_equal(compress_detect("070701", 6), COMPRESS_NONE);
	assert_int_equal(compress_detect("\x1f\x8b\x08", 3), COMPRESS_GZIP);
	assert_int_equal(compress_detect("\x28\xb5\x2f\xfd", 4), COMPRESS_ZSTD);
	assert_int_equal(compress_detect("\xfd" "7zXZ\0", 6), COMPRESS_XZ);
	assert_int_equal(compress_detect("BZh9", 4), -EMEDIUMTYPE);
	assert_int_equal(compress_detect("\x1f", 1), -EMEDIUMTYPE);
}

static int count(const struct cpio_file *f, void *data)
{
	(*(unsigned *)data)++;
	return 0;
}

static void write_bytes(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	close(fd);
}

/* Cut short, a name without its NUL, a size past the end, garbage, a missing file. */
static void test_malformed(void **state)
{
	char path[256], bad[256], *buf;
	unsigned n = 0;
	struct stat st;
	FILE *f;

	make_image("plain", COMPRESS_NONE, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	f = fopen(path, "r");
	assert_int_equal(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	snprintf(bad, sizeof(bad), "%s/bad", dir);

	/* the early archive only, its last entry cut in the middle */
	write_bytes(bad, buf, 150);
	assert_int_equal(cpio_read_image(bad, count, &n), -EBADMSG);
	/* a file size larger than the image */
	memcpy(buf + 6 + 8 * 6, "7fffffff", 8);
	write_bytes(bad, buf, (size_t)st.st_size);
	assert_int_equal(cpio_read_image(bad, count, &n), -EBADMSG);
	/* a header field that is no hex */
	memcpy(buf + 6, "zzzzzzzz", 8);
	write_bytes(bad, buf, (size_t)st.st_size);
	assert_int_equal(cpio_read_image(bad, count, &n), -EBADMSG);
	/* neither an archive nor a compression known */
	write_bytes(bad, "BZh91AY&SY", 10);
	assert_int_equal(cpio_read_image(bad, count, &n), -EMEDIUMTYPE);
	/* a gzip header and then nothing: the decompressor fails */
	write_bytes(bad, "\x1f\x8b\x08\0\0\0\0\0", 8);
	assert_int_equal(cpio_read_image(bad, count, &n), -EIO);
	/* nothing at all: an image without archives holds nothing */
	write_bytes(bad, "", 0);
	n = 0;
	assert_int_equal(cpio_read_image(bad, count, &n), 0);
	assert_int_equal(n, 0);
	snprintf(bad, sizeof(bad), "%s/absent", dir);
	assert_int_equal(cpio_read_image(bad, count, &n), -ENOENT);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_methods),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
