/* A root or /usr on a share: the host's (virtiofs, 9p: QEMU's vhost-user-fs and virtio-9p), or
 * an NFS export (plan_nfs.c makes its mount). There is
 * no partition behind it: nothing to discover, verify or unlock, no GPT flag to honour; one
 * mount of the share's tag, read-only unless rw (mount.usrflags=rw for /usr) asks otherwise.
 * The volatile modes lay their tmpfs over it as over a disk root. */
#include <errno.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

/* 9p without trans= dials TCP; these are the words dracut and virtme-ng give for QEMU's
 * virtio-9p, each added only when rootflags= has no word of the same key. */
static const char *const ninep_defaults[] = { "trans=virtio", "version=9p2000.L" };

bool plan_root_is_share(const struct planner *p)
{
	return p->opts->root_kind == ROOT_SHARE;
}

bool plan_usr_is_share(const struct planner *p)
{
	return p->opts->usr && p->opts->usr_share != SHARE_NONE;
}

int plan_check_share_options(struct planner *p)
{
	const struct options *o = p->opts;
	int r = 0;

	if (plan_root_is_share(p) && o->verity_root.hash)
		r = plan_fail(p, -EINVAL, "roothash= with a root on the %s share '%s': a share has no "
			      "verity device; drop roothash= or boot from a disk", share_fstype(o->root_share),
			      o->root);
	else if (plan_usr_is_share(p) && o->verity_usr.hash)
		r = plan_fail(p, -EINVAL, "usrhash= with a /usr on the %s share '%s': a share has no "
			      "verity device; drop usrhash= or take /usr from a disk",
			      share_fstype(o->usr_share), o->usr);
	return r;
}

static bool has_key(const char *flags, const char *word)
{
	size_t key_len = strcspn(word, "=") + 1;
	const char *s = flags;

	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (n >= key_len && strncmp(s, word, key_len) == 0)
			return true;
		s += n;
		if (*s == ',')
			s++;
	}
	return false;
}

/* The user's flags, after the defaults their filesystem needs. */
static void share_flags(struct planner *p, enum share_fs fs, const char *user, char *out,
			size_t size)
{
	struct text t;

	plan_text_init(&t, out, size);
	for (size_t i = 0; fs == SHARE_9P && i < ARRAY_SIZE(ninep_defaults); i++)
		if (!has_key(user, ninep_defaults[i]))
			plan_text_add(&t, "%s%s", t.len ? "," : "", ninep_defaults[i]);
	if (user && user[0])
		plan_text_add(&t, "%s%s", t.len ? "," : "", user);
	if (t.full)
		plan_note(p, "share options cut short: %s", out);
}

static int add_share_mount(struct planner *p, const char *tag, enum share_fs fs,
			   const char *target, bool rw, const char *user, const char *key)
{
	char flags_text[PLAN_OPTIONS];
	struct mount_flags flags = { .rw = rw };
	struct plan_step *step = NULL;
	int r;

	if (share_is_nfs(fs))
		return plan_add_nfs_mount(p, tag, fs, target, rw, user, key);
	share_flags(p, fs, user, flags_text, sizeof(flags_text));
	flags.user = flags_text;
	r = plan_add_step(p, OP_SHARE, tag, target, share_fstype(fs), NULL, &step);
	if (r == 0)
		r = plan_format_options(p, step->options, sizeof(step->options), &flags, target);
	if (r == 0)
		plan_step_reason(step, "%s: the host's %s share tagged '%s'", key, share_fstype(fs), tag);
	return r;
}

int plan_add_share_root(struct planner *p, const char *target, bool force_ro, const char *why_ro)
{
	const struct options *o = p->opts;
	bool rw = o->rw == 1 && !force_ro;

	if (o->rw == 1 && force_ro)
		plan_note(p, "root mounted read-only although rw was given: %s", why_ro);
	p->root_rw = rw;
	return add_share_mount(p, o->root, o->root_share, target, rw, o->rootflags, "root=");
}

int plan_add_share_usr(struct planner *p)
{
	const struct options *o = p->opts;
	/* rootflags= are the root's: they fit /usr only on a share of the same kind */
	const char *user = o->usrflags ? o->usrflags
			 : plan_root_is_share(p) && o->root_share == o->usr_share ? o->rootflags : NULL;
	bool rw = plan_flags_want_rw(o->usrflags);

	if (rw && o->root_kind != ROOT_TMPFS && o->volatile_mode == VOLATILE_YES) {
		plan_note(p, "/usr mounted read-only although rw was given: systemd.volatile=yes");
		rw = false;
	}
	return add_share_mount(p, o->usr, o->usr_share, ROOT_MOUNT_POINT "/usr", rw, user,
			       "mount.usr=");
}
