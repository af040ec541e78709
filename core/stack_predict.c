/* The devices a command line names that the boot would make from members on the disks,
 * predicted for `earlymount plan` on images. Pure. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lvm_names.h"
#include "md_rules.h"
#include "stack_predict.h"
#include "util.h"

/* Directories of /dev that the kernel, udev or mdadm make: /dev/DIR/NAME below one of them is
 * no volume group's link. */
static const char *const dev_dirs[] = {
	"mapper", "md", "disk", "block", "char", "bus", "input", "net", "pts", "shm", "snd",
	"dri", "cpu", "fd", "hugepages", "mqueue", "vfio", "dma_heap", "bsg", "usb",
};

/* "/dev/mdN" with N decimal digits. */
static bool md_number_path(const char *spec)
{
	const char *n = startswith(spec, "/dev/md");
	bool ok = n && *n;

	for (; ok && *n; n++)
		ok = isdigit((unsigned char)*n);
	return ok;
}

/* name into out at *n with each '-' doubled, as device-mapper names write it; false when out
 * (size) is too small. */
static bool append_doubled(const char *name, char *out, size_t size, size_t *n)
{
	bool ok = true;

	for (const char *c = name; *c && ok; c++) {
		ok = *n + 3 < size;
		if (ok && *c == '-')
			out[(*n)++] = '-';
		if (ok)
			out[(*n)++] = *c;
	}
	return ok;
}

/* VG and LV as their device-mapper name "VG-LV"; false when out is too small. */
static bool dm_join(const char *vg, const char *lv, char *out, size_t size)
{
	size_t n = 0;
	bool ok = append_doubled(vg, out, size, &n) && n + 2 < size;

	if (ok)
		out[n++] = '-';
	ok = ok && append_doubled(lv, out, size, &n);
	if (size > 0)
		out[ok ? n : 0] = '\0';
	return ok;
}

/* "/dev/VG/LV" split into vg and lv: two valid LVM names below no directory of dev_dirs. */
static bool lvm_dev_path(const char *spec, char *vg, char *lv)
{
	const char *rest = startswith(spec, "/dev/");
	const char *slash = rest ? strchr(rest, '/') : NULL;
	size_t n = slash ? (size_t)(slash - rest) : 0;
	bool ok = slash && n < LVM_NAME_MAX && !strchr(slash + 1, '/') &&
		  strlen(slash + 1) < LVM_NAME_MAX;

	if (!ok)
		return false;
	memcpy(vg, rest, n);
	vg[n] = '\0';
	strcpy(lv, slash + 1);
	for (size_t i = 0; i < ARRAY_SIZE(dev_dirs) && ok; i++)
		ok = !streq(vg, dev_dirs[i]);
	return ok && lvm_name_valid(vg) && lvm_name_valid(lv);
}

enum stack_kind stack_kind_of(const char *spec, char *dm_name, size_t size)
{
	char vg[LVM_NAME_MAX], lv[LVM_NAME_MAX];
	const char *mapper = spec ? startswith(spec, "/dev/mapper/") : NULL;
	enum stack_kind kind = STACK_NONE;

	if (!spec)
		goto out;
	if (md_number_path(spec) || (startswith(spec, "/dev/md/") && spec[strlen("/dev/md/")]))
		kind = STACK_MD;
	else if (mapper && lvm_split_dm_name(mapper, vg, sizeof(vg), lv, sizeof(lv)) &&
		 lvm_name_valid(vg) && lvm_name_valid(lv) && copy_str(dm_name, size, mapper) == 0)
		kind = STACK_LVM;
	else if (lvm_dev_path(spec, vg, lv) && dm_join(vg, lv, dm_name, size))
		kind = STACK_LVM;
out:
	return kind;
}

bool stack_members_on(const struct disk_set *set, const char *fstype, const struct md_cmdline *md)
{
	bool found = false;

	for (size_t d = 0; d < set->n && !found; d++)
		for (size_t i = 0; i < set->disks[d].n_parts && !found; i++) {
			const struct part *p = &set->disks[d].parts[i];

			found = streq(p->fstype, fstype) && (!md || md_array_wanted(md, p->fsuuid));
		}
	return found;
}

/* Whether the set holds a member of kind: an LVM physical volume, or a LUKS volume the boot
 * may unlock (LVM on LUKS: what it holds is seen at boot only); an md member of an array the
 * command line lets the boot assemble. */
static bool has_member(const struct options *opts, const struct disk_set *set, enum stack_kind kind)
{
	if (kind == STACK_MD)
		return stack_members_on(set, "linux_raid_member", &opts->md);
	return stack_members_on(set, "LVM2_member", NULL) ||
	       (opts->luks.enabled && stack_members_on(set, "crypto_LUKS", NULL));
}

static int add_predicted(struct disk_set *set, const char *spec, enum stack_kind kind,
			 const char *dm_name)
{
	struct disk *disk = disk_set_add(set);
	struct part *part = disk ? disk_add_part(disk) : NULL;
	const char *md = startswith(spec, "/dev/md/");

	if (!part)
		return -ENOMEM;
	COPY_STR(disk->path, spec);
	part->number = PART_WHOLE_DEVICE;
	part->predicted = true;
	if (kind == STACK_LVM) {
		COPY_STR(part->dm_name, dm_name);
		COPY_STR(part->dm_uuid, "LVM-");
	} else if (md) {
		COPY_STR(part->md_name, md);
	} else {
		COPY_STR(part->devpath, spec);
	}
	return 1;
}

/* spec, when it names a device of a stack that is not on set and whose members are. */
static int predict(const struct options *opts, struct disk_set *set, const char *spec)
{
	char dm_name[sizeof(((struct part *)0)->dm_name)];
	enum stack_kind kind = stack_kind_of(spec, dm_name, sizeof(dm_name));
	bool wanted = (kind == STACK_LVM && opts->lvm.enabled) || (kind == STACK_MD && opts->md.enabled);

	if (!wanted || disk_set_find(set, spec, NULL, NULL) != -ENOENT || !has_member(opts, set, kind))
		return 0;
	return add_predicted(set, spec, kind, dm_name);
}

int stack_predict(const struct options *opts, const struct fstab *fstab, struct disk_set *set)
{
	const char *specs[3 + FSTAB_MAX_ENTRIES] = { 0 };
	size_t n_specs = 0;
	int r = 0, n = 0;

	if (opts->root_kind == ROOT_DEVICE)
		specs[n_specs++] = opts->root;
	if (opts->usr && opts->usr_share == SHARE_NONE)
		specs[n_specs++] = opts->usr;
	if (opts->resume && !opts->noresume)
		specs[n_specs++] = opts->resume;
	for (size_t i = 0; fstab && i < fstab->n; i++)
		specs[n_specs++] = fstab->entries[i].what;
	for (size_t i = 0; i < n_specs && r >= 0; i++) {
		r = predict(opts, set, specs[i]);
		n += r > 0 ? r : 0;
	}
	return r < 0 ? r : n;
}
