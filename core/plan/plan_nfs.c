/* A root or /usr over NFS: which export (root=nfs:, nfsroot=, DHCP's root-path), on which
 * server (the source's, ip='s server field, DHCP's next server), and the options the kernel's
 * client needs when no mount.nfs prepares them: the server's address (addr=), the client's
 * for NFSv4 callbacks (clientaddr=), and nolock for NFSv3, whose locks need a statd the
 * initramfs does not run (the kernel's own nfsroot mounts so too). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

/* The value of key in comma-separated flags ("" for a bare word), or NULL when absent. */
static const char *option_value(const char *flags, const char *key)
{
	size_t key_len = strlen(key);
	const char *s = flags;

	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (n >= key_len && strncmp(s, key, key_len) == 0 && (n == key_len || s[key_len] == '='))
			return s + key_len + (n > key_len);
		s += n;
		if (*s == ',')
			s++;
	}
	return NULL;
}

static bool has_option(const struct nfs_source *s, const char *user, const char *key)
{
	return option_value(user, key) || option_value(s->options, key);
}

/* NFSv4 by the fstype, or by vers= or nfsvers= among the options (the user's win). */
static bool wants_v4(const struct nfs_source *s, const char *user)
{
	const char *v = option_value(user, "vers") ?: option_value(user, "nfsvers");

	if (!v)
		v = option_value(s->options, "vers") ?: option_value(s->options, "nfsvers");
	return v ? v[0] == '4' : s->v4;
}

static const char *client_address(const struct planner *p)
{
	return p->machine->has_net && p->machine->net.address[0] ? p->machine->net.address : NULL;
}

/* The export root=/dev/nfs names: nfsroot=, else DHCP's root-path. */
static int kernel_form_source(struct planner *p, struct nfs_source *s, const char **from)
{
	const struct net_lease *lease = &p->machine->net;
	const char *why = NULL;
	int r;

	if (p->opts->net.nfsroot) {
		*from = "nfsroot=";
		r = nfs_source_from_nfsroot(p->opts->net.nfsroot, client_address(p), s, &why);
	} else if (p->machine->has_net && lease->root_path[0]) {
		*from = "DHCP's root-path";
		r = nfs_source_from_dracut(lease->root_path, s, &why);
	} else if (!p->machine->has_net) {
		return plan_fail(p, -ENOENT, "root=/dev/nfs without nfsroot=: the export comes from "
				 "DHCP's root-path once the network is up");
	} else {
		return plan_fail(p, -EINVAL, "root=/dev/nfs without nfsroot=, and the lease of %s gave "
				 "no root-path (DHCP option 17); give nfsroot=SERVER:/PATH", lease->iface);
	}
	if (r < 0)
		r = plan_fail(p, r, "%s '%s': %s", *from, p->opts->net.nfsroot ? p->opts->net.nfsroot
									 : lease->root_path, why);
	return r;
}

/* The server when the source names none: ip='s server field, else DHCP's next server. */
static int default_server(struct planner *p, struct nfs_source *s)
{
	const struct net_cmdline *n = &p->opts->net;

	for (size_t i = 0; i < n->n_ip && !s->server[0]; i++)
		COPY_STR(s->server, n->ip[i].server);
	if (!s->server[0] && p->machine->has_net)
		COPY_STR(s->server, p->machine->net.root_server);
	if (s->server[0])
		return 0;
	return plan_fail(p, -EINVAL, "the NFS export %s names no server, nor does ip= (its second "
			 "field) or DHCP (its next server); give SERVER:%s", s->path, s->path);
}

static int nfs_source_of(struct planner *p, const char *tag, enum share_fs fs,
			 struct nfs_source *s, const char **from)
{
	const char *why = NULL;
	int r;

	s->v4 = fs == SHARE_NFS4;
	if (streq(tag, NFS_ROOT_DEVICE)) {
		r = kernel_form_source(p, s, from);
		s->v4 = s->v4 || fs == SHARE_NFS4;
	} else {
		r = nfs_source_from_dracut(tag, s, &why);
		if (r < 0)
			r = plan_fail(p, r, "the NFS export '%s': %s", tag, why);
	}
	if (r == 0 && !s->server[0])
		r = default_server(p, s);
	return r;
}

/* The options the kernel's client is given: ours first, then the source's and the user's. */
static void nfs_flags(struct planner *p, const struct nfs_source *s, bool v4, const char *user,
		      char *out, size_t size)
{
	struct text t;
	const char *client = client_address(p);

	plan_text_init(&t, out, size);
	/* the kernel mounts NFSv3 for nfs, and 4.0 for nfs4, unless told: no mount.nfs
	 * negotiates here, and 4.2 is what servers of the last decade speak */
	if (!has_option(s, user, "vers") && !has_option(s, user, "nfsvers"))
		plan_text_add(&t, "%s,", v4 ? "vers=4.2" : "vers=3");
	if (!v4 && !has_option(s, user, "lock") && !has_option(s, user, "nolock"))
		plan_text_add(&t, "nolock,");
	plan_text_add(&t, "addr=%s", s->server);
	if (v4 && client)
		plan_text_add(&t, ",clientaddr=%s", client);
	if (s->options[0])
		plan_text_add(&t, ",%s", s->options);
	if (user && user[0])
		plan_text_add(&t, ",%s", user);
	if (t.full)
		plan_note(p, "NFS options cut short: %s", out);
}

int plan_add_nfs_mount(struct planner *p, const char *tag, enum share_fs fs, const char *target,
		       bool rw, const char *user, const char *key)
{
	struct nfs_source s = { 0 };
	const char *from = key;
	char flags_text[PLAN_OPTIONS], source[PLAN_PATH];
	struct mount_flags flags = { .rw = rw };
	struct plan_step *step = NULL;
	bool v4;
	int r = nfs_source_of(p, tag, fs, &s, &from);

	if (r < 0)
		goto out;
	if (snprintf(source, sizeof(source), "%s:%s", s.server, s.path) >= (int)sizeof(source)) {
		r = plan_fail(p, -ENAMETOOLONG, "the NFS export %s: its path is too long", s.path);
		goto out;
	}
	v4 = wants_v4(&s, user);
	nfs_flags(p, &s, v4, user, flags_text, sizeof(flags_text));
	flags.user = flags_text;
	/* the type names the kernel module that mounts it (nfsv3, nfsv4) */
	r = plan_add_step(p, OP_SHARE, source, target, v4 ? "nfs4" : "nfs", NULL, &step);
	if (r == 0)
		r = plan_format_options(p, step->options, sizeof(step->options), &flags, target);
	if (r == 0)
		plan_step_reason(step, "%s: the NFS export %s of %s", from, s.path, s.server);
out:
	return r;
}
