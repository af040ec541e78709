/* Disk sets, options and machines built by hand for the planner's tests. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "disk.h"
#include "dps.h"
#include "plan.h"
#include "plan_refusal.h"
#include "uuid.h"

#define T_ROOT_X86_64 "4f68bce3-e8cd-4db1-96e7-fbcaf984b709"
#define T_USR_X86_64 "8484680c-9521-48c6-9c11-b0720656f69e"
#define T_ROOT_VERITY_X86_64 "2c7357ed-ebd2-46d9-aec1-23d437ec2bf5"
#define T_ROOT_ARM64 "b921b045-1df0-41c3-af44-4c6f280d3fae"
#define T_USR_ARM64 "b0e01050-ee5f-4390-949a-9101b17104e9"
#define T_ROOT_X86 "44479540-f297-41b2-9af7-d131d5f0458a"
#define T_USR_X86 "75250d76-8cc6-458e-bd66-bd47cc81a812"
#define T_ESP "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
#define T_XBOOTLDR "bc13c2ff-59e6-4262-a352-b275fd6f7172"
#define T_SWAP "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f"
#define T_HOME "933ac7e1-2eb4-4f13-b844-0e14e2aef915"
#define T_SRV "3b8f8425-20e0-4f3b-907f-1a25a76f98e8"
#define T_VAR "4d21b016-b534-45c2-a9fb-5c16e091fd2d"
#define T_TMP "7ec6f557-3bc5-4aca-b293-16ef5df639d1"
#define T_USER_HOME "773f91ef-66d4-49b5-bd83-d683bf40ad16"
#define T_LINUX "0fc63daf-8483-4772-8e79-3d69d8477de4"

/* The spec's check value: this machine ID gives this /var PARTUUID. */
#define MACHINE_ID_HEX "cc1fed1f50ba43cda39577333c5d0504"
#define MACHINE_VAR_PARTUUID "6028e3a1-54ef-41be-90b1-c54f2e22254c"

struct fixture {
	struct disk_set set;
	struct options opts;
	struct machine machine;
	struct plan plan;
};

static inline struct fixture *fx_new(void)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	options_init(&f->opts);
	/* The planner's tests count mount steps; the fsck steps before read-write mounts have
	 * their own tests (test_plan_fsck.c), which set fsck.mode back to auto. */
	f->opts.fsck_mode = FSCK_SKIP;
	f->machine.arch = ARCH_X86_64;
	return f;
}

static inline void fx_free(struct fixture *f)
{
	disk_set_free(&f->set);
	free(f);
}

/* fx_part() with partuuid NULL gives partition N of disk D this PARTUUID. */
static inline const char *fx_partuuid(size_t disk, unsigned number, char out[UUID_STR_LEN])
{
	snprintf(out, UUID_STR_LEN, "%08zx-0000-4000-8000-%012x", disk + 1, number);
	return out;
}

/* Returns the disk's index: disk pointers move when the set grows. */
static inline size_t fx_disk(struct fixture *f, const char *path, const char *pttype,
			     const char *ptuuid, bool removable)
{
	struct disk *d = disk_set_add(&f->set);

	if (!d)
		abort();
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->pttype, sizeof(d->pttype), "%s", pttype);
	snprintf(d->ptuuid, sizeof(d->ptuuid), "%s", ptuuid);
	d->removable = removable;
	d->sector_size = 512;
	return f->set.n - 1;
}

static inline struct part *fx_part(struct fixture *f, size_t disk, unsigned number,
				   const char *type, const char *partuuid, const char *label,
				   uint64_t flags, const char *fstype)
{
	struct part *p = disk_add_part(&f->set.disks[disk]);

	if (!p)
		abort();
	p->number = number;
	snprintf(p->type, sizeof(p->type), "%s", type);
	if (partuuid)
		snprintf(p->partuuid, sizeof(p->partuuid), "%s", partuuid);
	else
		snprintf(p->partuuid, sizeof(p->partuuid), "%08zx-0000-4000-8000-%012x", disk + 1,
			 number);
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->flags = flags;
	snprintf(p->fstype, sizeof(p->fstype), "%s", fstype);
	p->start = (uint64_t)number << 20;
	p->size = 1 << 20;
	return p;
}

static inline struct part *fx_get(struct fixture *f, size_t disk, unsigned number)
{
	struct disk *d = &f->set.disks[disk];

	for (size_t i = 0; i < d->n_parts; i++)
		if (d->parts[i].number == number)
			return &d->parts[i];
	abort();
}

/* r, plan_build()'s answer on set; a refusal that names a partition without its disk stops
 * the test, whatever the test checks (plan_refusal.h). */
static inline int fx_refusal_checked(int r, const struct plan *plan, const struct disk_set *set)
{
	char why[160];

	if (r != 0 && plan_refusal_fault(plan->error, set, why, sizeof(why))) {
		fprintf(stderr, "the refusal breaks the rule of plan_refusal.h: %s\n  %s\n", why,
			plan->error);
		abort();
	}
	return r;
}

static inline int fx_plan(struct fixture *f)
{
	struct plan_input in = { .opts = &f->opts, .disks = &f->set, .machine = &f->machine };

	return fx_refusal_checked(plan_build(&in, &f->plan), &f->plan, &f->set);
}

static inline void fx_machine_id(uint8_t out[16])
{
	if (id128_parse(MACHINE_ID_HEX, out) < 0)
		abort();
}

static inline bool fx_has_note(const struct fixture *f, const char *part)
{
	for (size_t i = 0; i < f->plan.n_notes; i++)
		if (strstr(f->plan.notes[i], part))
			return true;
	return false;
}

/* Prints the plan when a test fails, so the failure shows what was planned. */
static inline void fx_dump(const struct fixture *f)
{
	fprintf(stderr, "error: %s\n", f->plan.error);
	for (size_t i = 0; i < f->plan.n_steps; i++) {
		const struct plan_step *s = &f->plan.steps[i];

		fprintf(stderr, "step %zu: %s %s %s %s [%s] (%s)\n", i, plan_op_name(s->op), s->source,
			s->target, s->fstype, s->options, s->reason);
	}
	for (size_t i = 0; i < f->plan.n_notes; i++)
		fprintf(stderr, "note: %s\n", f->plan.notes[i]);
}
