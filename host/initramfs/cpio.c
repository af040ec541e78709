/* The newc cpio format as the kernel's initramfs unpacker reads it (init/initramfs.c):
 * a 110-byte ASCII header, the name with its NUL, padding to 4 bytes, the data, padding to
 * 4 bytes; "TRAILER!!!" ends the archive. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "util.h"

void cpio_init(struct cpio_archive *a)
{
	memset(a, 0, sizeof(*a));
}

void cpio_free(struct cpio_archive *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->entries[i].path);
		free(a->entries[i].source);
		free(a->entries[i].data);
	}
	free(a->entries);
	cpio_init(a);
}

int cpio_normalize_path(const char *path, char *out, size_t size)
{
	size_t used = 0;
	const char *p = path;
	int r = 0;

	if (size == 0)
		return -ENAMETOOLONG;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 0 || (len == 1 && p[0] == '.')) {
			p += len + (p[len] == '/');
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			r = -EINVAL;
			goto out;
		}
		if (used + (used > 0) + len >= size) {
			r = -ENAMETOOLONG;
			goto out;
		}
		if (used > 0)
			out[used++] = '/';
		memcpy(out + used, p, len);
		used += len;
		p += len + (p[len] == '/');
	}
	if (used == 0)
		r = -EINVAL;
out:
	out[r == 0 ? used : 0] = '\0';
	return r;
}

static struct cpio_entry *add_entry(struct cpio_archive *a, const char *path, unsigned mode, int *r)
{
	char norm[sizeof(a->failed_path)];
	struct cpio_entry *e = NULL;

	*r = cpio_normalize_path(path, norm, sizeof(norm));
	if (*r < 0)
		goto out;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct cpio_entry *grown = realloc(a->entries, cap * sizeof(*grown));

		if (!grown) {
			*r = -ENOMEM;
			goto out;
		}
		a->entries = grown;
		a->cap = cap;
	}
	e = &a->entries[a->n];
	memset(e, 0, sizeof(*e));
	e->path = strdup(norm);
	if (!e->path) {
		*r = -ENOMEM;
		e = NULL;
		goto out;
	}
	e->mode = mode;
	e->order = a->n++;
out:
	return e;
}

int cpio_add_dir(struct cpio_archive *a, const char *path, unsigned perm)
{
	int r;

	add_entry(a, path, S_IFDIR | (perm & 07777), &r);
	return r;
}

int cpio_add_file(struct cpio_archive *a, const char *path, unsigned perm, const char *source)
{
	struct cpio_entry *e;
	int r;

	e = add_entry(a, path, S_IFREG | (perm & 07777), &r);
	if (!e)
		goto out;
	e->source = strdup(source);
	if (!e->source)
		r = -ENOMEM;
out:
	return r;
}

static int set_data(struct cpio_entry *e, const void *data, size_t size)
{
	/* one spare byte so an empty buffer is still an allocation and a target stays a string */
	e->data = malloc(size + 1);
	if (!e->data)
		return -ENOMEM;
	memcpy(e->data, data, size);
	e->data[size] = '\0';
	e->size = size;
	return 0;
}

int cpio_add_data(struct cpio_archive *a, const char *path, unsigned perm, const void *data,
		  size_t size)
{
	struct cpio_entry *e;
	int r;

	e = add_entry(a, path, S_IFREG | (perm & 07777), &r);
	if (e)
		r = set_data(e, data, size);
	return r;
}

int cpio_add_symlink(struct cpio_archive *a, const char *path, const char *target)
{
	struct cpio_entry *e;
	int r = -EINVAL;

	if (!*target)
		goto out;
	e = add_entry(a, path, S_IFLNK | 0777, &r);
	if (e)
		r = set_data(e, target, strlen(target));
out:
	return r;
}

int cpio_add_char_dev(struct cpio_archive *a, const char *path, unsigned perm, unsigned major,
		      unsigned minor)
{
	struct cpio_entry *e;
	int r;

	e = add_entry(a, path, S_IFCHR | (perm & 07777), &r);
	if (e) {
		e->rdev_major = major;
		e->rdev_minor = minor;
	}
	return r;
}

static int compare_entries(const void *x, const void *y)
{
	const struct cpio_entry *a = x, *b = y;
	int c = strcmp(a->path, b->path);

	if (c != 0)
		return c;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int compare_path_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct cpio_entry *)elem)->path);
}

static void sort_entries(struct cpio_archive *a)
{
	if (a->n > 1)
		qsort(a->entries, a->n, sizeof(*a->entries), compare_entries);
}

/* The kernel's unpacker does not create parents; every directory must be in the archive. */
static int add_missing_parents(struct cpio_archive *a)
{
	size_t sorted = a->n;
	char parent[sizeof(a->failed_path)];
	int r = 0;

	sort_entries(a);
	for (size_t i = 0; i < sorted && r == 0; i++) {
		COPY_STR(parent, a->entries[i].path);
		for (char *slash = strrchr(parent, '/'); slash && r == 0; slash = strrchr(parent, '/')) {
			*slash = '\0';
			if (!bsearch(parent, a->entries, sorted, sizeof(*a->entries), compare_path_key))
				r = cpio_add_dir(a, parent, 0755);
		}
	}
	sort_entries(a);
	return r;
}

struct cpio_out {
	FILE *f;
	uint64_t offset;
	int error;
};

static void put(struct cpio_out *o, const void *data, size_t size)
{
	if (o->error == 0 && size > 0 && fwrite(data, 1, size, o->f) != size)
		o->error = -EIO;
	o->offset += size;
}

static void pad4(struct cpio_out *o)
{
	static const char zeros[4];

	put(o, zeros, (4 - (o->offset & 3)) & 3);
}

static void put_header(struct cpio_out *o, uint32_t ino, const struct cpio_entry *e, uint32_t mtime,
		       uint64_t size, const char *name)
{
	char header[CPIO_HEADER_SIZE + 1];
	unsigned mode = e ? e->mode : 0;
	unsigned nlink = S_ISDIR(mode) ? 2 : 1;

	snprintf(header, sizeof(header),
		 "%s%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", CPIO_MAGIC, ino, mode,
		 0u, 0u, nlink, e ? mtime : 0u, (unsigned)size, 0u, 0u, e ? e->rdev_major : 0u,
		 e ? e->rdev_minor : 0u, (unsigned)strlen(name) + 1, 0u);
	put(o, header, CPIO_HEADER_SIZE);
	put(o, name, strlen(name) + 1);
	pad4(o);
}

static int copy_source(struct cpio_out *o, int fd, uint64_t size)
{
	char buf[65536];
	uint64_t left = size;
	int r = 0;

	while (left > 0 && o->error == 0) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* the file shrank while we were copying it */
			r = n < 0 ? -errno : -EIO;
			goto out;
		}
		put(o, buf, (size_t)n);
		left -= (uint64_t)n;
	}
out:
	return r;
}

static int write_entry(struct cpio_out *o, uint32_t ino, const struct cpio_entry *e, uint32_t mtime)
{
	struct stat st;
	int fd = -1;
	int r = 0;

	if (!e->source) {
		put_header(o, ino, e, mtime, e->size, e->path);
		put(o, e->data, e->size);
		pad4(o);
		goto out;
	}
	fd = open(e->source, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto out;
	}
	if ((uint64_t)st.st_size > CPIO_MAX_FILE_SIZE) {
		r = -EFBIG;
		goto out;
	}
	put_header(o, ino, e, mtime, (uint64_t)st.st_size, e->path);
	r = copy_source(o, fd, (uint64_t)st.st_size);
	pad4(o);
out:
	if (fd >= 0)
		close(fd);
	return r;
}

static bool same_path(const struct cpio_archive *a, size_t i)
{
	return i > 0 && streq(a->entries[i].path, a->entries[i - 1].path);
}

int cpio_write(struct cpio_archive *a, FILE *out, uint32_t mtime, uint64_t *written)
{
	struct cpio_out o = { .f = out };
	uint32_t ino = 0;
	int r;

	a->failed_path[0] = '\0';
	r = add_missing_parents(a);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < a->n; i++) {
		const struct cpio_entry *e = &a->entries[i];

		if (same_path(a, i)) {
			if (S_ISDIR(e->mode) && S_ISDIR(a->entries[i - 1].mode))
				continue;
			r = -EEXIST;
		} else {
			r = write_entry(&o, ++ino, e, mtime);
		}
		if (r == 0 && o.error < 0)
			r = o.error;
		if (r < 0) {
			COPY_STR(a->failed_path, e->path);
			goto out;
		}
	}
	put_header(&o, 0, NULL, 0, 0, CPIO_TRAILER);
	if (fflush(out) != 0 && o.error == 0)
		o.error = -EIO;
	r = o.error;
out:
	if (written)
		*written = o.offset;
	return r;
}
