/* Compression of initramfs images in the formats the kernel unpacks (CONFIG_RD_GZIP,
 * CONFIG_RD_ZSTD, CONFIG_RD_XZ). Works on memory; reproducible output. */
#pragma once

#include <stddef.h>

enum compression {
	COMPRESS_NONE,
	COMPRESS_GZIP, /* deflate level 9 in a gzip member, mtime 0 */
	COMPRESS_ZSTD, /* level 19, with the content size in the frame header */
	COMPRESS_XZ,   /* preset 6, CRC32 check: the kernel's xz decoder knows no other */
	COMPRESS_MAX,
};

/* "none", "gzip", "zstd", "xz". */
const char *compress_name(enum compression c);
/* COMPRESS_* for a name compress_name() gives (also "gz"), or -EINVAL. */
int compress_from_name(const char *name);

/* Compresses in into a new malloc'd buffer *out of *out_size bytes (for COMPRESS_NONE, a
 * copy). 0, -ENOMEM, -EINVAL for an unknown method, or -EIO when the library fails. */
int compress_buffer(enum compression c, const void *in, size_t in_size, void **out,
		    size_t *out_size);
