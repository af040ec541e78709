/* The compressors: each output decompresses to the input, carries the header fields the
 * kernel's decompressors need, and is the same on every run. */
#include <errno.h>
#include <lzma.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

static void compress_twice(enum compression c, const unsigned char *in, size_t in_size,
			   unsigned char **out, size_t *out_size)
{
	void *again = NULL;
	size_t again_size = 0;

	assert_int_equal(compress_buffer(c, in, in_size, (void **)out, out_size), 0);
	assert_int_equal(compress_buffer(c, in, in_size, &again, &again_size), 0);
	assert_int_equal(*out_size, again_size);
	assert_memory_equal(*out, again, again_size);
	free(again);
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
	unsigned char *in = make_input(), *out, *back = malloc(INPUT_SIZE);
	z_stream z = { 0 };
	size_t out_size;

	compress_twice(COMPRESS_GZIP, in, INPUT_SIZE, &out, &out_size);
	assert_true(out_size < INPUT_SIZE);
	/* RFC 1952: magic, deflate, no flags, mtime 0 */
	assert_int_equal(out[0], 0x1f);
	assert_int_equal(out[1], 0x8b);
	assert_int_equal(out[2], 8);
	assert_int_equal(out[3], 0);
	assert_int_equal(out[4] | out[5] | out[6] | out[7], 0);

	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = out;
	z.avail_in = (uInt)out_size;
	z.next_out = back;
	z.avail_out = INPUT_SIZE;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.total_out, INPUT_SIZE);
	assert_int_equal(z.avail_in, 0);
	inflateEnd(&z);
	assert_memory_equal(back, in, INPUT_SIZE);
	free(back);
	free(out);
	free(in);
}

static void test_zstd(void **state)
{
	unsigned char *in = make_input(), *out, *back = malloc(INPUT_SIZE);
	size_t out_size;

	compress_twice(COMPRESS_ZSTD, in, INPUT_SIZE, &out, &out_size);
	assert_true(out_size < INPUT_SIZE);
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

static void test_empty_input(void **state)
{
	for (int c = 0; c < COMPRESS_MAX; c++) {
		void *out = NULL;
		size_t out_size = 1;

		assert_int_equal(compress_buffer(c, "", 0, &out, &out_size), 0);
		assert_non_null(out);
		if (c == COMPRESS_NONE)
			assert_int_equal(out_size, 0);
		else
			assert_true(out_size > 0);
		free(out);
	}
}

static void test_unknown_method(void **state)
{
	void *out = NULL;
	size_t out_size = 0;

	assert_int_equal(compress_buffer(COMPRESS_MAX, "x", 1, &out, &out_size), -EINVAL);
	assert_null(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_xz),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_unknown_method),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
