/* The planner on hostile disks: any number of disks and partitions with any type, PARTUUID,
 * label, flags, range and filesystem, a command line and machine facts. Every answer must be
 * one plan.h documents, a plan that succeeds must mount a root under /sysroot, and a refusal
 * that speaks of a partition names its disk (tests/unit/plan_refusal.h).
 *
 * Input layout: two bytes give the length L of the command line, which is the last L bytes;
 * the bytes before it describe the machine and the disks (see decode_*), and last the
 * image's crypttab: entries made of installers' names, the disks' UUIDs and the options the
 * boot acts on, refuses or passes over, written out and read back by crypttab_parse(). */
#include "cmdline.h"
#include "crypttab.h"
#include "dps.h"
#include "fuzz.h"
#include "luks.h"
#include "uuid.h"

#define MAX_DISKS 5
#define MAX_PARTS 24

/* A few PARTUUIDs used over and over, so that duplicates (cloned disks) are common; the
 * last is the /var PARTUUID of the machine ID below. */
static const char *const partuuids[] = {
	"00000101-0000-4000-8000-000000000000", "00000102-0000-4000-8000-000000000000",
	"00000201-0000-4000-8000-000000000000", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B",
	"6028e3a1-54ef-41be-90b1-c54f2e22254c",
	/* the halves of the root hash in cmdline.dict */
	"6fd5c1a7-a7ae-4f2b-9d0e-0f8f3e7b2c1a", "0aaf6ee3-d3d3-b8b1-c2e2-f9a8b7c6d5e4",
};
static const uint8_t known_machine_id[16] = {
	0xcc, 0x1f, 0xed, 0x1f, 0x50, 0xba, 0x43, 0xcd, 0xa3, 0x95, 0x77, 0x33, 0x3c, 0x5d, 0x05, 0x04,
};

static const char *const labels[] = {
	"root", "_empty", "root-1.10", "root-1.9", "root-1.9.1", "usr-2", "usr-10", "root-",
	"\xff\xfe", "caf\xc3\xa9", "\xe2\x82", "a\nb\tc\x7f", "",
};

/* What the probe leaves of a partition with several filesystem signatures: no type. */
#define SEVERAL "(several signatures)"

static const char *const fstypes[] = {
	"", "ext4", "vfat", "xfs", "btrfs", "erofs", "squashfs", "f2fs", "swap", "crypto_LUKS",
	"LVM2_member", "ntfs", "iso9660", "linux_raid_member", "bcache", "swsuspend",
	"isw_raid_member", SEVERAL,
};

static const char *const pttypes[] = { "gpt", "gpt", "gpt", "dos", "", "PMBR", "atari" };

static const uint64_t flag_bits[] = {
	GPT_FLAG_NO_AUTO, GPT_FLAG_READ_ONLY, GPT_FLAG_GROWFS, GPT_FLAG_NO_BLOCK_IO, UINT64_C(1), UINT64_C(4),
};

static const char *pick(struct fuzz_reader *r, const char *const *list, size_t n)
{
	return list[fuzz_u8(r) % n];
}

#define PICK(r, list) pick((r), (list), sizeof(list) / sizeof((list)[0]))

static void random_uuid(struct fuzz_reader *r, char out[UUID_STR_LEN], bool upper)
{
	uint8_t b[16];

	for (size_t i = 0; i < 16; i++)
		b[i] = fuzz_u8(r);
	uuid_format(b, out);
	for (char *c = out; upper && *c; c++)
		if (*c >= 'a' && *c <= 'f')
			*c = (char)(*c - 'a' + 'A');
}

static void decode_type(struct fuzz_reader *r, char out[UUID_STR_LEN])
{
	uint8_t how = fuzz_u8(r);
	const char *uuid;

	if (how < 200) {
		uuid = dps_type_uuid((enum dps_role)(fuzz_u8(r) % DPS_ROLE_MAX),
				     (enum arch)(fuzz_u8(r) % ARCH_MAX));
		snprintf(out, UUID_STR_LEN, "%s", uuid ? uuid : "");
		/* Types compare case-insensitively: some arrive in upper case. */
		for (char *c = out; how >= 180 && *c; c++)
			if (*c >= 'a' && *c <= 'f')
				*c = (char)(*c - 'a' + 'A');
	} else if (how < 220) {
		random_uuid(r, out, false);
	} else if (how < 235) {
		snprintf(out, UUID_STR_LEN, "0x%02x", fuzz_u8(r));
	} else {
		fuzz_raw_string(r, out, UUID_STR_LEN);
	}
}

static void decode_partuuid(struct fuzz_reader *r, char out[UUID_STR_LEN])
{
	uint8_t how = fuzz_u8(r);

	if (how < 150)
		snprintf(out, UUID_STR_LEN, "%s", PICK(r, partuuids));
	else if (how < 230)
		random_uuid(r, out, how >= 220);
	else if (how < 245)
		out[0] = '\0';
	else
		fuzz_raw_string(r, out, UUID_STR_LEN);
}

static uint64_t decode_flags(struct fuzz_reader *r)
{
	uint8_t how = fuzz_u8(r);
	uint64_t flags = 0;

	if (how >= 240)
		return fuzz_u64(r);
	for (size_t i = 0; i < sizeof(flag_bits) / sizeof(flag_bits[0]); i++)
		if (how & (1u << i))
			flags |= flag_bits[i];
	return flags;
}

static uint64_t decode_range(struct fuzz_reader *r)
{
	switch (fuzz_u8(r) % 5) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX - fuzz_u8(r);
	case 2:
		return (uint64_t)fuzz_u8(r) << 20;
	default:
		return fuzz_u64(r);
	}
}

static void decode_string(struct fuzz_reader *r, char *out, size_t size, const char *const *list,
			  size_t n)
{
	uint8_t how = fuzz_u8(r);

	if (how < 200)
		snprintf(out, size, "%s", list[how % n]);
	else
		fuzz_raw_string(r, out, size);
}

/* What the probe reads of a signature partition: a root hash made of two PARTUUIDs, an
 * error, or nothing. */
static void decode_signature(struct fuzz_reader *r, struct part *part)
{
	uint8_t how = fuzz_u8(r);
	const char *a, *b;
	size_t n = 0;

	if (how < 192)
		return;
	if (how < 208) {
		snprintf(part->verity_sig_error, sizeof(part->verity_sig_error), "no signature");
		return;
	}
	a = PICK(r, partuuids);
	b = PICK(r, partuuids);
	for (const char *s = a; *s; s++)
		if (*s != '-')
			part->verity_sig_hash[n++] = *s;
	for (const char *s = b; *s; s++)
		if (*s != '-')
			part->verity_sig_hash[n++] = *s;
	part->verity_sig_hash[n] = '\0';
}

static int decode_part(struct fuzz_reader *r, struct disk *disk, size_t index)
{
	struct part *part = disk_add_part(disk);
	uint8_t how;

	if (!part)
		return -ENOMEM;
	how = fuzz_u8(r);
	/* Mostly 1, 2, 3…; sometimes 0 or a repeat. */
	part->number = how < 200 ? (unsigned)index + 1 : how - 200u;
	decode_type(r, part->type);
	decode_partuuid(r, part->partuuid);
	how = fuzz_u8(r);
	if (how < 200)
		snprintf(part->label, sizeof(part->label), "%s", labels[how % (sizeof(labels) / sizeof(labels[0]))]);
	else if (how < 250)
		fuzz_raw_string(r, part->label, sizeof(part->label));
	else
		memset(part->label, 'L', sizeof(part->label) - 1);
	part->flags = decode_flags(r);
	part->start = decode_range(r);
	part->size = decode_range(r);
	decode_string(r, part->fstype, sizeof(part->fstype), fstypes, sizeof(fstypes) / sizeof(fstypes[0]));
	part->fs_ambiguous = strcmp(part->fstype, SEVERAL) == 0;
	if (part->fs_ambiguous)
		part->fstype[0] = '\0';
	how = fuzz_u8(r);
	if (how < 128)
		snprintf(part->fsuuid, sizeof(part->fsuuid), "f500%04zu-0000-4000-8000-000000000000", index % 4);
	else
		fuzz_raw_string(r, part->fsuuid, sizeof(part->fsuuid));
	how = fuzz_u8(r);
	if (how < 128)
		snprintf(part->fslabel, sizeof(part->fslabel), "%s", how < 64 ? "root" : "");
	else
		fuzz_raw_string(r, part->fslabel, sizeof(part->fslabel));
	how = fuzz_u8(r);
	if (how < 128)
		snprintf(part->devpath, sizeof(part->devpath), "%s%zu", disk->path, index + 1);
	else if (how < 192)
		part->devpath[0] = '\0';
	else
		fuzz_raw_string(r, part->devpath, sizeof(part->devpath));
	decode_signature(r, part);
	return 0;
}

static int decode_disk(struct fuzz_reader *r, struct disk_set *set, size_t index)
{
	struct disk *disk = disk_set_add(set);
	uint8_t how, n_parts;
	int ret = 0;

	if (!disk)
		return -ENOMEM;
	how = fuzz_u8(r);
	if (how < 200)
		snprintf(disk->path, sizeof(disk->path), "/dev/vd%c", (char)('a' + index));
	else if (how < 250)
		fuzz_raw_string(r, disk->path, sizeof(disk->path));
	else
		memset(disk->path, '/', sizeof(disk->path) - 1);
	how = fuzz_u8(r);
	snprintf(disk->pttype, sizeof(disk->pttype), "%s", PICK(r, pttypes));
	disk->removable = how & 1;
	if (how & 2)
		random_uuid(r, disk->ptuuid, how & 4);
	else
		snprintf(disk->ptuuid, sizeof(disk->ptuuid), "d15c%04zu-0000-4000-8000-000000000000", index);
	disk->sector_size = 512;
	n_parts = fuzz_u8(r) % (MAX_PARTS + 1);
	for (size_t i = 0; i < n_parts && ret == 0; i++)
		ret = decode_part(r, disk, i);
	return ret;
}

/* Any partition's PARTUUID, so the firmware's word often names a real one. */
static const char *some_partuuid(const struct disk_set *set, uint8_t which)
{
	size_t seen = 0;

	for (size_t d = 0; d < set->n; d++)
		for (size_t i = 0; i < set->disks[d].n_parts; i++)
			if (seen++ == which)
				return set->disks[d].parts[i].partuuid;
	return "";
}

/* Partitions that failed earlier in the boot (the A/B fallback). */
static size_t decode_failures(struct fuzz_reader *r, const struct disk_set *set,
			      struct plan_failure failed[PLAN_MAX_FAILURES])
{
	size_t n = fuzz_u8(r) % 4;

	for (size_t i = 0; i < n; i++) {
		snprintf(failed[i].partuuid, sizeof(failed[i].partuuid), "%s",
			 some_partuuid(set, fuzz_u8(r)));
		snprintf(failed[i].why, sizeof(failed[i].why), "failed %zu", i);
	}
	return n;
}

static void decode_machine(struct fuzz_reader *r, const struct disk_set *set, struct machine *m)
{
	uint8_t arch = fuzz_u8(r), how = fuzz_u8(r);

	if (arch == 255)
		m->arch = ARCH_INVALID;
	else if (arch == 254)
		m->arch = ARCH_MAX;
	else
		m->arch = (enum arch)(arch % ARCH_MAX);
	m->has_machine_id = how & 1;
	if (how & 2)
		memcpy(m->machine_id, known_machine_id, sizeof(m->machine_id));
	else
		for (size_t i = 0; i < sizeof(m->machine_id); i++)
			m->machine_id[i] = fuzz_u8(r);
	how = fuzz_u8(r);
	if (how < 128)
		m->loader_partuuid[0] = '\0';
	else if (how < 224)
		snprintf(m->loader_partuuid, sizeof(m->loader_partuuid), "%s", some_partuuid(set, fuzz_u8(r)));
	else
		fuzz_raw_string(r, m->loader_partuuid, sizeof(m->loader_partuuid));
}

static const struct disk *disk_of(const struct disk_set *set, const struct part *part)
{
	for (size_t d = 0; d < set->n; d++)
		if (set->disks[d].n_parts && part >= set->disks[d].parts &&
		    part < set->disks[d].parts + set->disks[d].n_parts)
			return &set->disks[d];
	return NULL;
}

/* A hash on the command line is never dropped: a root (or /usr) planned from a disk goes
 * through its verity device. */
static void check_verity(const struct plan *plan, const struct options *opts)
{
	bool root_on_disk = false, root_device = false, usr_on_disk = false, usr_device = false;

	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct plan_step *s = &plan->steps[i];

		if (s->op == OP_VERITY)
			FUZZ_CHECK(s->root_hash[0] && s->hash_source[0] && s->source[0],
				   "verity step %zu without its hash or devices", i);
		root_device |= s->op == OP_VERITY && strcmp(s->target, "/dev/mapper/root") == 0;
		usr_device |= s->op == OP_VERITY && strcmp(s->target, "/dev/mapper/usr") == 0;
	}
	root_on_disk = plan->root && plan->steps[0].op != OP_TMPFS;
	usr_on_disk = plan->usr != NULL;
	if (opts->verity && opts->verity_root.hash && root_on_disk)
		FUZZ_CHECK(root_device, "roothash= given, the root planned without its verity device");
	if (opts->verity && opts->verity_usr.hash && usr_on_disk)
		FUZZ_CHECK(usr_device, "usrhash= given, /usr planned without its verity device");
}

/* The spec's rules on what is mounted, beyond the planner's own contract: no partition
 * twice, bit 60 always read-only, bit 63 and "_empty" never picked by discovery. */
/* Whether a step after unlock step i mounts or swaps on the device it makes. */
static bool mounted_later(const struct plan *plan, size_t i)
{
	bool mounted = false;

	for (size_t j = i + 1; j < plan->n_steps && !mounted; j++)
		mounted = (plan->steps[j].op == OP_MOUNT || plan->steps[j].op == OP_SWAPON) &&
			  strcmp(plan->steps[j].source, plan->steps[i].target) == 0;
	return mounted;
}

/* Whether an unlock's options open a device that shows no LUKS header: plain dm-crypt, or a
 * detached header (a crypttab entry's). */
static bool opens_without_header(const char *options)
{
	struct luks_options o;
	char why[8];

	return luks_options_parse(options, &o, why, sizeof(why)) == 0 && (o.plain || o.header[0]);
}

static void check_rules(const struct plan *plan, const struct disk_set *set,
			const struct options *opts)
{
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct plan_step *s = &plan->steps[i];
		const struct dps_type *type;
		const struct disk *disk;
		bool named;

		/* Bit 60 says how a partition is mounted: a volume the plan mounts is opened read-only;
		 * one rd.luks.uuid= only lists (no step mounts it) is opened as systemd-cryptsetup
		 * opens it, for the real system to use as it says. */
		if (s->op == OP_UNLOCK)
			FUZZ_CHECK(s->part && (strcmp(s->part->fstype, "crypto_LUKS") == 0 ||
					       opens_without_header(s->options)) &&
				   strncmp(s->target, "/dev/mapper/", 12) == 0 &&
				   (!(s->part->flags & GPT_FLAG_READ_ONLY) || !disk_of(set, s->part) ||
				    strcmp(disk_of(set, s->part)->pttype, "gpt") != 0 ||
				    !dps_type_from_uuid(s->part->type) ||
				    !dps_role_honours_read_only(dps_type_from_uuid(s->part->type)->role) ||
				    strstr(s->options, "readonly") || !mounted_later(plan, i)),
				   "unlock step %zu: not a LUKS partition, not a mapper device, or bit 60 "
				   "without readonly ('%s')", i, s->options);
		if (!s->part || (s->op != OP_MOUNT && s->op != OP_SWAPON))
			continue;
		FUZZ_CHECK(strcmp(s->part->fstype, "crypto_LUKS") != 0,
			   "step %zu mounts the LUKS partition %u itself", i, s->part->number);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(plan->steps[j].part != s->part ||
				   (plan->steps[j].op != OP_MOUNT && plan->steps[j].op != OP_SWAPON),
				   "partition %u is mounted by steps %zu and %zu", s->part->number, j, i);
		type = dps_type_from_uuid(s->part->type);
		disk = disk_of(set, s->part);
		if (!type || !disk || strcmp(disk->pttype, "gpt") != 0)
			continue;
		named = (opts->root && strcmp(s->source, opts->root) == 0) ||
			(opts->usr && strcmp(s->source, opts->usr) == 0);
		for (size_t j = 0; j < plan->n_steps; j++)
			FUZZ_CHECK(plan->steps[j].op != OP_VERITY || plan->steps[j].part != s->part ||
				   s->op != OP_MOUNT,
				   "step %zu mounts partition %u unverified beside its verity step %zu", i,
				   s->part->number, j);
		if ((s->part->flags & GPT_FLAG_READ_ONLY) && dps_role_honours_read_only(type->role))
			FUZZ_CHECK(strncmp(s->options, "ro", 2) == 0 &&
				   (s->options[2] == '\0' || s->options[2] == ','),
				   "step %zu mounts partition %u with bit 60 as '%s'", i, s->part->number,
				   s->options);
		if (named)
			continue;
		FUZZ_CHECK(!(s->part->flags & GPT_FLAG_NO_AUTO) || !dps_role_honours_no_auto(type->role),
			   "step %zu mounts partition %u with bit 63 set", i, s->part->number);
		FUZZ_CHECK(strcmp(s->part->label, "_empty") != 0 ||
			   (type->role != DPS_ROOT && type->role != DPS_USR),
			   "step %zu mounts the _empty partition %u", i, s->part->number);
	}
}

static const char *const ct_names[] = {
	"cryptroot", "vda3_crypt", "dm_crypt-0", "root", "usr", "swap", "chdr",
	"luks-f5000000-0000-4000-8000-000000000000", "bad/name", "-",
};
static const char *const ct_keys[] = {
	"none", "-", "/etc/keys/root.key", "/root.key:LABEL=usb", "/dev/urandom", "rel.key",
	"/k:UUID=f5000001-0000-4000-8000-000000000000", "/dev/random",
};
static const char *const ct_options[] = {
	"luks,discard", "", "noauto", "nofail", "swap,cipher=aes-xts-plain64,size=256", "plain",
	"plain,cipher=aes-xts-plain64,size=512,hash=sha256,offset=8,skip=8", "header=/etc/hdr.img",
	"luks,header=/hdr:LABEL=usb", "keyscript=/bin/cat", "tries=0,readonly", "tpm2-device=auto",
	"luks,initramfs", "x-initrd.attach,discard", "tries=many", "plain,header=/h", "size=257,plain",
	"tcrypt", "keyfile-timeout=5s,keyfile-size=32", "luks,noauto,nofail",
};

/* An entry's device: a partition's filesystem UUID, PARTUUID or PARTLABEL, a path, or
 * anything. */
static void ct_device(struct fuzz_reader *r, const struct disk_set *set, char *out, size_t size)
{
	uint8_t how = fuzz_u8(r), which = fuzz_u8(r);
	const struct part *part = NULL;
	size_t seen = 0;

	for (size_t d = 0; d < set->n && !part; d++)
		for (size_t i = 0; i < set->disks[d].n_parts && !part; i++)
			if (seen++ == which)
				part = &set->disks[d].parts[i];
	if (part && how < 96)
		snprintf(out, size, "UUID=%s", part->fsuuid);
	else if (part && how < 144)
		snprintf(out, size, "PARTUUID=%s", part->partuuid);
	else if (part && how < 176)
		snprintf(out, size, "PARTLABEL=%s", part->label);
	else if (part && how < 208)
		snprintf(out, size, "%s", part->devpath);
	else
		fuzz_raw_string(r, out, size);
}

/* The image's crypttab, as text: crypttab_parse() reads it as PID 1 reads the file. */
static void decode_crypttab(struct fuzz_reader *r, const struct disk_set *set, struct machine *m)
{
	static char text[CRYPTTAB_MAX_ENTRIES * 4 * (CRYPTTAB_FIELD + 2)];
	uint8_t how = fuzz_u8(r);
	size_t n = how % (CRYPTTAB_MAX_ENTRIES + 3), len = 0;

	m->has_crypttab = how >= 128;
	for (size_t i = 0; m->has_crypttab && i < n; i++) {
		char device[CRYPTTAB_FIELD];

		ct_device(r, set, device, sizeof(device));
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %s %s %s\n",
					PICK(r, ct_names), device[0] ? device : "none", PICK(r, ct_keys),
					PICK(r, ct_options));
		if (len >= sizeof(text))
			len = sizeof(text) - 1;
	}
	if (m->has_crypttab)
		crypttab_parse(text, len, &m->crypttab);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_reader r = { data, size, 0 };
	struct disk_set set = { 0 };
	struct machine machine = { 0 };
	static void *opts_mem, *plan_mem;
	struct options *opts = fuzz_reused(&opts_mem, sizeof(*opts));
	struct plan *plan = fuzz_reused(&plan_mem, sizeof(*plan));
	struct plan_input in = { .opts = opts, .disks = &set, .machine = &machine };
	struct plan_failure failed[PLAN_MAX_FAILURES];
	size_t cmdline_len = 0;
	char *line = NULL;
	uint8_t n_disks;
	int ret = 0;

	if (size >= 2) {
		cmdline_len = ((size_t)data[0] << 8 | data[1]) % (size - 1);
		r.pos = 2;
		r.size = size - cmdline_len;
	}
	line = malloc(cmdline_len + 1);
	FUZZ_CHECK(line, "out of memory");
	memcpy(line, data + size - cmdline_len, cmdline_len);
	line[cmdline_len] = '\0';
	/* At boot a line with a bad word still plans with the rest, so any answer goes on. */
	(void)cmdline_parse(line, opts, NULL, 0);

	n_disks = fuzz_u8(&r) % (MAX_DISKS + 1);
	for (size_t i = 0; i < n_disks && ret == 0; i++)
		ret = decode_disk(&r, &set, i);
	FUZZ_CHECK(ret == 0, "out of memory");
	decode_machine(&r, &set, &machine);
	in.failed = failed;
	in.n_failed = decode_failures(&r, &set, failed);
	decode_crypttab(&r, &set, &machine);

	ret = plan_build(&in, plan);
	/* Printed first: with FUZZ_VERBOSE=1 a broken invariant comes with the plan. */
	fuzz_format_plan(plan);
	fuzz_check_plan(ret, plan, &set);
	fuzz_check_refusal(ret, plan, &set, data, size);
	if (ret == 0) {
		check_rules(plan, &set, opts);
		check_verity(plan, opts);
	}

	disk_set_free(&set);
	free(line);
	return 0;
}
