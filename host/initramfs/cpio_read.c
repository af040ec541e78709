/* The newc format: "070701" (or "070702", with checksums), 13 fields of 8 hex digits, the
 * name with its NUL, padding to 4 bytes, the data, padding to 4 bytes; "TRAILER!!!" ends an
 * archive. Everything is read with pread from a file: a hostile image can name any size,
 * and each is checked against what the file holds before it is used. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compress.h"
#include "cpio.h"
#include "cpio_read.h"
#include "util.h"

#define FIELDS 13
enum { F_MODE = 1, F_FILESIZE = 6, F_NAMESIZE = 11 };

static off_t align4(off_t n)
{
	return (n + 3) & ~(off_t)3;
}

static bool parse_hex8(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	bool ok = true;

	for (int i = 0; i < 8 && ok; i++) {
		char c = s[i];

		ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		v = v << 4 | (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	*out = v;
	return ok;
}

static int read_exact(int fd, void *buf, size_t size, off_t at)
{
	ssize_t n = pread(fd, buf, size, at);

	if (n < 0)
		return -errno;
	return (size_t)n == size ? 0 : -EBADMSG;
}

/* Skips the zeros that pad archives to a block; *at moves to the first other byte. 0 there,
 * -ENODATA at the end of the file. */
static int skip_zeros(int fd, off_t *at)
{
	char buf[512];
	ssize_t n;
	int r = -ENODATA;

	while ((n = pread(fd, buf, sizeof(buf), *at)) > 0 && r == -ENODATA) {
		ssize_t i = 0;

		while (i < n && buf[i] == 0)
			i++;
		*at += i;
		if (i < n)
			r = 0;
	}
	if (n < 0)
		r = -errno;
	return r;
}

/* One entry at *at into f; *at moves past it. 1 for an entry, 0 for the trailer, -errno. */
static int read_entry(int fd, off_t end, off_t *at, struct cpio_file *f)
{
	char header[CPIO_HEADER_SIZE];
	uint32_t field[FIELDS];
	int r = read_exact(fd, header, sizeof(header), *at);
	const char *name;

	if (r < 0)
		goto out;
	for (int i = 0; i < FIELDS && r == 0; i++)
		if (!parse_hex8(header + 6 + 8 * i, &field[i]))
			r = -EBADMSG;
	if (r < 0 || field[F_NAMESIZE] < 2 || field[F_NAMESIZE] > sizeof(f->path)) {
		r = -EBADMSG;
		goto out;
	}
	r = read_exact(fd, f->path, field[F_NAMESIZE], *at + CPIO_HEADER_SIZE);
	if (r < 0 || f->path[field[F_NAMESIZE] - 1] != '\0') {
		r = -EBADMSG;
		goto out;
	}
	f->mode = field[F_MODE];
	f->size = field[F_FILESIZE];
	f->fd = fd;
	f->offset = align4(*at + CPIO_HEADER_SIZE + field[F_NAMESIZE]);
	if (f->offset + (off_t)f->size > end) {
		r = -EBADMSG;
		goto out;
	}
	*at = align4(f->offset + (off_t)f->size);
	name = f->path;
	while (startswith(name, "./") || *name == '/')
		name += *name == '/' ? 1 : 2;
	memmove(f->path, name, strlen(name) + 1);
	r = streq(f->path, CPIO_TRAILER) ? 0 : 1;
out:
	return r;
}

/* The archives of fd from *at, each entry to fn, until the end or data that is no archive
 * (then *at is there and the result -EMEDIUMTYPE, or the compression found as COMPRESS_*). */
static int walk_archives(int fd, off_t *at, cpio_file_fn *fn, void *data)
{
	static struct cpio_file f;
	struct stat st;
	char magic[6];
	int r = fstat(fd, &st) < 0 ? -errno : 0;

	while (r == 0 && (r = skip_zeros(fd, at)) == 0) {
		r = read_exact(fd, magic, sizeof(magic), *at);
		if (r == 0)
			r = compress_detect(magic, sizeof(magic));
		if (r != COMPRESS_NONE)
			break;
		while ((r = read_entry(fd, st.st_size, at, &f)) == 1)
			if ((r = fn(&f, data)) < 0)
				break;
	}
	return r == -ENODATA ? 0 : r;
}

/* The rest of fd from at, decompressed with c into a file in memory: its fd, or -errno. */
static int decompressed(int fd, off_t at, enum compression c)
{
	int out = memfd_create("earlymount-image", MFD_CLOEXEC);
	int r = out < 0 ? -errno : 0;

	if (r == 0 && lseek(fd, at, SEEK_SET) < 0)
		r = -errno;
	if (r == 0)
		r = decompress_fd(c, fd, out);
	if (r < 0 && out >= 0)
		close(out);
	return r < 0 ? r : out;
}

int cpio_read_image(const char *path, cpio_file_fn *fn, void *data)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int inner = -1;
	off_t at = 0;
	int r = fd < 0 ? -errno : walk_archives(fd, &at, fn, data);

	/* the kernel reads one compressed stream to the end: what it holds is archives again */
	if (r > 0) {
		inner = decompressed(fd, at, (enum compression)r);
		at = 0;
		r = inner < 0 ? inner : walk_archives(inner, &at, fn, data);
		if (r > 0)
			r = -EBADMSG; /* a compressed stream inside a compressed stream */
	}
	if (inner >= 0)
		close(inner);
	if (fd >= 0)
		close(fd);
	return r;
}

ssize_t cpio_file_read(const struct cpio_file *f, char *buf, size_t size)
{
	size_t want = f->size < size - 1 ? (size_t)f->size : size - 1;
	ssize_t n = pread(f->fd, buf, want, f->offset);

	buf[n > 0 ? n : 0] = '\0';
	return n < 0 ? -errno : n;
}
