/* Reading an initramfs image as the kernel unpacks it: newc cpio archives one after another,
 * zero padding between them, each uncompressed or compressed (the early archive of CPU
 * microcode, then the compressed main one, as initramfs-tools and dracut write them). For
 * `earlymount check`, which asks what an image holds. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#define CPIO_READ_PATH_MAX 4096

struct cpio_file {
	char path[CPIO_READ_PATH_MAX]; /* as stored, without a leading "/" or "./" */
	unsigned mode;                 /* type and permission bits */
	uint64_t size;
	int fd;                        /* where the data is: pread(fd, …, size, offset) */
	off_t offset;
};

/* Told of each entry (the trailers left out); a negative return stops the walk with it. */
typedef int cpio_file_fn(const struct cpio_file *f, void *data);

/* Walks the image at path, decompressing its compressed parts with the host's programs
 * (gzip, zstd, xz) into memory. 0; -EMEDIUMTYPE for data that is neither an archive nor a
 * compression earlymount reads; -EBADMSG for a malformed archive (an entry running past the
 * end, a name too long); -ENOENT when a decompressor is not installed, -EIO when it failed;
 * -errno; or what fn returned. */
int cpio_read_image(const char *path, cpio_file_fn *fn, void *data);

/* Up to size - 1 bytes of f's data into buf, NUL-ended: the length, or -errno. */
ssize_t cpio_file_read(const struct cpio_file *f, char *buf, size_t size);
