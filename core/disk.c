/* The disk model's containers and lookups, the byte ranges of partitions, and the text read
 * from disks. */
#include <stdlib.h>
#include <strings.h>

#include "disk.h"
#include "util.h"

struct disk *disk_set_add(struct disk_set *set)
{
	struct disk *grown = realloc(set->disks, (set->n + 1) * sizeof(*grown));

	if (!grown)
		return NULL;
	set->disks = grown;
	memset(&grown[set->n], 0, sizeof(grown[0]));
	return &grown[set->n++];
}

struct part *disk_add_part(struct disk *disk)
{
	struct part *grown = realloc(disk->parts, (disk->n_parts + 1) * sizeof(*grown));

	if (!grown)
		return NULL;
	disk->parts = grown;
	memset(&grown[disk->n_parts], 0, sizeof(grown[0]));
	return &grown[disk->n_parts++];
}

void disk_set_free(struct disk_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->disks[i].parts);
	free(set->disks);
	set->disks = NULL;
	set->n = 0;
}

uint64_t part_end(const struct part *part)
{
	return part->size > UINT64_MAX - part->start ? UINT64_MAX : part->start + part->size;
}

const struct part *disk_find_overlap(const struct disk *disk, const struct part *part)
{
	const struct part *found = NULL;

	for (size_t i = 0; i < disk->n_parts && !found && part->size > 0; i++) {
		const struct part *other = &disk->parts[i];

		if (other != part && other->size > 0 && other->start < part_end(part) &&
		    part->start < part_end(other))
			found = other;
	}
	return found;
}

/* The multi-byte forms of UTF-8: lead-byte pattern, length, smallest code point (smaller
 * ones in that form are overlong). */
static const struct utf8_form {
	unsigned char mask;
	unsigned char lead;
	size_t len;
	uint32_t smallest;
} utf8_forms[] = {
	{ 0xe0, 0xc0, 2, 0x80 },
	{ 0xf0, 0xe0, 3, 0x800 },
	{ 0xf8, 0xf0, 4, 0x10000 },
};

/* The length of the UTF-8 sequence at s, or 0 when it is malformed. */
static size_t utf8_char_length(const unsigned char *s)
{
	const struct utf8_form *form = NULL;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(utf8_forms) && !form; i++)
		if ((s[0] & utf8_forms[i].mask) == utf8_forms[i].lead)
			form = &utf8_forms[i];
	if (!form)
		return 0;
	cp = s[0] & (unsigned char)~form->mask;
	/* A continuation byte is never NUL, so this stops at the end of s. */
	for (size_t i = 1; i < form->len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < form->smallest || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return form->len;
}

size_t utf8_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t replaced = 0;

	while (*p) {
		size_t len = utf8_char_length(p);

		if (len == 0) {
			*p = '?';
			replaced++;
			len = 1;
		}
		p += len;
	}
	return replaced;
}

static bool part_matches(const struct part *p, const char *spec)
{
	const char *v;

	if ((v = startswith(spec, "PARTUUID=")))
		return p->partuuid[0] && strcasecmp(p->partuuid, v) == 0;
	if ((v = startswith(spec, "PARTLABEL=")))
		return p->label[0] && streq(p->label, v);
	if ((v = startswith(spec, "UUID=")))
		return p->fsuuid[0] && strcasecmp(p->fsuuid, v) == 0;
	if ((v = startswith(spec, "LABEL=")))
		return p->fslabel[0] && streq(p->fslabel, v);
	return p->devpath[0] && streq(p->devpath, spec);
}

int disk_set_find(const struct disk_set *set, const char *spec, const struct part **part,
		  const struct disk **disk)
{
	const struct part *found = NULL;
	const struct disk *found_disk = NULL;
	int r = -ENOENT;

	for (size_t d = 0; d < set->n; d++) {
		for (size_t i = 0; i < set->disks[d].n_parts; i++) {
			const struct part *p = &set->disks[d].parts[i];

			if (!part_matches(p, spec))
				continue;
			if (found) {
				r = -ENOTUNIQ;
				goto out;
			}
			found = p;
			found_disk = &set->disks[d];
			r = 0;
		}
	}
out:
	if (part)
		*part = r == 0 ? found : NULL;
	if (disk)
		*disk = r == 0 ? found_disk : NULL;
	return r;
}
