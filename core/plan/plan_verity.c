/* dm-verity for root and /usr, as systemd reads its command line: a root hash names its data
 * and hash partitions by its first and last 128 bits (the Discoverable Partitions
 * Specification's rule), or systemd.verity_*_data= and _hash= name them. The partition chosen
 * this way replaces the versioned pick, and its mount goes through /dev/mapper/NAME. A hash
 * that finds nothing stops the boot: mounting the data unverified instead is exactly what a
 * verified image must never do. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"


static void pick_init(struct verity_pick *v, const struct verity_spec *spec, const char *name,
		      enum dps_role data_role, enum dps_role hash_role, const char *hash_key)
{
	memset(v, 0, sizeof(*v));
	v->spec = spec->hash ? spec : NULL;
	v->root_hash = spec->hash;
	v->name = name;
	v->data_role = data_role;
	v->hash_role = hash_role;
	v->hash_key = hash_key;
	snprintf(v->mapper, sizeof(v->mapper), DM_MAPPER_DIR "/%s", name);
}

/* root= or mount.usr= may name the verity device itself, which no partition is. */
static int check_device_key(struct planner *p, struct verity_pick *v, const char *key,
			    const char *device)
{
	int r = 0;

	if (!v->spec && device && streq(device, v->mapper))
		r = plan_fail(p, -EINVAL, "%s%s needs %s: nothing else sets up that device", key, device,
			      v->hash_key);
	else if (v->spec && device && !streq(device, v->mapper))
		r = plan_fail(p, -EINVAL, "%s is given, but %s%s names another device: give %s%s, or "
			      "leave %s out to find the partitions by the hash", v->hash_key, key, device,
			      key, v->mapper, key);
	else if (v->spec && device)
		v->named = true;
	return r;
}

static int check_options(struct planner *p, struct verity_pick *v, const char *options)
{
	char why[PLAN_TEXT];
	int r = verity_options_parse(options, &v->options, why, sizeof(why));

	if (r < 0)
		r = plan_fail(p, -EINVAL, "systemd.verity_%s_options=: %s", v->name, why);
	else if (v->options.unknown[0])
		plan_note(p, "systemd.verity_%s_options=: left out what earlymount does not know: %s",
			  v->name, v->options.unknown);
	return r;
}

int plan_verity_resolve_options(struct planner *p)
{
	const struct options *o = p->opts;
	int r = 0;

	pick_init(&p->root_verity, &o->verity_root, "root", DPS_ROOT, DPS_ROOT_VERITY, "roothash=");
	pick_init(&p->usr_verity, &o->verity_usr, "usr", DPS_USR, DPS_USR_VERITY, "usrhash=");
	if (!o->verity && (p->root_verity.spec || p->usr_verity.spec)) {
		plan_note(p, "systemd.verity=no: %s%s%s ignored, mounted unverified",
			  p->root_verity.spec ? "roothash=" : "",
			  p->root_verity.spec && p->usr_verity.spec ? " and " : "",
			  p->usr_verity.spec ? "usrhash=" : "");
		p->root_verity.spec = p->usr_verity.spec = NULL;
		p->root_verity.root_hash = p->usr_verity.root_hash = NULL;
	}
	for (int i = 0; i < 2 && r == 0; i++) {
		const struct verity_pick *v = i ? &p->usr_verity : &p->root_verity;

		if (v->spec && verity_hash_check(v->spec->hash) < 0)
			r = plan_fail(p, -EINVAL, "%s%.40s is not a root hash (64 to 128 hex digits): "
				      "refusing to boot %s unverified", v->hash_key, v->spec->hash, v->name);
	}
	if (r == 0 && p->root_verity.spec && o->root_kind == ROOT_TMPFS)
		r = plan_fail(p, -EINVAL, "roothash= and root=tmpfs: a tmpfs root has nothing to verify");
	if (r == 0)
		r = check_device_key(p, &p->root_verity, "root=",
				     o->root_kind == ROOT_DEVICE ? o->root : NULL);
	if (r == 0)
		r = check_device_key(p, &p->usr_verity, "mount.usr=", o->usr);
	/* they apply to a hash signed on the disk too */
	if (r == 0)
		r = check_options(p, &p->root_verity, o->verity_root.options);
	if (r == 0)
		r = check_options(p, &p->usr_verity, o->verity_usr.options);
	return r;
}

bool plan_verity_names_device(const struct verity_pick *v, const char *device)
{
	return v->named && device && streq(device, v->mapper);
}

/* Where the hash came from, for messages: the command line's key, or the signature partition
 * (whose hash no key gave). */
static const char *hash_origin(const struct verity_pick *v)
{
	static char buf[PLAN_PATH];
	char name[PLAN_PATH];

	if (!v->sig)
		return v->hash_key;
	snprintf(buf, sizeof(buf), "the hash signed on %s",
		 disk_part_name(v->sig_disk, v->sig, name, sizeof(name)));
	return buf;
}

/* The partition whose PARTUUID is uuid: on the boot disk when discovering, else anywhere. */
static int find_by_partuuid(struct planner *p, const struct verity_pick *v, const char *uuid,
			    const char *half, const char *what, const struct part **part,
			    const struct disk **disk)
{
	char spec[sizeof("PARTUUID=") + UUID_STR_LEN], matches[PLAN_ERROR];
	const char *where = v->named || !p->disk ? "any disk" : p->disk->path;
	int r;

	snprintf(spec, sizeof(spec), "PARTUUID=%s", uuid);
	r = disk_set_find(p->disks, spec, part, disk);
	if (r == 0 && !v->named && p->disk && *disk != p->disk)
		r = -ENOENT;
	if (r == -ENOTUNIQ)
		r = plan_fail(p, -ENOTUNIQ, "%s names PARTUUID %s, which several partitions carry (%s; a "
			      "cloned disk?): refusing to pick one", hash_origin(v), uuid,
			      plan_name_matches(p, spec, matches, sizeof(matches)));
	else if (r < 0)
		r = plan_fail_found(p, -ENOENT, "%s names no %spartition of %s: none has PARTUUID %s "
				    "(the hash's %s 128 bits)", hash_origin(v), what, where, uuid, half);
	return r;
}

/* A partition the hash found must be of the type the spec pairs with it. */
static int check_role(struct planner *p, const struct verity_pick *v, const struct part *part,
		      const struct disk *disk, enum dps_role want)
{
	char name[PLAN_PATH];
	int r = 0;

	if (plan_part_role(part) != want)
		r = plan_fail(p, -EPERM, "%s names %s, but it is of type %s, not %s %s partition",
			      hash_origin(v), disk_part_name(disk, part, name, sizeof(name)), part->type,
			      plan_article(dps_role_name(want)), dps_role_name(want));
	return r;
}

static int find_data(struct planner *p, struct verity_pick *v, const char *uuid)
{
	char key[48];
	int r;

	if (v->spec && v->spec->data) {
		snprintf(key, sizeof(key), "systemd.verity_%s_data=", v->name);
		return plan_resolve_spec(p, key, v->spec->data, &v->data, &v->data_disk);
	}
	r = find_by_partuuid(p, v, uuid, "first", "", &v->data, &v->data_disk);
	if (r == 0)
		r = check_role(p, v, v->data, v->data_disk, v->data_role);
	return r;
}

static int find_hash(struct planner *p, struct verity_pick *v, const char *uuid)
{
	char key[48], what[32];
	int r;

	if (v->spec && v->spec->hash_device) {
		snprintf(key, sizeof(key), "systemd.verity_%s_hash=", v->name);
		return plan_resolve_spec(p, key, v->spec->hash_device, &v->hash, &v->hash_disk);
	}
	snprintf(what, sizeof(what), "%s ", dps_role_name(v->hash_role));
	r = find_by_partuuid(p, v, uuid, "last", what, &v->hash, &v->hash_disk);
	if (r == 0)
		r = check_role(p, v, v->hash, v->hash_disk, v->hash_role);
	return r;
}

int plan_verity_choose(struct planner *p, struct verity_pick *v, const struct part **part,
		       const struct disk **disk)
{
	char data_uuid[UUID_STR_LEN], hash_uuid[UUID_STR_LEN], label[LABEL_SHOWN], name[PLAN_PATH];
	char hash_name[PLAN_PATH];
	int r = verity_hash_partuuids(v->root_hash, data_uuid, hash_uuid);

	if (r < 0) {
		r = plan_fail(p, -EINVAL, "%s is not a root hash", hash_origin(v));
		goto out;
	}
	r = find_data(p, v, data_uuid);
	if (r == 0)
		r = find_hash(p, v, hash_uuid);
	if (r == 0 && v->data == v->hash)
		r = plan_fail(p, -EINVAL, "%s: %s cannot hold both the data and its hashes",
			      hash_origin(v), plan_part_name(v->data_disk, v->data, name, sizeof(name)));
	if (r == 0)
		r = plan_refuse_damaged(p, v->hash_disk, v->hash, dps_role_name(v->hash_role));
	/* read at the partition's start: with hash-offset= it lies further in, and is read then */
	if (r == 0 && v->hash->verity_sb_error[0] && !v->options.hash_offset)
		r = plan_fail(p, -EINVAL, "%s: %s, the hash partition, is unusable: %s — was it made by "
			      "veritysetup format or systemd-repart (Verity=hash)?", v->name,
			      plan_part_name(v->hash_disk, v->hash, name, sizeof(name)),
			      v->hash->verity_sb_error);
	if (r < 0)
		goto out;
	*part = v->data;
	*disk = v->data_disk;
	plan_note(p, "%s: %s%s%s%s, verified by dm-verity with the hashes on %s%s", v->name,
		  disk_part_name(v->data_disk, v->data, name, sizeof(name)),
		  v->data->label[0] ? " (label '" : "", plan_label_shown(v->data->label, label),
		  v->data->label[0] ? "')" : "",
		  disk_part_name(v->hash_disk, v->hash, hash_name, sizeof(hash_name)),
		  v->sig ? ", the hash signed on the disk" : "");
out:
	return r;
}

/* How the step names a partition the hash found: by PARTUUID (checked for clones) unless
 * the command line named it. */
static int step_spec(struct planner *p, const char *named, const struct part *part, char *out,
		     size_t size)
{
	if (named)
		return plan_copy_field(p, out, size, named, "verity device");
	return plan_discovered_source(p, part, out, size);
}

static int add_verity_step(struct planner *p, const struct verity_pick *v)
{
	char data[PLAN_PATH], data_name[PLAN_PATH], hash_name[PLAN_PATH];
	struct plan_step *step = NULL;
	int r = plan_check_mapper_free(p, v->mapper);

	if (r == 0)
		r = step_spec(p, v->spec ? v->spec->data : NULL, v->data, data, sizeof(data));
	if (r == 0)
		r = plan_add_step(p, OP_VERITY, data, v->mapper, "", v->data, &step);
	if (r == 0)
		r = step_spec(p, v->spec ? v->spec->hash_device : NULL, v->hash, step->hash_source,
			      sizeof(step->hash_source));
	if (r == 0)
		r = plan_copy_field(p, step->root_hash, sizeof(step->root_hash), v->root_hash, v->hash_key);
	if (r == 0 && v->sig)
		r = plan_discovered_source(p, v->sig, step->sig_source, sizeof(step->sig_source));
	if (r < 0)
		goto out;
	step->hash_part = v->hash;
	step->sig_part = v->sig;
	verity_options_format(&v->options, step->options, sizeof(step->options));
	disk_part_name(v->data_disk, v->data, data_name, sizeof(data_name));
	disk_part_name(v->hash_disk, v->hash, hash_name, sizeof(hash_name));
	if (v->sig)
		plan_step_reason(step, "the signed root hash %.16s… on partition %u: %s, its hashes on %s",
				 v->root_hash, v->sig->number, data_name, hash_name);
	else
		plan_step_reason(step, "%s%.16s…: %s, its hashes on %s", v->hash_key, v->root_hash,
				 data_name, hash_name);
out:
	return r;
}

int plan_verity_mount_source(struct planner *p, const struct verity_pick *v, const char *fstype,
			     struct mount_flags *flags, const char **spec, const struct part **part)
{
	int r = 0;

	if (!v->root_hash)
		goto out;
	r = add_verity_step(p, v);
	if (r < 0)
		goto out;
	if (flags->rw)
		plan_note(p, "%s mounted read-only although rw was given: a dm-verity device is read-only",
			  v->name);
	flags->rw = false;
	/* The device can never be written: a journal left to replay could only stop the mount. */
	flags->norecovery = plan_fstype_journalled(fstype);
	*spec = v->mapper;
	*part = NULL;
out:
	return r;
}

static bool used_by(const struct verity_pick *v, const struct part *part)
{
	return v->root_hash && (v->hash == part || v->sig == part);
}

/* Whether the signature partition sig signs the root (or /usr) the command line named. */
static bool signs_named(const struct planner *p, const struct part *sig, bool root_side)
{
	const struct part *named = root_side ? (p->root_explicit ? p->root : NULL)
					     : (p->usr_explicit ? p->usr : NULL);
	char data[UUID_STR_LEN], hash[UUID_STR_LEN];

	return named && sig->verity_sig_hash[0] &&
	       verity_hash_partuuids(sig->verity_sig_hash, data, hash) == 0 &&
	       uuid_str_equal(data, named->partuuid);
}

/* What is not set up is said: a root that could have been verified and was not is mounted
 * the way systemd mounts it then, unverified, but never silently. */
void plan_note_verity(struct planner *p)
{
	for (size_t i = 0; p->disk && i < p->disk->n_parts; i++) {
		const struct part *part = &p->disk->parts[i];
		enum dps_role role = plan_part_role(part);
		bool root_side = role == DPS_ROOT_VERITY || role == DPS_ROOT_VERITY_SIG;
		bool sig = role == DPS_ROOT_VERITY_SIG || role == DPS_USR_VERITY_SIG;
		const struct verity_pick *v = root_side ? &p->root_verity : &p->usr_verity;

		if ((!sig && role != DPS_ROOT_VERITY && role != DPS_USR_VERITY) || used_by(v, part))
			continue;
		if (v->root_hash)
			plan_note(p, "partition %u (%s) not used: %s is verified with partition %u",
				  part->number, dps_role_name(role), v->name, v->hash->number);
		else if (sig && part->verity_sig_error[0])
			plan_note(p, "partition %u (%s) unusable: %s", part->number, dps_role_name(role),
				  part->verity_sig_error);
		else if (sig && signs_named(p, part, root_side))
			plan_note(p, "partition %u (%s) not used: it signs partition %u, which %s names "
				  "itself; a signature is used when discovery picks the %s (or give %s)",
				  part->number, dps_role_name(role), root_side ? p->root->number :
				  p->usr->number, root_side ? "root=" : "mount.usr=", v->name, v->hash_key);
		else if (sig)
			plan_note(p, "partition %u (%s) not used: its hash names no %s partition chosen here",
				  part->number, dps_role_name(role), v->name);
		else
			plan_note(p, "partition %u (%s) not used: no %s on the command line and no signature "
				  "for it, %s mounted unverified", part->number, dps_role_name(role),
				  v->hash_key, v->name);
	}
}

static enum dps_role signature_role(enum dps_role data_role)
{
	return data_role == DPS_ROOT ? DPS_ROOT_VERITY_SIG : DPS_USR_VERITY_SIG;
}

/* A signature partition of disk for data_role whose root hash names data (any, when data
 * is NULL). */
static const struct part *find_signature(const struct disk *disk, enum dps_role data_role,
					 const struct part *data)
{
	char data_uuid[UUID_STR_LEN], hash_uuid[UUID_STR_LEN];

	for (size_t i = 0; i < disk->n_parts; i++) {
		const struct part *sig = &disk->parts[i];

		if (plan_part_role(sig) == signature_role(data_role) && sig->verity_sig_hash[0] &&
		    verity_hash_partuuids(sig->verity_sig_hash, data_uuid, hash_uuid) == 0 &&
		    (!data || uuid_str_equal(data_uuid, data->partuuid)))
			return sig;
	}
	return NULL;
}

/* A disk that signs its root (or /usr) versions has every version signed: one without a
 * signature is what anyone who can write to the disk could add, or what a fallback from a
 * version that failed its check must not land on. */
bool plan_verity_unsigned_on_signed_disk(const struct planner *p, const struct disk *disk,
					 const struct part *part, enum dps_role role)
{
	return p->opts->verity && (role == DPS_ROOT || role == DPS_USR) &&
	       find_signature(disk, role, NULL) && !find_signature(disk, role, part);
}

/* A discovered root or /usr whose hash is signed on the disk is verified with it; where a
 * signature partition of its kind cannot be read, it may be this one's: no guess is made. */
int plan_verity_from_signature(struct planner *p, struct verity_pick *v, const struct part *data)
{
	enum dps_role sig_role = signature_role(v->data_role);
	char name[PLAN_PATH], bad_name[PLAN_PATH];
	const struct part *sig;
	const struct part *part;
	const struct disk *disk;
	int r = 0;

	if (!p->opts->verity || v->root_hash || !data || !p->disk)
		goto out;
	sig = find_signature(p->disk, v->data_role, data);
	for (size_t i = 0; !sig && i < p->disk->n_parts && r == 0; i++) {
		const struct part *bad = &p->disk->parts[i];

		if (plan_part_role(bad) == sig_role && bad->verity_sig_error[0])
			r = plan_fail(p, -EPERM, "%s (%s) is unusable: %s — the %s, %s, cannot be "
				      "verified: give %s, or systemd.verity=no to mount it unverified",
				      disk_part_name(p->disk, bad, bad_name, sizeof(bad_name)),
				      dps_role_name(sig_role), bad->verity_sig_error, v->name,
				      disk_part_name(p->disk, data, name, sizeof(name)), v->hash_key);
	}
	if (!sig || r < 0)
		goto out;
	v->root_hash = sig->verity_sig_hash;
	v->sig = sig;
	v->sig_disk = p->disk;
	r = plan_verity_choose(p, v, &part, &disk);
out:
	return r;
}
