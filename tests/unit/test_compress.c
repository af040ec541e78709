/* The compressors (the host's gzip, zstd and xz): each output decompresses to the input,
 * carries the header fields the kernel's decompressors need, and is the same on every run;
 * a missing or failing program is an error of its own. */
#include <errno.h>
#include <lzma.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cmocka.h>

#include "compress.h"

#define INPUT_SIZE (256 * 1024)

static unsigned char *make_input(void)
{
	unsigned char *in = malloc(INPUT_SIZE);
	uint32_t x = 12345;

	assert_non_null(in);
	/* half text-like, half noise: compressible, but not trivially */
	for (size_t i = 0; i < INPUT_SIZE; i++) {
		x = x * 1103515245 + 12345;
		in[i] = i % 2 ? (unsigned char)('a' + i / 7 % 26) : (unsigned char)(x >> 24);
	}
	return in;
}

/* A regular file in memory holding data, its offset at skip. */
static int file_with(const void *data, size_t size, size_t skip)
{
	int fd = memfd_create("input", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	assert_int_equal(lseek(fd, (off_t)skip, SEEK_SET), (off_t)skip);
	return fd;
}

static unsigned char *file_contents(int fd, size_t *size)
{
	struct stat st;
	unsigned char *buf;

	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	*size = (size_t)st.st_size;
	return buf;
}

static int compress_memory(enum compression c, const void *in, size_t in_size,
			   unsigned char **out, size_t *out_size)
{
	int in_fd = file_with(in, in_size, 0);
	int out_fd = memfd_create("output", MFD_CLOEXEC);
	int r;

	assert_true(out_fd >= 0);
	r = compress_fd(c, in_fd, out_fd);
	*out = file_contents(out_fd, out_size);
	close(in_fd);
	close(out_fd);
	return r;
}

static void compress_twice(enum compression c, const unsigned char *in, size_t in_size,
			   unsigned char **out, size_t *out_size)
{
	unsigned char *again;
	size_t again_size = 0;

	assert_int_equal(compress_memory(c, in, in_size, out, out_size), 0);
	assert_int_equal(compress_memory(c, in, in_size, &again, &again_size), 0);
	assert_int_equal(*out_size, again_size);
	assert_memory_equal(*out, again, again_size);
	free(again);
}

static void gunzip_equals(const unsigned char *gz, size_t gz_size, const unsigned char *in,
			  size_t in_size)
{
	unsigned char *back = malloc(in_size + 1);
	z_stream z = { 0 };

	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gz_size;
	z.next_out = back;
	z.avail_out = (uInt)in_size + 1;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.total_out, in_size);
	assert_int_equal(z.avail_in, 0);
	inflateEnd(&z);
	assert_memory_equal(back, in, in_size);
	free(back);
}

/* A directory holding only an executable "name" that runs script, for PATH. */
static void fake_program(char *dir, size_t size, const char *name, const char *script)
{
	char path[256];
	FILE *f;

	snprintf(dir, size, "/tmp/test_compress.XXXXXX");
	assert_non_null(mkdtemp(dir));
	if (!name)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", script);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static void remove_fake(const char *dir, const char *name)
{
	char path[256];

	if (name) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		unlink(path);
	}
	rmdir(dir);
}

static void test_names(void **state)
{
	assert_int_equal(compress_from_name("none"), COMPRESS_NONE);
	assert_int_equal(compress_from_name("gzip"), COMPRESS_GZIP);
	assert_int_equal(compress_from_name("gz"), COMPRESS_GZIP);
	assert_int_equal(compress_from_name("zstd"), COMPRESS_ZSTD);
	assert_int_equal(compress_from_name("xz"), COMPRESS_XZ);
	assert_int_equal(compress_from_name("lz4"), -EINVAL);
	assert_int_equal(compress_from_name(""), -EINVAL);
	for (int c = 0; c < COMPRESS_MAX; c++)
		assert_int_equal(compress_from_name(compress_name(c)), c);
	assert_string_equal(compress_name(COMPRESS_MAX), "unknown");
	/* what a user is told to install */
	assert_null(compress_program(COMPRESS_NONE));
	assert_string_equal(compress_program(COMPRESS_ZSTD), "zstd");
	assert_string_equal(compress_package(COMPRESS_XZ), "xz-utils");
	assert_string_equal(compress_package(COMPRESS_GZIP), "gzip");
	assert_null(compress_program(COMPRESS_MAX));
	/* what libkmod recognises a compressed module by */
	assert_string_equal(compress_suffix(COMPRESS_ZSTD), ".zst");
	assert_string_equal(compress_suffix(COMPRESS_XZ), ".xz");
	assert_string_equal(compress_suffix(COMPRESS_NONE), "");
}

static void test_none(void **state)
{
	unsigned char *in = make_input(), *out;
	size_t out_size;

	compress_twice(COMPRESS_NONE, in, INPUT_SIZE, &out, &out_size);
	assert_int_equal(out_size, INPUT_SIZE);
	assert_memory_equal(out, in, INPUT_SIZE);
	free(out);
	free(in);
}

static void test_gzip(void **state)
{
	unsigned char *in = make_input(), *out;
	size_t out_size;

	compress_twice(COMPRESS_GZIP, in, INPUT_SIZE, &out, &out_size);
	assert_true(out_size < INPUT_SIZE);
	/* RFC 1952: magic, deflate, no flags (no name), mtime 0 */
	assert_int_equal(out[0], 0x1f);
	assert_int_equal(out[1], 0x8b);
	assert_int_equal(out[2], 8);
	assert_int_equal(out[3], 0);
	assert_int_equal(out[4] | out[5] | out[6] | out[7], 0);
	gunzip_equals(out, out_size, in, INPUT_SIZE);
	free(out);
	free(in);
}

static void test_zstd(void **state)
{
	unsigned char *in = make_input(), *out, *back = malloc(INPUT_SIZE);
	size_t out_size;

	compress_twice(COMPRESS_ZSTD, in, INPUT_SIZE, &out, &out_size);
	assert_true(out_size < INPUT_SIZE);
	/* the program reads its standard input, and still the size is in the frame header */
	assert_int_equal(ZSTD_getFrameContentSize(out, out_size), INPUT_SIZE);
	assert_int_equal(ZSTD_findFrameCompressedSize(out, out_size), out_size);
	assert_int_equal(ZSTD_decompress(back, INPUT_SIZE, out, out_size), INPUT_SIZE);
	assert_memory_equal(back, in, INPUT_SIZE);
	free(back);
	free(out);
	free(in);
}

static void test_xz(void **state)
{
	unsigned char *in = make_input(), *out, *back = malloc(INPUT_SIZE);
	uint64_t memlimit = UINT64_MAX;
	size_t out_size, in_pos = 0, out_pos = 0;
	lzma_stream_flags flags;

	compress_twice(COMPRESS_XZ, in, INPUT_SIZE, &out, &out_size);
	assert_true(out_size < INPUT_SIZE);
	assert_int_equal(lzma_stream_header_decode(&flags, out), LZMA_OK);
	/* the kernel's xz decoder verifies CRC32 and no other check */
	assert_int_equal(flags.check, LZMA_CHECK_CRC32);
	assert_int_equal(lzma_stream_buffer_decode(&memlimit, 0, NULL, out, &in_pos, out_size, back,
						   &out_pos, INPUT_SIZE),
			 LZMA_OK);
	assert_int_equal(out_pos, INPUT_SIZE);
	assert_int_equal(in_pos, out_size);
	assert_memory_equal(back, in, INPUT_SIZE);
	free(back);
	free(out);
	free(in);
}

/* The input is read from its offset, the output written at its offset: the program shares
 * both file descriptions with the caller. */
static void test_offsets(void **state)
{
	static const char head[] = "HEAD";
	unsigned char *in = make_input(), *out, *back = malloc(INPUT_SIZE);
	int in_fd = file_with(in, INPUT_SIZE, 1000);
	int out_fd = memfd_create("output", MFD_CLOEXEC);
	size_t out_size, n = INPUT_SIZE - 1000;

	assert_int_equal(write(out_fd, head, 4), 4);
	assert_int_equal(compress_fd(COMPRESS_ZSTD, in_fd, out_fd), 0);
	out = file_contents(out_fd, &out_size);
	assert_int_equal(lseek(out_fd, 0, SEEK_CUR), (off_t)out_size);
	assert_memory_equal(out, head, 4);
	assert_int_equal(ZSTD_getFrameContentSize(out + 4, out_size - 4), n);
	assert_int_equal(ZSTD_decompress(back, INPUT_SIZE, out + 4, out_size - 4), n);
	assert_memory_equal(back, in + 1000, n);
	close(in_fd);
	close(out_fd);
	free(back);
	free(out);
	free(in);
}

/* From a pipe the size is unknown: the frame says so, and still decompresses. */
static void test_pipe_input(void **state)
{
	static const char text[] = "a line of text, a line of text, a line of text\n";
	unsigned char *out, back[sizeof(text)];
	int out_fd = memfd_create("output", MFD_CLOEXEC);
	int p[2];
	size_t out_size;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], text, sizeof(text)), (ssize_t)sizeof(text));
	close(p[1]);
	assert_int_equal(compress_fd(COMPRESS_ZSTD, p[0], out_fd), 0);
	close(p[0]);
	out = file_contents(out_fd, &out_size);
	assert_true(ZSTD_getFrameContentSize(out, out_size) == ZSTD_CONTENTSIZE_UNKNOWN);
	assert_int_equal(ZSTD_decompress(back, sizeof(back), out, out_size), sizeof(text));
	assert_memory_equal(back, text, sizeof(text));
	close(out_fd);
	free(out);
}

/* The programs' option variables do not reach them: the output stays what the kernel reads. */
static void test_option_variables(void **state)
{
	unsigned char *in = make_input(), *plain, *tuned;
	size_t plain_size, tuned_size;

	for (int c = COMPRESS_GZIP; c < COMPRESS_MAX; c++) {
		assert_int_equal(compress_memory(c, in, INPUT_SIZE, &plain, &plain_size), 0);
		setenv("XZ_OPT", "--format=lzma", 1);
		setenv("XZ_DEFAULTS", "-9e", 1);
		setenv("ZSTD_CLEVEL", "1", 1);
		setenv("GZIP", "-1", 1);
		assert_int_equal(compress_memory(c, in, INPUT_SIZE, &tuned, &tuned_size), 0);
		unsetenv("XZ_OPT");
		unsetenv("XZ_DEFAULTS");
		unsetenv("ZSTD_CLEVEL");
		unsetenv("GZIP");
		assert_int_equal(plain_size, tuned_size);
		assert_memory_equal(plain, tuned, plain_size);
		free(plain);
		free(tuned);
	}
	free(in);
}

static void test_empty_input(void **state)
{
	for (int c = 0; c < COMPRESS_MAX; c++) {
		unsigned char *out;
		size_t out_size = 1;

		assert_int_equal(compress_memory(c, "", 0, &out, &out_size), 0);
		if (c == COMPRESS_NONE)
			assert_int_equal(out_size, 0);
		else
			assert_true(out_size > 0);
		if (c == COMPRESS_GZIP)
			gunzip_equals(out, out_size, (const unsigned char *)"", 0);
		free(out);
	}
}

static void test_missing_program(void **state)
{
	char *saved = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char dir[64], path[256];
	unsigned char *out;
	size_t out_size;

	fake_program(dir, sizeof(dir), NULL, NULL);
	setenv("PATH", dir, 1);
	for (int c = COMPRESS_GZIP; c < COMPRESS_MAX; c++) {
		assert_int_equal(compress_find_program(c, path, sizeof(path)), -ENOENT);
		assert_string_equal(path, "");
		assert_int_equal(compress_memory(c, "x", 1, &out, &out_size), -ENOENT);
		assert_int_equal(out_size, 0);
		free(out);
	}
	/* none needs no program */
	assert_int_equal(compress_find_program(COMPRESS_NONE, path, sizeof(path)), 0);
	assert_int_equal(compress_memory(COMPRESS_NONE, "x", 1, &out, &out_size), 0);
	assert_int_equal(out_size, 1);
	free(out);
	setenv("PATH", saved, 1);
	assert_int_equal(compress_find_program(COMPRESS_ZSTD, path, sizeof(path)), 0);
	assert_string_not_equal(path, "");
	remove_fake(dir, NULL);
	free(saved);
}

static void test_failing_program(void **state)
{
	char *saved = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char dir[64];
	unsigned char *out;
	size_t out_size;

	fake_program(dir, sizeof(dir), "zstd", "echo zstd: a test failure >&2; exit 1");
	setenv("PATH", dir, 1);
	assert_int_equal(compress_memory(COMPRESS_ZSTD, "x", 1, &out, &out_size), -EIO);
	free(out);
	setenv("PATH", saved, 1);
	remove_fake(dir, "zstd");
	free(saved);
}

static void test_unknown_method(void **state)
{
	char path[64];
	unsigned char *out;
	size_t out_size;

	assert_int_equal(compress_memory(COMPRESS_MAX, "x", 1, &out, &out_size), -EINVAL);
	assert_int_equal(out_size, 0);
	free(out);
	assert_int_equal(compress_find_program(COMPRESS_MAX, path, sizeof(path)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_xz),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_pipe_input),
		cmocka_unit_test(test_option_variables),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_failing_program),
		cmocka_unit_test(test_unknown_method),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
