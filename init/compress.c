/* One-shot compressors: an initramfs is built in memory, so streaming buys nothing. */
#include <errno.h>
#include <limits.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "compress.h"
#include "util.h"

#define GZIP_LEVEL 9
#define ZSTD_LEVEL 19
#define XZ_PRESET 6
/* windowBits 15 plus 16 asks zlib for a gzip wrapper; without deflateSetHeader() its header
 * carries mtime 0, which keeps the output reproducible. */
#define GZIP_WINDOW_BITS (15 + 16)

static const char *const compression_names[COMPRESS_MAX] = {
	[COMPRESS_NONE] = "none",
	[COMPRESS_GZIP] = "gzip",
	[COMPRESS_ZSTD] = "zstd",
	[COMPRESS_XZ] = "xz",
};

const char *compress_name(enum compression c)
{
	return c >= 0 && c < COMPRESS_MAX ? compression_names[c] : "unknown";
}

int compress_from_name(const char *name)
{
	if (streq(name, "gz"))
		return COMPRESS_GZIP;
	for (int c = 0; c < COMPRESS_MAX; c++)
		if (streq(name, compression_names[c]))
			return c;
	return -EINVAL;
}

static int copy_plain(const void *in, size_t in_size, void **out, size_t *out_size)
{
	*out = malloc(in_size ? in_size : 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, in, in_size);
	*out_size = in_size;
	return 0;
}

static int compress_gzip(const void *in, size_t in_size, void **out, size_t *out_size)
{
	z_stream z = { 0 };
	bool z_ready = false;
	unsigned char *buf = NULL;
	uLong bound;
	int r = -EFBIG;

	/* zlib counts in uInt; an initramfs of 4 GiB is beyond what a kernel unpacks anyway */
	if (in_size > UINT_MAX)
		goto out;
	r = -ENOMEM;
	if (deflateInit2(&z, GZIP_LEVEL, Z_DEFLATED, GZIP_WINDOW_BITS, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		goto out;
	z_ready = true;
	bound = deflateBound(&z, in_size);
	buf = malloc(bound);
	if (!buf)
		goto out;
	r = -EIO;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)in_size;
	z.next_out = buf;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		goto out;
	*out = buf;
	*out_size = z.total_out;
	buf = NULL;
	r = 0;
out:
	if (z_ready)
		deflateEnd(&z);
	free(buf);
	return r;
}

static int compress_zstd(const void *in, size_t in_size, void **out, size_t *out_size)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t bound = ZSTD_compressBound(in_size);
	void *buf = NULL;
	size_t n;
	int r = -ENOMEM;

	if (!cctx)
		goto out;
	buf = malloc(bound);
	if (!buf)
		goto out;
	r = -EIO;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)))
		goto out;
	n = ZSTD_compress2(cctx, buf, bound, in, in_size);
	if (ZSTD_isError(n))
		goto out;
	*out = buf;
	*out_size = n;
	buf = NULL;
	r = 0;
out:
	ZSTD_freeCCtx(cctx);
	free(buf);
	return r;
}

static int compress_xz(const void *in, size_t in_size, void **out, size_t *out_size)
{
	size_t bound = lzma_stream_buffer_bound(in_size);
	uint8_t *buf = NULL;
	size_t pos = 0;
	lzma_ret ret;
	int r = -EFBIG;

	if (bound == 0)
		goto out;
	r = -ENOMEM;
	buf = malloc(bound);
	if (!buf)
		goto out;
	ret = lzma_easy_buffer_encode(XZ_PRESET, LZMA_CHECK_CRC32, NULL, in, in_size, buf, &pos,
				      bound);
	if (ret != LZMA_OK) {
		r = ret == LZMA_MEM_ERROR ? -ENOMEM : -EIO;
		goto out;
	}
	*out = buf;
	*out_size = pos;
	buf = NULL;
	r = 0;
out:
	free(buf);
	return r;
}

int compress_buffer(enum compression c, const void *in, size_t in_size, void **out,
		    size_t *out_size)
{
	switch (c) {
	case COMPRESS_NONE:
		return copy_plain(in, in_size, out, out_size);
	case COMPRESS_GZIP:
		return compress_gzip(in, in_size, out, out_size);
	case COMPRESS_ZSTD:
		return compress_zstd(in, in_size, out, out_size);
	case COMPRESS_XZ:
		return compress_xz(in, in_size, out, out_size);
	default:
		return -EINVAL;
	}
}
