/* The planner's parts (core/plan/plan*.c) share one struct planner: each decision reads what
 * the ones before it chose (the disk, root, /usr) and writes to the same plan. Only what
 * crosses a file is here; the rest stays static where it is used. Not for use outside the
 * planner: its only interface is plan.h. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "crypttab.h"
#include "plan.h"

#define ROOT_MOUNT_POINT SYSROOT
#define LABEL_SHOWN 64
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))

struct text {
	char *buf;
	size_t size;
	size_t len;
	bool full;
};

/* A verity device wanted for root or /usr, and the partitions found for it. */
struct verity_pick {
	const struct verity_spec *spec; /* the command line's, when it gave the hash */
	const char *root_hash;          /* NULL: not verified */
	const struct part *sig;         /* the signature partition the hash came from, or NULL */
	const struct disk *sig_disk;    /* its disk */
	const char *name;               /* "root", "usr": the device-mapper name */
	const char *hash_key;           /* "roothash=", "usrhash=" */
	enum dps_role data_role, hash_role;
	char mapper[32];                /* "/dev/mapper/root" */
	bool named;                     /* root= (mount.usr=) names the mapper device */
	struct verity_options options;
	const struct part *data, *hash;
	const struct disk *data_disk, *hash_disk;
};

/* A LUKS volume the boot knows by name (plan_volumes.c): told about on the command line
 * (rd.luks.uuid=, rd.luks.name=, rd.luks.options=UUID=, rd.luks.key=UUID=) or an entry of the
 * image's crypttab. */
struct plan_volume {
	char device[CRYPTTAB_FIELD]; /* its device spec: UUID=HEADER for the command line's */
	char uuid[UUID_STR_LEN];     /* the header's UUID when device is UUID=, else "" */
	const char *name;            /* /dev/mapper/NAME; NULL: the role's, or luks-UUID when listed */
	const char *options;         /* crypttab's words, the command line's in place of the entry's */
	const char *key;             /* PATH[:DEVICE], NULL for none */
	bool listed;                 /* opened at boot even when nothing of the plan mounts it */
	bool raw;                    /* its options say plain dm-crypt or a detached header: its
				      * device holds no LUKS header */
	const struct crypttab_entry *entry; /* the image's crypttab's, NULL for the command line's */
};

#define PLAN_MAX_VOLUMES (LUKS_MAX_VOLUMES + CRYPTTAB_MAX_ENTRIES)

struct planner {
	const struct options *opts;
	const struct disk_set *disks;
	const struct machine *machine;
	const struct plan_failure *failed;
	size_t n_failed;
	struct plan *plan;
	size_t notes_dropped;
	const struct disk *disk;       /* discovery happens here; NULL when it does not */
	const struct part *root;       /* NULL for root=tmpfs */
	const struct disk *root_disk;
	bool root_explicit;
	enum arch root_arch;
	const struct part *usr;        /* NULL when /usr is part of the root */
	const struct disk *usr_disk;
	bool usr_explicit;
	bool xbootldr_mounted;
	bool root_rw;                  /* the disk root is mounted read-write */
	struct verity_pick root_verity;
	struct verity_pick usr_verity;
	/* root= (mount.usr=) named /dev/mapper/NAME of an rd.luks.name= volume: its header */
	char root_luks_spec[PLAN_PATH];
	char usr_luks_spec[PLAN_PATH];
	/* how messages name the /usr spec: "mount.usr=", or the root's fstab's entry */
	const char *usr_key;
	bool usr_no_fsck;              /* the fstab's /usr has pass 0: never checked */
	bool fstab_mounts;             /* the fstab's x-initrd.mount entries are planned */
	/* what discovery mounted (or swapped on) in each role but root and /usr */
	const struct part *discovered[DPS_ROLE_MAX];
	char policy_why[PLAN_TEXT];    /* plan_policy_skip_reason()'s answer */
	struct plan_volume volumes[PLAN_MAX_VOLUMES];
	size_t n_volumes;
};

/* A partition unlocked for a mount: the device the mount then takes. */
struct luks_mount {
	bool unlocked;
	char mapper[PLAN_PATH];
};

/* The options a mount step gets, before they are written out in their fixed order. */
struct mount_flags {
	bool rw;
	bool nodev;
	bool nosuid;
	bool noexec;
	bool umask;
	bool norecovery;
	bool no_fsck;     /* an fstab entry with pass 0: mounted read-write unchecked */
	const char *user; /* rootflags= / mount.usrflags=, their ro/rw left out */
};

/* plan_text.c: text in the plan's fixed-size fields, notes and errors. */
void plan_text_init(struct text *t, char *buf, size_t size);
void plan_text_vadd(struct text *t, const char *fmt, va_list ap);
void PRINTF_LIKE(2, 3) plan_text_add(struct text *t, const char *fmt, ...);
void plan_text_mark_cut(struct text *t);
const char *plan_label_shown(const char *label, char out[LABEL_SHOWN]);
/* plan_text.c: how messages name a partition: its device node at boot, its image's
 * partition on the host (disk_part_name(): "partition 2 of disk.raw", "the whole of lv.img");
 * a whole device is never "partition 0". */
const char *plan_part_name(const struct disk *disk, const struct part *part, char *buf,
			   size_t size);
/* The partitions a device spec names (disk_set_find_all()), each by plan_part_name(): "partition
 * 1 of a.img and /dev/vdb1", the first few, then how many more. */
const char *plan_name_matches(const struct planner *p, const char *spec, char *out, size_t size);
/* "an" before a name said with a vowel sound first ("an atari", "an esp", "an SGI" read
 * letter by letter), else "a" ("a usr", "a unixware"). */
const char *plan_article(const char *name);
void PRINTF_LIKE(2, 3) plan_note(struct planner *p, const char *fmt, ...);
void plan_notes_finish(struct planner *p);
void plan_describe_disk(struct text *t, const struct disk *disk);
int PRINTF_LIKE(3, 4) plan_fail(struct planner *p, int err, const char *fmt, ...);
int PRINTF_LIKE(3, 4) plan_fail_found(struct planner *p, int err, const char *fmt, ...);

/* plan_disk.c: the disk discovery happens on (p->disk). */
int plan_choose_disk(struct planner *p);

/* plan_part.c: what any role may take of a partition, and which one a device spec names. */
enum dps_role plan_part_role(const struct part *part);
bool plan_part_is(const struct part *part, enum dps_role role, enum arch arch);
bool plan_disk_is_gpt(const struct disk *disk);
bool plan_part_read_only(const struct part *part, const struct disk *disk);
const char *plan_auto_skip_reason(const struct part *part, enum dps_role role);
void plan_note_passed_over(struct planner *p, const struct part *part, enum dps_role role,
			   const char *why);
/* How a mount asks for the filesystem of its partition. */
struct fstype_check {
	const char *what;       /* "root", "the root's fstab: /home (line 3)": the message's start */
	const char *key;        /* "root=": names the device on the command line; else NULL */
	const char *forced;     /* rootfstype='s value, or NULL */
	const char *forced_key; /* "rootfstype=" */
	bool discovered;        /* found by its type: only the spec's filesystems */
};
int plan_check_fstype(struct planner *p, const struct disk *disk, const struct part *part,
		      const struct fstype_check *c, const char **fstype);
/* What to name instead of a device that holds no filesystem: the device a stack makes of it. */
enum instead {
	INSTEAD_NOTHING,
	INSTEAD_UNLOCKED, /* /dev/mapper/NAME of rd.luks.name= */
	INSTEAD_LV,       /* /dev/mapper/VG-LV, /dev/VG/LV */
	INSTEAD_ARRAY,    /* /dev/md/NAME */
};

/* A probed type that holds no filesystem mount(2) could take, even when named by root=. */
struct not_mountable {
	const char *fstype; /* libblkid's TYPE; a leading '*' matches it as a suffix */
	const char *what;   /* "an LVM physical volume" */
	const char *why;    /* "which is no filesystem to mount" */
	enum instead instead;
};
/* plan_text.c: fstype's row, or NULL when it is none of those. */
const struct not_mountable *plan_not_mountable(const char *fstype);
bool plan_role_fstype_ok(struct planner *p, const struct part *part, enum dps_role role);
bool plan_part_damage(const struct disk *disk, const struct part *part, char why[PLAN_TEXT]);
int plan_refuse_damaged(struct planner *p, const struct disk *disk, const struct part *part,
			const char *what);
/* A filesystem over several devices whose devices are not all there yet: -ENOENT, the
 * plan waits, unless flags (flags_key's) say degraded. */
int plan_check_members(struct planner *p, const struct part *part, const char *what,
		       const char *flags, const char *flags_key);
/* The partition a device spec of the command line names, key= in messages. */
int plan_resolve_spec(struct planner *p, const char *key, const char *spec,
		      const struct part **part, const struct disk **disk);

/* plan_policy.c: systemd.image_policy= over discovery. A malformed policy refuses the plan;
 * a partition whose rule wants it absent refuses the disk (after it was chosen); what
 * discovery used is checked against the rules once the steps are made. 0 or the plan's
 * -errno. */
int plan_policy_check_given(struct planner *p);
int plan_policy_check_disk(struct planner *p);
int plan_policy_check_used(struct planner *p);
/* Why discovery passes over part in role: its label does not match systemd.image_filter=, or
 * the policy leaves it unused; NULL when neither. */
const char *plan_policy_skip_reason(struct planner *p, const struct part *part, enum dps_role role);
/* A clause for a message that no partition of role was found: that the filter or the policy
 * passes such partitions over; "" when neither does. */
const char *plan_policy_hint(struct planner *p, enum dps_role role);

/* plan_stacks.c: the step that makes the device part (on disk) for the mount what (a logical
 * volume activated, an md array assembled, a btrfs's devices scanned: at boot done as their
 * members appeared), before the steps that take it; flags are the mount's. 0 or as
 * plan_add_step(). */
int plan_add_stack_step(struct planner *p, const struct part *part, const struct disk *disk,
			const char *what, const char *flags);
/* The devices of fs's filesystem (a btrfs over several) in the set, ", "-separated, into out:
 * how many. */
unsigned plan_list_fs_members(const struct planner *p, const struct part *fs, char out[PLAN_PATH]);
/* A clause for a device spec that matches nothing ("; a filesystem on ..."): why, when the
 * command line keeps a stack from being made, or the disks hold members of one whose device
 * is made at boot; "" when neither. */
const char *plan_stack_hint(const struct planner *p, const char *spec);

/* plan_pick.c: root and /usr (p->root, p->usr, their disks and arch). */
const struct part *plan_pick_versioned(struct planner *p, const struct disk *disk,
				       enum dps_role role, enum arch arch, bool noting);
void plan_arch_order(enum arch first, enum arch native, enum arch order[3]);
int plan_resolve_explicit(struct planner *p);
int plan_choose_root(struct planner *p);
int plan_choose_usr(struct planner *p);

/* plan_verity.c: dm-verity for root and /usr. */
int plan_verity_resolve_options(struct planner *p);
bool plan_verity_names_device(const struct verity_pick *v, const char *device);
int plan_verity_choose(struct planner *p, struct verity_pick *v, const struct part **part,
		       const struct disk **disk);
bool plan_verity_unsigned_on_signed_disk(const struct planner *p, const struct disk *disk,
					 const struct part *part, enum dps_role role);
int plan_verity_from_signature(struct planner *p, struct verity_pick *v, const struct part *data);
int plan_verity_mount_source(struct planner *p, const struct verity_pick *v, const char *fstype,
			     struct mount_flags *flags, const char **spec, const struct part **part);
void plan_note_verity(struct planner *p);

/* plan_volumes.c: the LUKS volumes of the command line and the image's crypttab, merged as
 * systemd's cryptsetup generator merges them, their options checked once. 0 or the plan's
 * -errno (a malformed option, an entry that asks what earlymount refuses). */
int plan_luks_volumes(struct planner *p);
/* The volume whose device is part, or NULL. */
const struct plan_volume *plan_volume_of(const struct planner *p, const struct part *part);
/* The name v is opened under when listed: its own, else luks-UUID. */
void plan_volume_name(const struct plan_volume *v, char *out, size_t size);
/* How messages name where v comes from: "rd.luks.uuid=UUID", "the image's crypttab: NAME
 * (line 3)". Returns out. */
const char *plan_volume_origin(const struct plan_volume *v, char *out, size_t size);
/* The device spec root= or mount.usr= means when it names /dev/mapper/NAME of a volume:
 * that volume's device into spec. */
bool plan_luks_names_device(const struct planner *p, const char *device, char *spec,
			    size_t size);

/* plan_luks.c: LUKS devices unlocked before they are mounted. */
bool plan_part_is_luks(const struct part *part);
/* Root or /usr: unlocks part (named by spec, or discovered when spec is NULL) when it is
 * LUKS, as /dev/mapper/NAME (rd.luks.name='s, else name); out->unlocked then says the mount
 * takes out->mapper. */
int plan_luks_mount_source(struct planner *p, const struct part *part, const struct disk *disk,
			   const char *spec, const char *role, const char *name, bool read_only,
			   struct luks_mount *out);
/* A discovered /var, /home, … or swap: the same, but rd.luks=no only leaves it out, with a
 * note; *optional becomes true when the volume's options say nofail. */
int plan_luks_role_source(struct planner *p, const struct part *part, enum dps_role role,
			  bool read_only, bool *optional, struct luks_mount *out);
int plan_add_listed_volumes(struct planner *p);

/* plan_options.c: mount options. */
bool plan_flags_want_rw(const char *flags);
/* Whether the comma-separated flags (NULL: none) hold word itself. */
bool plan_flags_have(const char *flags, const char *word);
/* Whether flags a and b pick different btrfs subvolumes (subvol=, subvolid=; none: the
 * default one). */
bool plan_flags_other_subvolume(const char *a, const char *b);
int plan_format_options(struct planner *p, char *out, size_t size, const struct mount_flags *f,
			const char *target);
int plan_merge_tmpfs_options(struct planner *p, const char *defaults, const char *user,
			     char *out, size_t size, const char *target);

/* plan_growfs.c: first-boot growth. Whether part asks for it (GPT bit 59 of a role that
 * honours it); the growfs step after mount, asked_by naming why, or a note saying why not
 * (a read-only mount, a type without online resize). */
bool plan_part_grows(const struct disk *disk, const struct part *part);
int plan_add_growfs(struct planner *p, const struct plan_step *mount, const char *asked_by);

/* plan_steps.c: writing steps (and plan_op_name() of plan.h). */
int plan_copy_field(struct planner *p, char *dst, size_t size, const char *src, const char *what);
/* A device-mapper device made twice would make the second step fail at boot: 0 while no
 * unlock or verity step made mapper yet, else the plan fails saying so. */
int plan_check_mapper_free(struct planner *p, const char *mapper);
int plan_add_step(struct planner *p, enum plan_op op, const char *source, const char *target,
		  const char *fstype, const struct part *part, struct plan_step **out);
void PRINTF_LIKE(2, 3) plan_step_reason(struct plan_step *step, const char *fmt, ...);
int plan_add_simple(struct planner *p, enum plan_op op, const char *source, const char *target,
		    const char *fstype, const char *options, const char *reason);
int plan_add_mkdir(struct planner *p, const char *target, unsigned mode, const char *reason);
int plan_discovered_source(struct planner *p, const struct part *part, char *out, size_t size);

/* plan_mounts.c: the root and /usr mounts. */
int plan_add_root_mount(struct planner *p, const char *target, bool force_ro, const char *why_ro);
int plan_add_usr_stage(struct planner *p);

/* plan_share.c: a root or /usr on a host share (virtiofs, 9p). */
bool plan_root_is_share(const struct planner *p);
bool plan_usr_is_share(const struct planner *p);
int plan_check_share_options(struct planner *p);
int plan_add_share_root(struct planner *p, const char *target, bool force_ro, const char *why_ro);
int plan_add_share_usr(struct planner *p);

/* plan_nfs.c: a share's mount when it is an NFS export (the source and options the kernel's
 * client takes). */
int plan_add_nfs_mount(struct planner *p, const char *tag, enum share_fs fs, const char *target,
		       bool rw, const char *user, const char *key);

/* plan_volatile.c: the root stage (root=tmpfs, systemd.volatile=) and the skeleton. */
int plan_add_volatile_tmpfs(struct planner *p, const char *target, const char *reason);
int plan_add_root_stage(struct planner *p);
int plan_add_skeleton_stage(struct planner *p);

/* plan_fsck.c: an OP_FSCK step for a read-write mount of source on target, when fsck.mode=
 * allows and fstype ("" when probed at boot) has a checker. */
int plan_add_fsck_step(struct planner *p, const char *source, const struct part *part,
		       const char *fstype, const char *target);

/* plan_roles.c: the partitions mounted after root and /usr. */
int plan_add_discovered_stage(struct planner *p);

/* plan_fstab.c: the root's fstab. Into out, the options with /usr from its /usr entry (flags
 * holds mount.usrflags=), when the first plan has no /usr and nothing else gives one: 1 and
 * *entry, else 0. And the mounts of its x-initrd.mount entries. */
int plan_fstab_usr_options(const struct plan_input *in, const struct plan *first,
			   struct options *out, char *flags, size_t size,
			   const struct fstab_entry **entry);
int plan_add_fstab_stage(struct planner *p);

/* plan_resume.c: resume from hibernation, the plan's first step. */
int plan_add_resume_stage(struct planner *p);
