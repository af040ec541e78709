/* Which LUKS volumes the boot knows by name, and under which name, key and options each is
 * opened: the command line's (rd.luks.*) and the image's /etc/crypttab, merged by the rules
 * of systemd's cryptsetup generator in the initrd:
 *   - an entry is opened under its own name, with its own key file; rd.luks.options= for its
 *     header's UUID replaces the entry's options (the UUID read from UUID= in the device
 *     field, or from a name luks-UUID);
 *   - when rd.luks.uuid= or rd.luks.name= lists volumes, an entry whose UUID the command line
 *     does not name is left closed: the list narrows the file;
 *   - a volume the command line lists and no entry has is opened as rd.luks.name= says, else
 *     as luks-UUID;
 *   - rd.luks.crypttab=no leaves the file unread, rd.luks=no opens nothing.
 * noauto entries and those with a random key (swap, /tmp formatted at each boot) are the
 * real system's. An entry that asks for what earlymount refuses stops the plan: its volume is
 * never opened another way than it says. */
#include <errno.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <string.h>

#include "luks.h"
#include "plan_internal.h"
#include "util.h"
#include "uuid.h"

/* The header UUID systemd reads from an entry, for rd.luks.* to find it by: UUID= in the
 * device field, else a name luks-UUID. false when neither. */
static bool entry_uuid(const struct crypttab_entry *e, char out[UUID_STR_LEN])
{
	const char *text = startswith(e->device, "UUID=");
	uint8_t bytes[16];

	if (!text)
		text = startswith(e->name, "luks-");
	if (!text || uuid_parse(text, bytes) < 0)
		return false;
	uuid_format(bytes, out);
	return true;
}

static bool cmdline_lists(const struct luks_cmdline *l)
{
	for (size_t i = 0; i < l->n_volumes; i++)
		if (l->volumes[i].listed)
			return true;
	return false;
}

/* The command line's volume for uuid ("" for none), or -1. */
static int cmdline_volume(const struct luks_cmdline *l, const char *uuid)
{
	for (size_t i = 0; uuid[0] && i < l->n_volumes; i++)
		if (streq(l->volumes[i].uuid, uuid))
			return (int)i;
	return -1;
}

static void note_left_closed(struct planner *p, const struct crypttab_entry *e, const char *why)
{
	char origin[PLAN_TEXT];
	struct plan_volume v = { .entry = e };

	plan_note(p, "%s: not opened: %s", plan_volume_origin(&v, origin, sizeof(origin)), why);
}

/* Adds crypttab's entry e, unless it stays closed; used[i] marks the command line's volume i
 * it takes the place of. */
static int add_entry(struct planner *p, const struct crypttab_entry *e, bool narrowed,
		     bool used[LUKS_MAX_VOLUMES])
{
	const struct luks_cmdline *l = &p->opts->luks;
	char uuid[UUID_STR_LEN] = "", origin[PLAN_TEXT];
	struct plan_volume *v;
	int d, r = 0;

	if (e->use == CRYPTTAB_NOAUTO || e->use == CRYPTTAB_REAL) {
		note_left_closed(p, e, e->use == CRYPTTAB_NOAUTO ? "noauto"
					: "its key is random, made anew at each boot: the real system's");
		goto out;
	}
	entry_uuid(e, uuid);
	d = cmdline_volume(l, uuid);
	if (narrowed && d < 0) {
		note_left_closed(p, e, "rd.luks.uuid= and rd.luks.name= list other volumes");
		goto out;
	}
	v = &p->volumes[p->n_volumes++];
	*v = (struct plan_volume){ .name = e->name, .key = e->key[0] ? e->key : NULL,
				   .options = e->options, .listed = true, .entry = e };
	COPY_STR(v->device, e->device);
	if (startswith(e->device, "UUID="))
		COPY_STR(v->uuid, uuid);
	if (d >= 0) {
		used[d] = true;
		if (l->volumes[d].options)
			v->options = l->volumes[d].options;
	}
	/* options the command line replaced are checked as such; a bad key field when used */
	if (e->use == CRYPTTAB_REFUSED && v->options == e->options)
		r = plan_fail(p, -EOPNOTSUPP, "%s: %s (or boot with rd.luks.crypttab=no)",
			      plan_volume_origin(v, origin, sizeof(origin)), e->why);
out:
	return r;
}

static void add_cmdline_volume(struct planner *p, const struct luks_volume *lv)
{
	const struct luks_cmdline *l = &p->opts->luks;
	struct plan_volume *v = &p->volumes[p->n_volumes++];

	*v = (struct plan_volume){ .name = lv->name, .options = lv->options ? lv->options : l->options,
				   .key = lv->key ? lv->key : l->key, .listed = lv->listed };
	snprintf(v->device, sizeof(v->device), "UUID=%s", lv->uuid);
	COPY_STR(v->uuid, lv->uuid);
}

/* Every option string, checked once, so that a malformed value stops the plan before
 * anything is asked for. */
static int check_options(struct planner *p)
{
	const struct luks_cmdline *l = &p->opts->luks;
	struct luks_options o;
	char why[PLAN_TEXT], origin[PLAN_TEXT];
	int r = 0;

	for (size_t i = 0; i <= p->n_volumes && r == 0; i++) {
		struct plan_volume *v = i < p->n_volumes ? &p->volumes[i] : NULL;
		const char *text = v ? v->options : l->options;
		bool from_file = v && v->entry && text == v->entry->options;

		if (!text)
			continue;
		r = luks_options_parse(text, &o, why, sizeof(why));
		if (r < 0 && from_file)
			r = plan_fail(p, r, "%s: options %s: %s", plan_volume_origin(v, origin,
				      sizeof(origin)), text, why);
		else if (r < 0)
			r = plan_fail(p, -EINVAL, "rd.luks.options=%s: %s", text, why);
		if (r == 0 && v)
			v->raw = o.plain || o.header[0];
		if (r == 0 && o.unknown[0])
			plan_note(p, "%s: left out what earlymount does not know: %s",
				  from_file ? plan_volume_origin(v, origin, sizeof(origin))
					    : "rd.luks.options=", o.unknown);
	}
	return r;
}

int plan_luks_volumes(struct planner *p)
{
	const struct luks_cmdline *l = &p->opts->luks;
	const struct machine *m = p->machine;
	bool used[LUKS_MAX_VOLUMES] = { false };
	int r = 0;

	p->n_volumes = 0;
	if (!l->enabled)
		goto out;
	for (size_t i = 0; l->crypttab && m->has_crypttab && i < m->crypttab.n && r == 0; i++)
		r = add_entry(p, &m->crypttab.entries[i], cmdline_lists(l), used);
	for (size_t i = 0; i < l->n_volumes && r == 0; i++)
		if (!used[i])
			add_cmdline_volume(p, &l->volumes[i]);
	if (r == 0)
		r = check_options(p);
out:
	return r;
}

const struct plan_volume *plan_volume_of(const struct planner *p, const struct part *part)
{
	const struct part *found;

	for (size_t i = 0; part && i < p->n_volumes; i++) {
		const struct plan_volume *v = &p->volumes[i];

		if (v->uuid[0] ? part->fsuuid[0] && uuid_str_equal(v->uuid, part->fsuuid)
			       : disk_set_find(p->disks, v->device, &found, NULL) == 0 && found == part)
			return v;
	}
	return NULL;
}

void plan_volume_name(const struct plan_volume *v, char *out, size_t size)
{
	if (v->name)
		snprintf(out, size, "%s", v->name);
	else
		snprintf(out, size, "luks-%s", v->uuid);
}

const char *plan_volume_origin(const struct plan_volume *v, char *out, size_t size)
{
	if (v->entry)
		snprintf(out, size, "the image's crypttab: %s (line %u)", v->entry->name, v->entry->line);
	else
		snprintf(out, size, "rd.luks.uuid=%s", v->uuid);
	return out;
}

bool plan_luks_names_device(const struct planner *p, const char *device, char *spec, size_t size)
{
	const char *name = device ? startswith(device, DM_MAPPER_DIR "/") : NULL;
	char wanted[DM_NAME_LEN];

	for (size_t i = 0; name && i < p->n_volumes; i++) {
		const struct plan_volume *v = &p->volumes[i];

		plan_volume_name(v, wanted, sizeof(wanted));
		if (streq(name, wanted)) {
			snprintf(spec, size, "%s", v->device);
			return true;
		}
	}
	return false;
}
