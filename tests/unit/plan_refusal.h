/* The rule every refusal of the planner keeps, whatever it refuses: one that speaks of a
 * partition by its number says whose it is ("partition 2 of /dev/vda", "partitions 1 and 3 of
 * disk.img"), and a device without a partition table is "the whole of" its path, never
 * "partition 0" of it. With several disks (or several --image) a bare "partition 1" leaves the
 * reader to guess. Checked on every plan the unit tests make (plan_fixtures.h's fx_plan())
 * and on every one the planner's fuzzer makes; plain C, so that both can include it. */
#pragma once

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk.h"

/* How much of a disk's path the planner's messages print (plan_text.c's "%.200s"). */
#define REFUSAL_PATH_SHOWN 200

/* Whether text, up to end, begins with disk's path as the messages print it (a refusal cut
 * at its end may stop inside the path). */
static inline bool refusal_names_disk(const char *text, const char *end, const struct disk *disk)
{
	size_t n = strnlen(disk->path, REFUSAL_PATH_SHOWN);
	size_t have = (size_t)(end - text);

	return strncmp(text, disk->path, n < have ? n : have) == 0;
}

/* Whether text begins with the path of a disk of set that holds, as an entry of its table,
 * partition number; or, whole, that is a device without a table. */
static inline bool refusal_disk_holds(const struct disk_set *set, const char *text,
				      const char *end, unsigned number, bool whole)
{
	for (size_t d = 0; d < set->n; d++) {
		const struct disk *disk = &set->disks[d];

		for (size_t i = 0; i < disk->n_parts && refusal_names_disk(text, end, disk); i++) {
			const struct part *part = &disk->parts[i];

			if (whole ? part_is_whole_device(disk, part)
				  : part->number == number && !part_is_whole_device(disk, part))
				return true;
		}
	}
	return false;
}

static inline const char *refusal_number(const char *s, unsigned *n)
{
	unsigned long v = strtoul(s, NULL, 10);

	*n = v > 0xffffffffUL ? 0xffffffffU : (unsigned)v;
	while (isdigit((unsigned char)*s))
		s++;
	return s;
}

/* One "partition N of DISK" or "partitions N and M of DISK" at s (just past "partition"):
 * NULL when it keeps the rule, else what breaks it, in why. */
static inline const char *refusal_partition(const char *s, const char *end,
					    const struct disk_set *set, char *why, size_t size)
{
	unsigned a = 0, b = 0;
	bool two = *s == 's';

	s += two;
	if (*s != ' ' || !isdigit((unsigned char)s[1]))
		return NULL; /* "partition table", "partitions of types" */
	s = refusal_number(s + 1, &a);
	if (two && strncmp(s, " and ", 5) == 0 && isdigit((unsigned char)s[5]))
		s = refusal_number(s + 5, &b);
	if (s + 4 > end)
		return NULL; /* cut before its disk */
	if (strncmp(s, " of ", 4) != 0) {
		snprintf(why, size, "partition %u is named without its disk", a);
		return why;
	}
	s += 4;
	if (!refusal_disk_holds(set, s, end, a, false) || (b && !refusal_disk_holds(set, s, end, b, false))) {
		snprintf(why, size, "partition %u is of no disk named so (or is a whole device, which "
			 "is no partition)", b && refusal_disk_holds(set, s, end, a, false) ? b : a);
		return why;
	}
	return NULL;
}

/* NULL when error (a plan's) keeps the rule for the disks of set, else what breaks it. */
static inline const char *plan_refusal_fault(const char *error, const struct disk_set *set,
					     char *why, size_t size)
{
	static const char whole[] = "the whole of ";
	const char *end = error + strlen(error), *s;

	/* a cut refusal ends in "...": what it cut is not known */
	if (end - error >= 3 && strcmp(end - 3, "...") == 0)
		end -= 3;
	for (s = strstr(error, "partition"); s && s < end; s = strstr(s + 1, "partition"))
		if (refusal_partition(s + strlen("partition"), end, set, why, size))
			return why;
	for (s = strstr(error, whole); s && s < end; s = strstr(s + 1, whole))
		if (s + strlen(whole) < end && !refusal_disk_holds(set, s + strlen(whole), end, 0, true)) {
			snprintf(why, size, "\"the whole of\" a disk that is no whole device");
			return why;
		}
	return NULL;
}
