/* Compression of initramfs images and of the modules inside them, through the host's own
 * programs (gzip, zstd, xz), as dracut, mkinitcpio and initramfs-tools do: PID 1 only ever
 * decompresses, so earlymount links no encoder. The output is reproducible: no names or
 * times in the headers, one thread, the same bytes from the same program version. */
#pragma once

#include <stddef.h>

enum compression {
	COMPRESS_NONE,
	COMPRESS_GZIP, /* gzip -9 -n: no name, mtime 0 */
	COMPRESS_ZSTD, /* zstd -19 --check, with the content size in the frame header */
	COMPRESS_XZ,   /* xz -6 --check=crc32: the kernel's xz decoder knows no other check */
	COMPRESS_MAX,
};

/* "none", "gzip", "zstd", "xz". */
const char *compress_name(enum compression c);
/* COMPRESS_* for a name compress_name() gives (also "gz"), or -EINVAL. */
int compress_from_name(const char *name);
/* The program that compresses with c ("gzip", "zstd", "xz"), and the Debian package holding
 * it ("gzip", "zstd", "xz-utils"); NULL for COMPRESS_NONE or an unknown method. */
const char *compress_program(enum compression c);
const char *compress_package(enum compression c);
/* What the output's file name ends with: ".gz", ".zst", ".xz"; "" for COMPRESS_NONE. */
const char *compress_suffix(enum compression c);

/* Finds c's program on PATH (/usr/bin:/bin without one) and writes its path to path (""
 * for COMPRESS_NONE). 0, -ENOENT when it is not installed, -EINVAL for an unknown method. */
int compress_find_program(enum compression c, char *path, size_t size);

/* Compresses what in_fd holds from its offset to its end into out_fd, at out_fd's offset
 * (COMPRESS_NONE copies). When in_fd is a regular file, its size goes into the headers that
 * have one. 0; -ENOENT when the program is not installed; -EIO when it failed (it said why
 * on stderr); -EINVAL for an unknown method; or the -errno of reading or writing. */
int compress_fd(enum compression c, int in_fd, int out_fd);
/* The reverse: decompresses in_fd's rest into out_fd with c's program (COMPRESS_NONE copies).
 * The same results. */
int decompress_fd(enum compression c, int in_fd, int out_fd);
/* What the data starting with buf is: COMPRESS_NONE for a newc cpio archive, the method whose
 * magic it starts with, or -EMEDIUMTYPE for neither (lz4 and bzip2 images are not read). */
int compress_detect(const void *buf, size_t size);
