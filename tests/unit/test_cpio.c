/* The newc writer: exact header bytes, alignment, sorting, parents, trailer, and a round trip
 * through the system's cpio. */
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

#include "cpio.h"

struct parsed {
	char name[256];
	unsigned ino, mode, nlink, mtime, size, rdev_major, rdev_minor;
	size_t data_offset;
};

/* Writes a to memory; returns the buffer (free it) and its size. */
static char *write_archive(struct cpio_archive *a, uint32_t mtime, size_t *size, int *r)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, size);
	uint64_t written = 0;

	assert_non_null(f);
	*r = cpio_write(a, f, mtime, &written);
	fclose(f);
	if (*r == 0)
		assert_int_equal(written, *size);
	return buf;
}

static unsigned hex_field(const char *h, int index)
{
	char field[9];

	memcpy(field, h + 6 + 8 * index, 8);
	field[8] = '\0';
	return (unsigned)strtoul(field, NULL, 16);
}

/* Walks the archive the way the kernel does; returns the number of entries before the trailer. */
static size_t parse_archive(const char *buf, size_t size, struct parsed *out, size_t max)
{
	size_t off = 0, n = 0;

	for (;;) {
		struct parsed p = { 0 };
		unsigned namesize;

		assert_true(off % 4 == 0);
		assert_true(off + CPIO_HEADER_SIZE <= size);
		assert_memory_equal(buf + off, CPIO_MAGIC, 6);
		p.ino = hex_field(buf + off, 0);
		p.mode = hex_field(buf + off, 1);
		assert_int_equal(hex_field(buf + off, 2), 0); /* uid */
		assert_int_equal(hex_field(buf + off, 3), 0); /* gid */
		p.nlink = hex_field(buf + off, 4);
		p.mtime = hex_field(buf + off, 5);
		p.size = hex_field(buf + off, 6);
		p.rdev_major = hex_field(buf + off, 9);
		p.rdev_minor = hex_field(buf + off, 10);
		namesize = hex_field(buf + off, 11);
		assert_true(namesize < sizeof(p.name));
		memcpy(p.name, buf + off + CPIO_HEADER_SIZE, namesize);
		assert_int_equal(p.name[namesize - 1], '\0');
		off += CPIO_HEADER_SIZE + namesize;
		off = (off + 3) & ~(size_t)3;
		p.data_offset = off;
		off += p.size;
		off = (off + 3) & ~(size_t)3;
		if (strcmp(p.name, CPIO_TRAILER) == 0) {
			assert_int_equal(off, size);
			return n;
		}
		assert_true(n < max);
		out[n++] = p;
	}
}

static void test_normalize(void **state)
{
	char out[64];

	assert_int_equal(cpio_normalize_path("/a//b/./c/", out, sizeof(out)), 0);
	assert_string_equal(out, "a/b/c");
	assert_int_equal(cpio_normalize_path("init", out, sizeof(out)), 0);
	assert_string_equal(out, "init");
	assert_int_equal(cpio_normalize_path("/", out, sizeof(out)), -EINVAL);
	assert_int_equal(cpio_normalize_path("", out, sizeof(out)), -EINVAL);
	assert_int_equal(cpio_normalize_path("/a/../etc", out, sizeof(out)), -EINVAL);
	assert_int_equal(cpio_normalize_path("/a/..b", out, sizeof(out)), 0);
	assert_string_equal(out, "a/..b");
	assert_int_equal(cpio_normalize_path("/abcdef", out, 4), -ENAMETOOLONG);
}

static void test_exact_bytes(void **state)
{
	static const char expected[] =
		"070701" "00000001" "000081ED" "00000000" "00000000" "00000001" "00000000"
		"00000002" "00000000" "00000000" "00000000" "00000000" "00000005" "00000000"
		"init\0" "\0" /* 110 + 5 = 115, padded to 116 */
		"hi" "\0\0"   /* data padded to 120 */
		"070701" "00000000" "00000000" "00000000" "00000000" "00000001" "00000000"
		"00000000" "00000000" "00000000" "00000000" "00000000" "0000000B" "00000000"
		"TRAILER!!!\0" "\0\0\0"; /* 120 + 110 + 11 = 241, padded to 244 */
	struct cpio_archive a;
	size_t size;
	char *buf;
	int r;

	cpio_init(&a);
	assert_int_equal(cpio_add_data(&a, "/init", 0755, "hi", 2), 0);
	buf = write_archive(&a, 0, &size, &r);
	assert_int_equal(r, 0);
	assert_int_equal(size, sizeof(expected) - 1);
	assert_int_equal(size, 244);
	assert_memory_equal(buf, expected, size);
	free(buf);
	cpio_free(&a);
}

static void test_sorted_with_parents(void **state)
{
	struct cpio_archive a;
	struct parsed e[32];
	size_t size, n;
	char *buf;
	int r;

	cpio_init(&a);
	assert_int_equal(cpio_add_data(&a, "/lib/modules/6.1/modules.dep", 0644, "x", 1), 0);
	assert_int_equal(cpio_add_dir(&a, "/tmp", 01777), 0);
	assert_int_equal(cpio_add_char_dev(&a, "/dev/console", 0600, 5, 1), 0);
	assert_int_equal(cpio_add_symlink(&a, "/lib-x", "lib"), 0);
	assert_int_equal(cpio_add_dir(&a, "/dev", 0700), 0);
	assert_int_equal(cpio_add_dir(&a, "/dev", 0755), 0); /* again: not an error, first wins */
	buf = write_archive(&a, 1234, &size, &r);
	assert_int_equal(r, 0);
	n = parse_archive(buf, size, e, 32);
	assert_int_equal(n, 8);
	assert_string_equal(e[0].name, "dev");
	assert_int_equal(e[0].mode, S_IFDIR | 0700);
	assert_int_equal(e[0].nlink, 2);
	assert_string_equal(e[1].name, "dev/console");
	assert_int_equal(e[1].mode, S_IFCHR | 0600);
	assert_int_equal(e[1].rdev_major, 5);
	assert_int_equal(e[1].rdev_minor, 1);
	assert_int_equal(e[1].size, 0);
	assert_string_equal(e[2].name, "lib");
	assert_int_equal(e[2].mode, S_IFDIR | 0755);
	assert_string_equal(e[3].name, "lib-x");
	assert_int_equal(e[3].mode, S_IFLNK | 0777);
	assert_int_equal(e[3].size, 3);
	assert_memory_equal(buf + e[3].data_offset, "lib", 3);
	assert_string_equal(e[4].name, "lib/modules");
	assert_string_equal(e[5].name, "lib/modules/6.1");
	assert_string_equal(e[6].name, "lib/modules/6.1/modules.dep");
	assert_int_equal(e[6].mode, S_IFREG | 0644);
	assert_int_equal(e[6].nlink, 1);
	assert_string_equal(e[7].name, "tmp");
	assert_int_equal(e[7].mode, S_IFDIR | 01777);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(e[i].ino, i + 1); /* sequential: no two entries look like links */
		assert_int_equal(e[i].mtime, 1234);
	}
	free(buf);
	cpio_free(&a);
}

static void test_duplicate_file(void **state)
{
	struct cpio_archive a;
	size_t size;
	char *buf;
	int r;

	cpio_init(&a);
	assert_int_equal(cpio_add_data(&a, "/etc/x", 0644, "1", 1), 0);
	assert_int_equal(cpio_add_dir(&a, "/etc/x", 0755), 0);
	buf = write_archive(&a, 0, &size, &r);
	assert_int_equal(r, -EEXIST);
	assert_string_equal(a.failed_path, "etc/x");
	free(buf);
	cpio_free(&a);
}

static void test_rejects_bad_paths(void **state)
{
	struct cpio_archive a;

	cpio_init(&a);
	assert_int_equal(cpio_add_dir(&a, "/", 0755), -EINVAL);
	assert_int_equal(cpio_add_data(&a, "../x", 0644, "", 0), -EINVAL);
	assert_int_equal(cpio_add_symlink(&a, "/x", ""), -EINVAL);
	assert_int_equal(a.n, 0);
	cpio_free(&a);
}

static void test_source_file(void **state)
{
	char path[] = "/tmp/test_cpio.XXXXXX";
	int fd = mkstemp(path);
	struct cpio_archive a;
	struct parsed e[4];
	size_t size;
	char *buf;
	int r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello", 5), 5);
	close(fd);
	cpio_init(&a);
	assert_int_equal(cpio_add_file(&a, "/bin/hello", 04755, path), 0);
	buf = write_archive(&a, 0, &size, &r);
	assert_int_equal(r, 0);
	assert_int_equal(parse_archive(buf, size, e, 4), 2);
	assert_string_equal(e[1].name, "bin/hello");
	assert_int_equal(e[1].mode, S_IFREG | 04755);
	assert_int_equal(e[1].size, 5);
	assert_memory_equal(buf + e[1].data_offset, "hello", 5);
	free(buf);
	cpio_free(&a);

	unlink(path);
	cpio_init(&a);
	assert_int_equal(cpio_add_file(&a, "/bin/hello", 0755, path), 0);
	buf = write_archive(&a, 0, &size, &r);
	assert_int_equal(r, -ENOENT);
	assert_string_equal(a.failed_path, "bin/hello");
	free(buf);
	cpio_free(&a);
}

static void test_empty_archive(void **state)
{
	struct cpio_archive a;
	size_t size;
	char *buf;
	int r;

	cpio_init(&a);
	buf = write_archive(&a, 0, &size, &r);
	assert_int_equal(r, 0);
	assert_int_equal(size, 124);
	assert_memory_equal(buf + CPIO_HEADER_SIZE, "TRAILER!!!", 11);
	free(buf);
	cpio_free(&a);
}

/* GNU cpio reads what the writer wrote, with the same names in the same order. */
static void test_round_trip_cpio(void **state)
{
	static const char *const expected[] = {
		"dev", "dev/console", "etc", "etc/motd", "init", "lib", "lib/modules", "run", "sbin", "sbin/init",
	};
	char path[] = "/tmp/test_cpio_rt.XXXXXX";
	char cmd[128], line[256];
	int fd = mkstemp(path);
	struct cpio_archive a;
	uint64_t written;
	FILE *f, *p;
	size_t n = 0;

	if (access("/usr/bin/cpio", X_OK) != 0 && access("/bin/cpio", X_OK) != 0) {
		unlink(path);
		skip();
	}
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	cpio_init(&a);
	assert_int_equal(cpio_add_data(&a, "/init", 0755, "#!/bin/sh\n", 10), 0);
	assert_int_equal(cpio_add_symlink(&a, "/sbin/init", "../init"), 0);
	assert_int_equal(cpio_add_data(&a, "/etc/motd", 0644, "hello\n", 6), 0);
	assert_int_equal(cpio_add_char_dev(&a, "/dev/console", 0600, 5, 1), 0);
	assert_int_equal(cpio_add_dir(&a, "/run", 0755), 0);
	assert_int_equal(cpio_add_dir(&a, "/lib/modules", 0755), 0);
	assert_int_equal(cpio_write(&a, f, 0, &written), 0);
	fclose(f);
	cpio_free(&a);

	snprintf(cmd, sizeof(cmd), "cpio -it --quiet < %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		assert_true(n < sizeof(expected) / sizeof(expected[0]));
		assert_string_equal(line, expected[n]);
		n++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(n, sizeof(expected) / sizeof(expected[0]));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_exact_bytes),
		cmocka_unit_test(test_sorted_with_parents),
		cmocka_unit_test(test_duplicate_file),
		cmocka_unit_test(test_rejects_bad_paths),
		cmocka_unit_test(test_source_file),
		cmocka_unit_test(test_empty_archive),
		cmocka_unit_test(test_round_trip_cpio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
