/* A reproducible newc ("070701") cpio writer for initramfs images: entries are collected,
 * then written sorted by path with owner 0, one mtime, sequential inode numbers and no hard
 * links. Writes to any FILE* (a file, or open_memstream in tests). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CPIO_MAGIC "070701"
#define CPIO_HEADER_SIZE 110
#define CPIO_TRAILER "TRAILER!!!"
/* newc stores sizes in 8 hex digits. */
#define CPIO_MAX_FILE_SIZE UINT64_C(0xffffffff)

struct cpio_entry {
	char *path;          /* normalised: no leading '/', no empty, "." or ".." components */
	unsigned mode;       /* file type and permission bits (S_IFDIR | 0755, …) */
	unsigned rdev_major; /* character and block devices */
	unsigned rdev_minor;
	char *source;        /* regular file: the host file whose contents are copied at write time */
	char *data;          /* regular file kept in memory, or a symlink's target */
	size_t size;         /* bytes in data */
	size_t order;        /* insertion order, so that sorting is stable */
};

struct cpio_archive {
	struct cpio_entry *entries;
	size_t n;
	size_t cap;
	/* after a failed cpio_write: the path that caused it */
	char failed_path[4096];
};

void cpio_init(struct cpio_archive *a);
void cpio_free(struct cpio_archive *a);

/* Each returns 0, -EINVAL for a path that normalises to nothing or holds "..", or -ENOMEM.
 * Adding a directory that is already there is not an error; adding any other path twice is
 * reported by cpio_write (-EEXIST). */
int cpio_add_dir(struct cpio_archive *a, const char *path, unsigned perm);
/* Regular file copied from source when the archive is written. */
int cpio_add_file(struct cpio_archive *a, const char *path, unsigned perm, const char *source);
/* Regular file with the given contents. */
int cpio_add_data(struct cpio_archive *a, const char *path, unsigned perm, const void *data,
		  size_t size);
int cpio_add_symlink(struct cpio_archive *a, const char *path, const char *target);
int cpio_add_char_dev(struct cpio_archive *a, const char *path, unsigned perm, unsigned major,
		      unsigned minor);

/* Writes the archive: adds a 0755 directory for every missing parent, sorts by path, writes
 * each entry with the given mtime and the trailer. *written (may be NULL) gets the byte
 * count. 0, or -EEXIST for a path added twice (not both directories), -EFBIG for a file
 * larger than newc holds, -EIO when out fails, or the -errno of reading a source file;
 * failed_path then names the entry. */
int cpio_write(struct cpio_archive *a, FILE *out, uint32_t mtime, uint64_t *written);

/* Normalises path as the archive stores it (see cpio_entry.path) into out. 0, -EINVAL, or
 * -ENAMETOOLONG. */
int cpio_normalize_path(const char *path, char *out, size_t size);
