/* What an initramfs must hold for a plan's steps: the table below, by step. Pure. */
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "util.h"

static const struct step_need {
	enum plan_op op;
	enum plan_need_kind kind;
	const char *name;   /* NULL: the step's fstype names the module */
	const char *option;
} step_needs[] = {
	{ OP_UNLOCK, NEED_PROGRAM, "earlymount-luks", "--luks" },
	{ OP_UNLOCK, NEED_MODULE, "dm_crypt", NULL },
	{ OP_VERITY, NEED_MODULE, "dm_verity", NULL },
	{ OP_ACTIVATE, NEED_PROGRAM, "lvm", "--lvm" },
	{ OP_ACTIVATE, NEED_MODULE, "dm_mod", NULL },
	{ OP_ASSEMBLE, NEED_PROGRAM, "mdadm", "--md" },
	{ OP_ASSEMBLE, NEED_MODULE, "md_mod", NULL },
	{ OP_SCAN, NEED_MODULE, "btrfs", NULL },
	{ OP_MOUNT, NEED_MODULE, NULL, NULL },
	{ OP_SWAPON, NEED_MODULE, NULL, NULL },
	{ OP_SHARE, NEED_MODULE, NULL, NULL },
	{ OP_OVERLAY, NEED_MODULE, "overlay", NULL },
	{ OP_FSCK, NEED_FSCK, NULL, NULL },
};

/* Types whose module the kernel names otherwise, or that need none. */
static const struct fstype_module {
	const char *fstype;
	const char *module; /* NULL: none */
} fstype_modules[] = {
	{ "swap", NULL }, { "tmpfs", NULL }, { "ext2", "ext4" }, { "ext3", "ext4" },
	{ "nfs", "nfsv3" }, { "nfs4", "nfsv4" },
};

static void add(struct plan_needs *needs, enum plan_need_kind kind, const char *name,
		const char *option)
{
	for (size_t i = 0; i < needs->n; i++)
		if (needs->items[i].kind == kind && streq(needs->items[i].name, name))
			return;
	if (needs->n == PLAN_MAX_NEEDS || copy_str(needs->items[needs->n].name,
						    sizeof(needs->items[0].name), name) < 0)
		return;
	needs->items[needs->n].kind = kind;
	needs->items[needs->n].option = option;
	needs->n++;
}

static const char *fstype_module(const char *fstype)
{
	for (size_t i = 0; i < ARRAY_SIZE(fstype_modules); i++)
		if (streq(fstype_modules[i].fstype, fstype))
			return fstype_modules[i].module;
	return fstype;
}

void plan_needs_add_op(enum plan_op op, const char *fstype, struct plan_needs *needs)
{
	char checker[32];
	const char *name;

	for (size_t i = 0; i < ARRAY_SIZE(step_needs); i++) {
		const struct step_need *n = &step_needs[i];

		if (n->op != op)
			continue;
		if (n->kind == NEED_FSCK && fstype[0]) {
			snprintf(checker, sizeof(checker), "fsck.%s", fstype);
			add(needs, NEED_FSCK, checker, NULL);
			continue;
		}
		name = n->name ? n->name : fstype[0] ? fstype_module(fstype) : NULL;
		if (name && n->kind != NEED_FSCK)
			add(needs, n->kind, name, n->option);
	}
	/* an NFS export comes over the network klibc's ipconfig configures */
	if (op == OP_SHARE && (streq(fstype, "nfs") || streq(fstype, "nfs4")))
		add(needs, NEED_PROGRAM, "ipconfig", "--network");
}

void plan_needs(const struct plan *plan, struct plan_needs *needs)
{
	memset(needs, 0, sizeof(*needs));
	for (size_t i = 0; i < plan->n_steps && i < PLAN_MAX_STEPS; i++)
		plan_needs_add_op(plan->steps[i].op, plan->steps[i].fstype, needs);
}
