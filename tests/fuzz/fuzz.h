/* What the fuzz targets share: a reader that turns the fuzzer's bytes into choices, and the
 * invariants every plan must keep whatever it was built from. A broken invariant aborts, and
 * libFuzzer keeps the input. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/plan_refusal.h"
#include "disk.h"
#include "plan.h"
#include "plan_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                     \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "invariant broken at %s:%d: %s: ", __FILE__, \
				__LINE__, #cond);                                 \
			fprintf(stderr, __VA_ARGS__);                             \
			fputc('\n', stderr);                                      \
			abort();                                                  \
		}                                                                 \
	} while (0)

/* The targets' large structures (a plan is 285 KB, options 25 KB), allocated once and
 * reused: a fresh allocation of that size each run costs more than the run, as the sanitizer
 * maps, faults in and poisons it anew. */
static inline void *fuzz_reused(void **p, size_t size)
{
	if (!*p)
		*p = malloc(size);
	FUZZ_CHECK(*p, "out of memory");
	return *p;
}

/* The fuzzer's bytes read front to back; past the end every read gives zeros, so that any
 * input decodes to something. */
struct fuzz_reader {
	const uint8_t *data;
	size_t size;
	size_t pos;
};

static inline uint8_t fuzz_u8(struct fuzz_reader *r)
{
	return r->pos < r->size ? r->data[r->pos++] : 0;
}

static inline uint64_t fuzz_u64(struct fuzz_reader *r)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | fuzz_u8(r);
	return v;
}

/* A string of up to size - 1 raw bytes (a length byte, then the bytes; a NUL ends it early). */
static inline void fuzz_raw_string(struct fuzz_reader *r, char *out, size_t size)
{
	size_t n = fuzz_u8(r);

	if (size == 0)
		return;
	if (n > r->size - r->pos)
		n = r->size - r->pos;
	if (n > size - 1)
		n = size - 1;
	memcpy(out, r->data + r->pos, n);
	out[n] = '\0';
	r->pos += n;
}

static inline bool fuzz_terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

#define FUZZ_TERMINATED(field) fuzz_terminated((field), sizeof(field))

static inline bool fuzz_starts_with_dir(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static inline bool fuzz_part_in_set(const struct disk_set *set, const struct part *part)
{
	for (size_t d = 0; d < set->n; d++) {
		const struct disk *disk = &set->disks[d];

		if (disk->n_parts && part >= disk->parts && part < disk->parts + disk->n_parts)
			return true;
	}
	return false;
}

/* Well-formed UTF-8 with no raw control bytes other than the layout's newlines: what a JSON
 * reader (and a terminal) can take. */
static inline bool fuzz_output_ok(const unsigned char *s, size_t n, size_t *bad)
{
	for (size_t i = 0; i < n;) {
		size_t len = s[i] < 0x80 ? 1 : s[i] >= 0xc2 && s[i] <= 0xdf ? 2
			   : s[i] >= 0xe0 && s[i] <= 0xef ? 3 : s[i] >= 0xf0 && s[i] <= 0xf4 ? 4 : 0;

		*bad = i;
		if (len == 0 || len > n - i)
			return false;
		if (len == 1 && ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f))
			return false;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

/* The planner's contract (plan.h), checked on whatever it returned. */
/* The disk of the set whose table holds part, or NULL (compared as addresses: part may point
 * into any disk's array). */
static inline const struct disk *fuzz_disk_of(const struct disk_set *set, const struct part *part)
{
	uintptr_t p = (uintptr_t)part;

	for (size_t i = 0; i < set->n; i++) {
		uintptr_t first = (uintptr_t)set->disks[i].parts;

		if (p >= first && p < first + set->disks[i].n_parts * sizeof(*part))
			return &set->disks[i];
	}
	return NULL;
}

static inline void fuzz_check_plan(int r, const struct plan *plan, const struct disk_set *set)
{
	bool root_mounted = false;

	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -ENOTUNIQ || r == -EPERM || r == -EINVAL ||
		   r == -EOPNOTSUPP || r == -E2BIG, "plan_build returned %d", r);
	FUZZ_CHECK(plan->n_steps <= PLAN_MAX_STEPS, "%zu steps", plan->n_steps);
	FUZZ_CHECK(plan->n_notes <= PLAN_MAX_NOTES, "%zu notes", plan->n_notes);
	FUZZ_CHECK(plan->root_steps <= plan->n_steps, "root_steps %zu of %zu", plan->root_steps,
		   plan->n_steps);
	FUZZ_CHECK(FUZZ_TERMINATED(plan->error), "error not terminated");
	FUZZ_CHECK(FUZZ_TERMINATED(plan->init), "init not terminated");
	FUZZ_CHECK(FUZZ_TERMINATED(plan->machine_id_path), "machine_id_path not terminated");
	for (size_t i = 0; i < plan->n_notes && i < PLAN_MAX_NOTES; i++)
		FUZZ_CHECK(FUZZ_TERMINATED(plan->notes[i]), "note %zu not terminated", i);
	for (size_t i = 0; i < plan->n_steps && i < PLAN_MAX_STEPS; i++) {
		const struct plan_step *s = &plan->steps[i];

		FUZZ_CHECK(FUZZ_TERMINATED(s->source) && FUZZ_TERMINATED(s->target) &&
			   FUZZ_TERMINATED(s->fstype) && FUZZ_TERMINATED(s->options) &&
			   FUZZ_TERMINATED(s->reason), "a field of step %zu is not terminated", i);
		/* the limits (docs/booting.md, Limits): nothing empty, past 2^64 or beyond partition 255
		 * is mounted; number 0 only as the whole of a device without a partition table */
		if (r == 0 && s->part && (s->op == OP_MOUNT || s->op == OP_SWAPON)) {
			const struct disk *d = fuzz_disk_of(set, s->part);

			FUZZ_CHECK(s->part->size > 0 && s->part->number <= 255 &&
				   (s->part->number >= 1 || (d && part_is_whole_device(d, s->part))) &&
				   s->part->size <= UINT64_MAX - s->part->start,
				   "step %zu mounts damaged partition %u", i, s->part->number);
		}
		/* each device-mapper device is made by one step */
		for (size_t j = 0; r == 0 && j < i && (s->op == OP_UNLOCK || s->op == OP_VERITY); j++)
			FUZZ_CHECK((plan->steps[j].op != OP_UNLOCK && plan->steps[j].op != OP_VERITY) ||
				   strcmp(plan->steps[j].target, s->target) != 0,
				   "steps %zu and %zu both make %s", j, i, s->target);
	}
	if (r != 0) {
		FUZZ_CHECK(plan->error[0] != '\0', "plan_build failed (%d) without saying why", r);
		return;
	}
	FUZZ_CHECK(!plan->disk || (plan->disk >= set->disks && plan->disk < set->disks + set->n),
		   "plan->disk points outside the disk set");
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct plan_step *s = &plan->steps[i];

		FUZZ_CHECK((unsigned)s->op < OP_MAX, "step %zu has op %d", i, (int)s->op);
		FUZZ_CHECK(!s->part || fuzz_part_in_set(set, s->part),
			   "step %zu points at a partition outside the disk set", i);
		if (s->op == OP_MOUNT) {
			FUZZ_CHECK(s->source[0] != '\0', "step %zu mounts an empty source", i);
			FUZZ_CHECK(fuzz_starts_with_dir(s->target, SYSROOT) ||
				   fuzz_starts_with_dir(s->target, EARLYMOUNT_RUN),
				   "step %zu mounts on '%s'", i, s->target);
		}
		if (s->op == OP_SHARE)
			FUZZ_CHECK(s->source[0] != '\0', "step %zu mounts a share without a tag", i);
		/* a root share (root=virtiofs:TAG, virtfs:, rootfstype=9p) is mounted by OP_SHARE */
		if ((s->op == OP_MOUNT || s->op == OP_TMPFS || s->op == OP_OVERLAY ||
		     s->op == OP_SHARE) &&
		    strcmp(s->target, SYSROOT) == 0)
			root_mounted = true;
	}
	FUZZ_CHECK(root_mounted, "the plan succeeded but mounts nothing on " SYSROOT);
}

/* A refusal that speaks of a partition names its disk, and a whole device is no "partition
 * 0" (tests/unit/plan_refusal.h). A refusal echoes words of the input (root=, labels,
 * paths): when data, the input, holds the words the rule reads, what the planner wrote
 * cannot be told from them, and the rule is not asked. */
static inline void fuzz_check_refusal(int r, const struct plan *plan, const struct disk_set *set,
				      const uint8_t *data, size_t size)
{
	char why[160];

	if (r != 0 && !memmem(data, size, "partition", 9) && !memmem(data, size, "whole of", 8))
		FUZZ_CHECK(!plan_refusal_fault(plan->error, set, why, sizeof(why)),
			   "a refusal about a partition names no disk: %s: '%s'", why, plan->error);
}

/* Both printers on a plan, their output checked for text a reader and a terminal can take. */
static inline void fuzz_format_plan(const struct plan *plan)
{
	char *buf = NULL;
	size_t len = 0, bad = 0;
	FILE *out = open_memstream(&buf, &len);

	FUZZ_CHECK(out != NULL, "open_memstream failed");
	plan_format_json(plan, out);
	fclose(out);
	if (getenv("FUZZ_VERBOSE")) {
		fwrite(buf, 1, len, stderr);
		fprintf(stderr, "error: %s\n", plan->error);
	}
	FUZZ_CHECK(fuzz_output_ok((const unsigned char *)buf, len, &bad),
		   "JSON output has a raw control byte or broken UTF-8 at byte %zu", bad);
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	FUZZ_CHECK(out != NULL, "open_memstream failed");
	plan_format_text(plan, out);
	fclose(out);
	FUZZ_CHECK(fuzz_output_ok((const unsigned char *)buf, len, &bad),
		   "text output has a raw control byte or broken UTF-8 at byte %zu", bad);
	free(buf);
}
