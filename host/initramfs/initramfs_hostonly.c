/* `earlymount initramfs --host-only`: the walk. Finds the devices behind this host's / and
 * /usr in mountinfo and sysfs (both paths can point at a fixture tree), hands the records to
 * the pure decision (host/initramfs/hostonly.c) and adds what it names through libkmod. */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "fstab.h"
#include "hostonly.h"
#include "initramfs.h"
#include "log.h"
#include "sysfs.h"
#include "util.h"

/* The mount points whose devices the image must reach. */
static const char *const hostonly_mount_points[] = { "/", "/usr" };

/* One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE
 * SUPEROPTS". 0 when it describes where, with its numbers, type and source filled in. */
static int mountinfo_line(char *line, const char *where, unsigned *major, unsigned *minor,
			  struct hostonly_mount *m)
{
	char *save = NULL, *field[5] = { 0 }, *tok, *fstype = NULL, *source = NULL;
	unsigned maj, min;
	size_t n = 0;
	int r = -ENOENT;

	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (n < ARRAY_SIZE(field)) {
			field[n++] = tok;
		} else if (streq(tok, "-")) {
			fstype = strtok_r(NULL, " \n", &save);
			source = strtok_r(NULL, " \n", &save);
			break;
		}
	}
	if (n < ARRAY_SIZE(field) || !fstype || !source ||
	    sscanf(field[2], "%u:%u", &maj, &min) != 2)
		goto out;
	fstab_unescape(field[4]); /* mountinfo escapes as fstab does */
	if (!streq(field[4], where))
		goto out;
	fstab_unescape(source);
	if (COPY_STR(m->fstype, fstype) < 0 || COPY_STR(m->source, source) < 0)
		goto out;
	*major = maj;
	*minor = min;
	r = 0;
out:
	return r;
}

/* The last mount on where wins: it hides those before it. -ENODATA when nothing is mounted
 * there (a /usr on the root filesystem). */
static int find_mount(const char *mountinfo, const char *where, unsigned *major, unsigned *minor,
		      struct hostonly_mount *m)
{
	FILE *f = fopen(mountinfo, "re");
	char line[4096];
	int r = -ENODATA;

	if (!f) {
		r = -errno;
		log_err("--host-only: unable to read %s: %s", mountinfo, strerror(-r));
		goto out;
	}
	while (fgets(line, sizeof(line), f))
		if (mountinfo_line(line, where, major, minor, m) == 0)
			r = 0;
	fclose(f);
out:
	return r;
}

/* The last component of what the link at dir/name points to, or "" when there is none. */
static void read_link_name(const char *dir, const char *name, char *out, size_t size)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n = -1;

	out[0] = '\0';
	if (path_join(path, sizeof(path), dir, name) == 0)
		n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	copy_str(out, size, strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
}

/* The first line of dir/name, or "" when there is none. */
static void read_line(const char *dir, const char *name, char *out, size_t size)
{
	char path[PATH_MAX];
	FILE *f = NULL;

	out[0] = '\0';
	if (path_join(path, sizeof(path), dir, name) == 0)
		f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(out, (int)size, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

static bool has_entry(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return path_join(path, sizeof(path), dir, name) == 0 && access(path, F_OK) == 0;
}

struct walk {
	const char *sysfs;  /* resolved */
	char devices[PATH_MAX]; /* sysfs/devices: where a device's ancestors end */
	struct hostonly_mount *m;
};

static int record_device(struct walk *w, const char *dir)
{
	struct hostonly_device *d;
	const char *rel = startswith(dir, w->sysfs);
	int r = 0;

	/* two partitions of one disk under a dm device: their ancestors once */
	for (size_t i = 0; i < w->m->n_devices; i++)
		if (streq(w->m->devices[i].path, rel ? rel : dir))
			goto out;
	if (w->m->n_devices == HOSTONLY_MAX_DEVICES) {
		r = -ENOBUFS;
		log_err("--host-only: more than %d devices behind %s; the chain at %s is too deep to follow",
			HOSTONLY_MAX_DEVICES, w->m->where, dir);
		goto out;
	}
	d = &w->m->devices[w->m->n_devices];
	memset(d, 0, sizeof(*d));
	copy_str(d->path, sizeof(d->path), rel ? rel : dir);
	read_link_name(dir, "driver", d->driver, sizeof(d->driver));
	read_link_name(dir, "driver/module", d->module, sizeof(d->module));
	read_line(dir, "modalias", d->modalias, sizeof(d->modalias));
	read_line(dir, "dm/uuid", d->dm_uuid, sizeof(d->dm_uuid));
	read_line(dir, "dm/name", d->dm_name, sizeof(d->dm_name));
	read_line(dir, "md/level", d->md_level, sizeof(d->md_level));
	read_line(dir, "md/metadata_version", d->md_metadata, sizeof(d->md_metadata));
	w->m->n_devices++;
out:
	return r;
}

/* The disk and every ancestor up to sysfs/devices: controller, bridges, bus. */
static int walk_ancestors(struct walk *w, const char *disk)
{
	char dir[PATH_MAX];
	char *slash;
	int r = COPY_STR(dir, disk);

	while (r == 0 && startswith(dir, w->devices) && !streq(dir, w->devices)) {
		if (has_entry(dir, "uevent"))
			r = record_device(w, dir);
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return r;
}

static int walk_block(struct walk *w, const char *link, unsigned depth);

/* A stacked device: itself, then what it is made of, the links in its directory sub:
 * "slaves" of device-mapper (dm-crypt, dm-verity), "multipath" of an NVMe namespace that the
 * kernel shows once for all its paths (its directory is virtual, its paths' are below their
 * controllers). */
static int walk_stack(struct walk *w, const char *dir, const char *sub, unsigned depth)
{
	char slaves[PATH_MAX], link[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int r = record_device(w, dir);

	if (r < 0 || path_join(slaves, sizeof(slaves), dir, sub) < 0 || !(d = opendir(slaves)))
		goto out;
	while (r == 0 && (e = readdir(d)))
		if (e->d_name[0] != '.' && path_join(link, sizeof(link), slaves, e->d_name) == 0)
			r = walk_block(w, link, depth + 1);
	closedir(d);
out:
	return r;
}

static bool dir_has_entries(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	if (path_join(path, sizeof(path), dir, name) < 0 || !(d = opendir(path)))
		return false;
	while (!found && (e = readdir(d)))
		found = e->d_name[0] != '.';
	closedir(d);
	return found;
}

static int walk_block(struct walk *w, const char *link, unsigned depth)
{
	char dir[PATH_MAX];
	int r = 0;

	if (depth > 8) {
		r = -ELOOP;
		log_err("--host-only: the devices behind %s stack more than 8 deep at %s", w->m->where, link);
		goto out;
	}
	if (!realpath(link, dir)) {
		r = -errno;
		log_err("--host-only: unable to follow %s (behind %s): %s", link, w->m->where, strerror(-r));
		goto out;
	}
	if (dir_has_entries(dir, "slaves")) {
		r = walk_stack(w, dir, "slaves", depth);
		goto out;
	}
	/* a partition's parent directory is its disk */
	if (has_entry(dir, "partition"))
		*strrchr(dir, '/') = '\0';
	if (dir_has_entries(dir, "multipath"))
		r = walk_stack(w, dir, "multipath", depth);
	else
		r = walk_ancestors(w, dir);
out:
	return r;
}

static void log_mount(const struct hostonly_mount *m, FILE *out)
{
	char line[1024];
	size_t n = 0;

	line[0] = '\0';
	for (size_t i = 0; i < m->n_devices && n < sizeof(line); i++) {
		const struct hostonly_device *d = &m->devices[i];
		const char *base = strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path;

		if (!d->driver[0] && !d->dm_uuid[0])
			continue;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s (%s)", n ? ", " : "", base,
				      d->dm_uuid[0] ? "device-mapper" : d->module[0] ? d->module : d->driver);
	}
	fprintf(out, "host-only: %s: %s on %s%s, through %s\n", m->where, m->fstype, m->source,
		m->btrfs_devices > 1 ? " and the other devices of its btrfs" : "",
		line[0] ? line : "no bound driver");
}

/* The directory sysfs/fs/btrfs/FSID/devices of the btrfs that has the block device name
 * among its devices, and how many it has; false when none has. */
static bool btrfs_devices_dir(const char *sysfs, const char *name, char *out, size_t size,
			      unsigned *count)
{
	char dir[PATH_MAX];
	struct dirent *e, *f;
	bool mine = false;
	DIR *fs, *d;

	if (path_join(dir, sizeof(dir), sysfs, "fs/btrfs") < 0 || !(fs = opendir(dir)))
		return false;
	while (!mine && (e = readdir(fs))) {
		*count = 0;
		if (e->d_name[0] == '.' ||
		    snprintf(out, size, "%s/%s/devices", dir, e->d_name) >= (int)size ||
		    !(d = opendir(out)))
			continue;
		while ((f = readdir(d)))
			if (f->d_name[0] != '.') {
				(*count)++;
				mine = mine || streq(f->d_name, name);
			}
		closedir(d);
	}
	closedir(fs);
	return mine;
}

/* A btrfs over several devices: each of them, as the mount's own. */
static int walk_btrfs(struct walk *w, const char *devices)
{
	char link[PATH_MAX];
	struct dirent *e;
	int r = 0;
	DIR *d = opendir(devices);

	while (d && r == 0 && (e = readdir(d)))
		if (e->d_name[0] != '.' && path_join(link, sizeof(link), devices, e->d_name) == 0)
			r = walk_block(w, link, 0);
	if (d)
		closedir(d);
	return r;
}

/* The block device (its name in sysfs/class/block) a source names: /dev/NAME, or
 * /dev/mapper/NAME by the device-mapper names sysfs lists. btrfs reports an anonymous
 * device number, so its source is all there is. */
static bool source_block_name(const char *sysfs, const char *source, char *out, size_t size)
{
	const char *base = startswith(source, "/dev/");
	const char *dm = startswith(source, "/dev/mapper/");
	char dir[PATH_MAX], path[PATH_MAX], name[HOSTONLY_NAME_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	if (base && !strchr(base, '/'))
		return copy_str(out, size, base) == 0;
	if (!dm || path_join(dir, sizeof(dir), sysfs, "class/block") < 0 || !(d = opendir(dir)))
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.' || path_join(path, sizeof(path), dir, e->d_name) < 0)
			continue;
		read_line(path, "dm/name", name, sizeof(name));
		found = name[0] && streq(name, dm) && copy_str(out, size, e->d_name) == 0;
	}
	closedir(d);
	return found;
}

/* Fills m for the mount at where; -ENODATA when nothing is mounted there (not reported). */
static int read_mount(struct walk *w, const char *mountinfo, struct hostonly_mount *m)
{
	char link[PATH_MAX], name[HOSTONLY_NAME_MAX], devices[PATH_MAX];
	unsigned major = 0, minor = 0;
	int r = find_mount(mountinfo, m->where, &major, &minor, m);

	if (r < 0)
		goto out;
	if (major != 0)
		snprintf(link, sizeof(link), "%s/dev/block/%u:%u", w->sysfs, major, minor);
	else if (source_block_name(w->sysfs, m->source, name, sizeof(name)))
		snprintf(link, sizeof(link), "%s/class/block/%s", w->sysfs, name);
	else
		goto out;
	m->block = access(link, F_OK) == 0;
	if (!m->block)
		goto out;
	w->m = m;
	if (streq(m->fstype, "btrfs") && major == 0 &&
	    btrfs_devices_dir(w->sysfs, name, devices, sizeof(devices), &m->btrfs_devices))
		r = walk_btrfs(w, devices);
	else
		r = walk_block(w, link, 0);
out:
	return r;
}

int hostonly_read_mount(const char *sysfs, const char *mountinfo, struct hostonly_mount *m)
{
	struct walk w = { .sysfs = sysfs };
	int r = path_join(w.devices, sizeof(w.devices), sysfs, "devices");

	return r < 0 ? r : read_mount(&w, mountinfo, m);
}

/* --print-needs and --print-crypttab: stdout is the answer, the walk says nothing. */
static bool walk_quiet(const struct builder *b)
{
	return b->print_needs || b->print_crypttab;
}

/* An x-initrd.mount entry not mounted now: the devices under it cannot be walked, but the boot
 * mounts it, so its filesystem's module (and checker) is the image's. "" and "auto" name no
 * type: the boot probes one, and only another mount's module can serve it. */
static int choose_unmounted(struct builder *b, const struct fstab_entry *e, struct hostonly_choice *choice)
{
	int r = 0;

	if (!e->type[0] || streq(e->type, "auto") || streq(e->type, "swap"))
		goto out;
	r = hostonly_choose_fstype(e->type, choice);
	if (r == 0)
		r = name_list_add_once(&b->host_fstypes, e->type);
	if (r == 0 && !walk_quiet(b))
		fprintf(b->print_modules ? stderr : stdout,
			"host-only: %s: not mounted now: %s's module is in the image, the drivers of %s only if another mount needs them\n",
			e->where, e->type, e->what);
out:
	return r;
}

/* The devices under where and its filesystem into choice; entry: the fstab's, for an
 * x-initrd.mount entry (NULL for / and /usr). */
static int choose_mount(struct builder *b, struct walk *w, const char *where,
			const struct fstab_entry *entry, struct hostonly_choice *choice)
{
	struct hostonly_mount *m = calloc(1, sizeof(*m));
	int r = -ENOMEM;

	if (!m)
		goto out;
	m->where = where;
	r = read_mount(w, b->mountinfo, m);
	if (r == -ENODATA && !streq(where, "/")) {
		/* /usr on the root filesystem, or an fstab entry not mounted now */
		r = entry ? choose_unmounted(b, entry, choice) : 0;
		goto out;
	}
	if (r == -ENODATA)
		log_err("--host-only: %s names no mount on /: is it a mountinfo file (/proc/self/mountinfo)?",
			b->mountinfo);
	if (r < 0)
		goto out;
	r = name_list_add_once(&b->host_fstypes, m->fstype);
	if (r == 0)
		r = hostonly_choose(m, choice);
	if (r == -EOPNOTSUPP)
		log_err("--host-only: %s, which earlymount cannot assemble at boot: an image made for "
			"this host would not boot it; keep the distribution's initramfs here (the "
			"generators: EARLYMOUNT=no)", choice->unsupported);
	else if (r == -ENOTBLK && !walk_quiet(b))
		log_err("--host-only: %s is %s from %s, not on a block device of %s: there is no disk whose drivers to pick; build the default set (without --host-only: it has 9p, virtiofs and overlay), or name the modules with --module",
			where, m->fstype, m->source, w->sysfs);
	else if (r == -ENOBUFS)
		log_err("--host-only: the devices behind %s need more modules than earlymount keeps", where);
	else if (r == 0 && !walk_quiet(b))
		/* --print-modules: stdout is the list */
		log_mount(m, b->print_modules ? stderr : stdout);
out:
	free(m);
	return r;
}

static int add_choice(struct builder *b, const struct hostonly_choice *choice)
{
	int r = 0;

	for (size_t i = 0; i < choice->n && r == 0; i++) {
		r = initramfs_choose_module(b, choice->names[i]);
		/* a bridge's or bus's modalias that no module claims: its driver is built in */
		if (r == -ENOENT && strchr(choice->names[i], ':'))
			r = 0;
		else if (r == -ENOENT)
			r = name_list_add(&b->absent, choice->names[i]);
	}
	return r;
}

/* The x-initrd.mount entries of the fstab: the boot mounts them too, so their devices' drivers
 * and stacks are the image's as well. Network entries are not the image's to reach. */
static int walk_initrd_entries(struct builder *b, struct walk *w, struct hostonly_choice *choice)
{
	static char text[FSTAB_TEXT_MAX + 1];
	static struct fstab fstab;
	ssize_t n = read_file_at(AT_FDCWD, b->fstab, text, sizeof(text));
	int r = 0;

	if (n < 0)
		goto out; /* no fstab: nothing more to mount */
	fstab_parse_initrd(text, (size_t)n, &fstab);
	for (size_t i = 0; i < fstab.n && r == 0; i++) {
		const struct fstab_entry *e = &fstab.entries[i];

		if (!e->network && !streq(e->where, "/") && !streq(e->where, "/usr"))
			r = choose_mount(b, w, e->where, e, choice);
	}
out:
	return r;
}

/* The walk of /, /usr and the x-initrd.mount entries into choice; sysfs gets the resolved
 * --sysfs. */
/* The drivers of the host's network controllers (sysfs/class/net/IFACE/device: virtual
 * interfaces have none), for an NFS root. */
static int choose_net_devices(const char *sysfs, struct hostonly_choice *choice)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], modalias[HOSTONLY_NAME_MAX];
	struct dirent *e;
	DIR *d;
	int r = path_join(dir, sizeof(dir), sysfs, "class/net");

	d = r == 0 ? opendir(dir) : NULL;
	while (d && r == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/device/modalias", dir, e->d_name) <
			    (int)sizeof(path) &&
		    sysfs_read_line_at(AT_FDCWD, path, modalias, sizeof(modalias)))
			r = hostonly_choose_modalias(modalias, choice);
	}
	if (d)
		closedir(d);
	return r;
}

static int walk_host(struct builder *b, struct hostonly_choice *choice, char sysfs[PATH_MAX])
{
	struct walk w = { 0 };
	int r = 0;

	if (!realpath(b->sysfs, sysfs)) {
		r = -errno;
		log_err("--host-only: unable to open %s (--sysfs): %s", b->sysfs, strerror(-r));
		goto out;
	}
	w.sysfs = sysfs;
	r = path_join(w.devices, sizeof(w.devices), sysfs, "devices");
	for (size_t i = 0; i < ARRAY_SIZE(hostonly_mount_points) && r == 0; i++)
		r = choose_mount(b, &w, hostonly_mount_points[i], NULL, choice);
	if (r == 0)
		r = walk_initrd_entries(b, &w, choice);
	if (r == 0 && choice->network)
		r = choose_net_devices(sysfs, choice);
out:
	return r;
}

/* What the walk found on dm-crypt, for the crypttab the image gets. */
static void keep_crypt(struct builder *b, const struct hostonly_choice *choice)
{
	b->n_host_crypt = choice->n_crypt;
	memcpy(b->host_crypt, choice->crypt, choice->n_crypt * sizeof(choice->crypt[0]));
}

/* The walk alone, into choice, which the caller frees; the dm-crypt volumes found kept in b. A
 * host not on a block device (a share, tmpfs) has nothing to assemble: 0. */
static int walk_alone(struct builder *b, struct hostonly_choice **choice)
{
	char sysfs[PATH_MAX];
	int r;

	*choice = calloc(1, sizeof(**choice));
	r = *choice ? walk_host(b, *choice, sysfs) : -ENOMEM;
	if (r == -ENOTBLK)
		r = 0;
	if (r == 0)
		keep_crypt(b, *choice);
	return r;
}

int initramfs_walk_host_crypt(struct builder *b)
{
	struct hostonly_choice *choice;
	int r = walk_alone(b, &choice);

	free(choice);
	return r;
}

int initramfs_print_host_needs(struct builder *b)
{
	struct hostonly_choice *choice;
	int r = walk_alone(b, &choice);

	if (r == 0 && choice->luks)
		printf("luks\n");
	if (r == 0 && choice->lvm)
		printf("lvm\n");
	if (r == 0 && choice->md)
		printf("md\n");
	if (r == 0 && choice->network)
		printf("network\n");
	free(choice);
	return r;
}

int initramfs_choose_host_modules(struct builder *b)
{
	struct hostonly_choice *choice = calloc(1, sizeof(*choice));
	char sysfs[PATH_MAX], efi[PATH_MAX];
	int r = -ENOMEM;

	if (!choice)
		goto out;
	r = walk_host(b, choice, sysfs);
	/* --print-modules: the generator decides on the helper itself */
	if (r == 0 && choice->luks && !b->luks && !b->print_modules) {
		log_err("--host-only: /, /usr or an x-initrd.mount entry is on dm-crypt: pass --luks, so that the image can unlock it");
		r = -EINVAL;
	}
	if (r == 0 && choice->lvm && !b->lvm && !b->print_modules) {
		log_err("--host-only: /, /usr or an x-initrd.mount entry is on an LVM logical volume: pass --lvm, so that the "
			"image can activate its volume group");
		r = -EINVAL;
	}
	if (r == 0 && choice->md && !b->md && !b->print_modules) {
		log_err("--host-only: /, /usr or an x-initrd.mount entry is on an md RAID array: pass --md, so that the image can "
			"assemble it");
		r = -EINVAL;
	}
	if (r == 0 && choice->network && !b->network && !b->print_modules) {
		log_err("--host-only: /, /usr or an x-initrd.mount entry is over NFS: pass --network, so that "
			"the image can bring up the network and mount it");
		r = -EINVAL;
	}
	if (r == 0)
		keep_crypt(b, choice);
	if (r == 0 && path_join(efi, sizeof(efi), sysfs, "firmware/efi") == 0 && access(efi, F_OK) == 0)
		r = hostonly_choose_efi(choice);
	if (r == 0)
		r = add_choice(b, choice);
out:
	free(choice);
	return r;
}
