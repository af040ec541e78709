/* The kernel command line, read the way systemd's initrd reads it. Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fstab.h"
#include "image_filter.h"
#include "image_policy.h"
#include "net.h"
#include "uuid.h"

/* The longest command line taken, terminator included: lines of up to CMDLINE_MAX - 1 bytes
 * are read whole, a longer one is refused whole (-E2BIG) and none of it applied. The kernel's
 * own bound, COMMAND_LINE_SIZE with its terminator, is in Linux 6.1 2048 on x86-64, x86, arm64
 * and ppc64le, 1024 on arm, 512 on riscv64 (1024 since 6.6), 4096 on s390x and loongarch64: every
 * line a boot loader can pass fits. /proc/cmdline can still be longer when bootconfig adds
 * parameters, or when s390x's CONFIG_COMMAND_LINE_SIZE is raised; such a boot stops with the
 * message, as a cut line would apply half of what was meant. tests/unit/test_limits.c checks
 * each arch's longest line. */
#define CMDLINE_MAX 4096

enum volatile_mode {
	VOLATILE_NO,
	VOLATILE_YES,
	VOLATILE_STATE,
	VOLATILE_OVERLAY,
};

/* rd.emergency=: what a stopped boot does once no shell runs (dracut's key). */
enum emergency_action {
	EMERGENCY_UNSET, /* the default: a shell again, or a wait (see failure.h) */
	EMERGENCY_REBOOT,
	EMERGENCY_POWEROFF,
	EMERGENCY_HALT,
};

enum root_kind {
	ROOT_DISCOVER, /* root= absent or root=gpt-auto */
	ROOT_DEVICE,   /* a path or UUID=/PARTUUID=/LABEL=/PARTLABEL= */
	ROOT_TMPFS,    /* root=tmpfs */
	ROOT_SHARE,    /* a host share by its tag: root=virtiofs:TAG, root=virtfs:TAG, or root=TAG
			* with rootfstype=virtiofs or 9p; an NFS export: root=nfs:SOURCE,
			* root=nfs4:SOURCE, root=SERVER:/PATH with rootfstype=nfs or nfs4, or
			* root=/dev/nfs (the tag is then "/dev/nfs": nfsroot= or DHCP name it) */
};

/* The filesystems a host share is mounted with (QEMU's vhost-user-fs and virtio-9p). */
enum share_fs {
	SHARE_NONE,
	SHARE_VIRTIOFS,
	SHARE_9P,
	SHARE_NFS,  /* an NFS export: root=nfs:, root=/dev/nfs, rootfstype=nfs */
	SHARE_NFS4, /* root=nfs4:, rootfstype=nfs4 */
};

/* fsck.mode= (systemd-fsck(8)): auto lets the checker decide (a filesystem marked clean is
 * not checked), force checks every one, skip none. */
enum fsck_mode {
	FSCK_AUTO,
	FSCK_FORCE,
	FSCK_SKIP,
};

/* fsck.repair=: preen fixes what is safe to fix without a person, yes answers yes to every
 * question, no changes nothing. */
enum fsck_repair {
	FSCK_PREEN,
	FSCK_YES,
	FSCK_NO,
};

/* A dm-verity device of systemd's command line: roothash= with systemd.verity_root_*=, or
 * usrhash= with systemd.verity_usr_*=. */
struct verity_spec {
	const char *hash;        /* the root hash, hex */
	const char *data;        /* the data device spec; NULL: the PARTUUID the hash names */
	const char *hash_device; /* the hash device spec; NULL: likewise */
	const char *options;     /* systemd-veritysetup's options */
};

#define LUKS_MAX_VOLUMES 8

/* A LUKS volume systemd's cryptsetup generator is told about by its header's UUID. */
struct luks_volume {
	char uuid[UUID_STR_LEN]; /* lower case */
	const char *name;        /* rd.luks.name=UUID=NAME; NULL: "luks-UUID" */
	const char *options;     /* rd.luks.options=UUID=...; NULL: the global ones */
	const char *key;         /* rd.luks.key=UUID=PATH[:DEVICE]; NULL: the global one */
	bool listed;             /* named by rd.luks.uuid= or rd.luks.name=: unlocked at boot even
				  * when nothing is mounted from it */
};

/* rd.luks.* and luks.* (both count in the initrd; a later key wins). */
struct luks_cmdline {
	bool enabled;            /* rd.luks= / luks=, default true */
	bool crypttab;           /* rd.luks.crypttab= / luks.crypttab=, default true: the image's
				  * /etc/crypttab is read */
	const char *options;     /* rd.luks.options= without a UUID: for every volume */
	const char *key;         /* rd.luks.key= without a UUID: for every volume */
	struct luks_volume volumes[LUKS_MAX_VOLUMES];
	size_t n_volumes;
};

/* rd.lvm=, rd.lvm.vg=, rd.lvm.lv= (dracut's keys). */
struct lvm_cmdline {
	bool enabled;            /* rd.lvm=, default true: volume groups are activated as their
				  * physical volumes appear */
	const char *vgs;         /* rd.lvm.vg= joined with commas; with lvs NULL: every VG */
	const char *lvs;         /* rd.lvm.lv=VG/LV joined with commas */
};

/* rd.md=, rd.md.uuid= (dracut's keys), earlymount.md_degraded=. */
struct md_cmdline {
	bool enabled;            /* rd.md=, default true: md arrays are assembled as their
				  * members appear */
	const char *uuids;       /* rd.md.uuid= joined with commas: only these arrays; NULL: all */
	int degraded_sec;        /* earlymount.md_degraded=: how long an array waits for a missing
				  * member before it starts degraded; 0: for ever; -1: the default */
};

/* ip=, rd.neednet=, rd.net.timeout.dhcp=, nfsroot=: the network the initramfs brings up. */
struct net_cmdline {
	struct net_ip ip[NET_MAX_IP]; /* ip= keys, one an interface (a later one for the same
				       * interface replaces it) */
	size_t n_ip;
	bool need;                    /* rd.neednet=1, or an ip= other than off */
	int dhcp_timeout_sec;         /* rd.net.timeout.dhcp=, -1 unset */
	const char *nfsroot;          /* nfsroot=[SERVER:]PATH[,OPTIONS] */
};

/* Every string points into storage owned by the struct; NULL when the key was absent. */
struct options {
	enum root_kind root_kind;
	const char *root;        /* the device spec when ROOT_DEVICE, the tag when ROOT_SHARE */
	enum share_fs root_share; /* when ROOT_SHARE */
	const char *rootfstype;
	const char *rootflags;   /* every rootflags= joined with commas */
	int rw;                  /* -1 unset, 0 ro, 1 rw (last of ro/rw wins) */

	const char *usr;         /* mount.usr= device spec, or a share's tag when usr_share */
	enum share_fs usr_share; /* mount.usr=virtiofs:TAG, virtfs:TAG, or with mount.usrfstype= */
	const char *usrfstype;   /* mount.usrfstype= */
	const char *usrflags;    /* mount.usrflags= (every one joined with commas) */

	bool gpt_auto;           /* systemd.gpt_auto= / rd.systemd.gpt_auto=, default true */
	/* systemd.image_policy= / rd.systemd.image_policy= (the later wins): what discovery may
	 * use; a malformed one is kept as such, and the plan refuses to boot under it */
	struct image_policy image_policy;
	struct image_filter image_filter; /* systemd.image_filter=: GPT label globs */
	/* systemd.mount-extra= / rd.systemd.mount-extra= and systemd.swap-extra=, in order (a
	 * swap's where is "/") */
	struct fstab mount_extra;
	struct fstab swap_extra;
	/* systemd.import_credentials= / rd.: whether the initrd gathers credentials, default
	 * true; how many systemd.set_credential{,_binary}= there are (their values are read
	 * again where they are imported: they are kept out of these options and every message) */
	bool import_credentials;
	unsigned n_credentials;
	int tpm2_wait;           /* systemd.tpm2_wait=: 1, 0, or -1 when not given */
	bool verity;             /* systemd.verity= / rd.systemd.verity=, default true */
	bool fallback;           /* earlymount.fallback=: the next newest root or /usr when the
				  * newest fails, default true */
	struct verity_spec verity_root;
	struct verity_spec verity_usr;
	struct luks_cmdline luks;
	struct lvm_cmdline lvm;
	struct md_cmdline md;
	struct net_cmdline net;
	enum volatile_mode volatile_mode;
	const char *tmpfs_flags; /* earlymount.tmpfs=: options of the systemd.volatile= tmpfs mounts */
	enum fsck_mode fsck_mode;     /* fsck.mode= / rd.fsck.mode= (the later wins) */
	enum fsck_repair fsck_repair; /* fsck.repair= / rd.fsck.repair= */
	const char *resume;      /* resume=: a device spec or MAJ:MIN */
	uint64_t resume_offset;  /* resume_offset=: pages into resume=, for a swap file */
	bool has_resume_offset;
	bool noresume;           /* noresume: no resume, and a hibernation image is left alone */
	const char *init;        /* init= */
	const char *disk;        /* earlymount.disk=: device path, PARTUUID=/UUID= on it, or GPT disk UUID */
	bool has_machine_id;     /* systemd.machine_id= */
	uint8_t machine_id[16];

	bool emergency;          /* rd.emergency / emergency: a shell now, before the boot */
	/* The failure path; zero (an unset options struct) is the default. */
	enum emergency_action emergency_action; /* rd.emergency=reboot|poweroff|halt */
	bool no_shell;           /* rd.shell=0: no shell when the boot stops */
	int panic_sec;           /* panic=: reboot N s after the boot stops without a shell,
				  * negative at once, 0 never */
	bool rd_break;           /* rd.break */
	bool quiet;
	bool debug;              /* debug / rd.debug */
	bool rootwait;
	int timeout_sec;         /* rd.timeout= / earlymount.timeout=, -1 unset, 0 forever */
	int rootdelay_sec;       /* rootdelay=, -1 unset */
	/* rd.watchdog=: the hardware watchdog armed with this timeout from as early as its
	 * device appears, fed by the boot's waits, left armed for the real init; -1 unset, 0 off */
	int watchdog_sec;
	const char *watchdog_device; /* systemd.watchdog_device=: NULL for /dev/watchdog0 */

	const char *keymap;      /* rd.vconsole.keymap= / vconsole.keymap=: a keymap's name */

	const char *modules_load;      /* rd.modules-load=, modules_load= and dracut's rd.driver.pre=,
					* joined with commas */
	const char *modprobe_blacklist; /* modprobe.blacklist=, joined with commas */
	unsigned n_module_params;      /* module.param=value keys seen (libkmod reads them itself) */

	size_t used;             /* bytes of storage in use */
	char storage[2 * CMDLINE_MAX];
};

/* Fills opts from line. Returns 0, -E2BIG for a line longer than CMDLINE_MAX (none of it
 * applied), or -EINVAL for a malformed line or value, or one earlymount cannot keep (a ninth
 * LUKS volume, no room left); on -EINVAL every other key is still applied, and err (when not
 * NULL) holds one sentence naming the first problem. */
int cmdline_parse(const char *line, struct options *opts, char *err, size_t err_size);

/* Calls fn for every KEY[=VALUE] word of line before "--", its quotes removed and VALUE NULL
 * for a bare key, whatever the key: for readers of keys that options do not keep. */
typedef void cmdline_word_fn(const char *key, const char *value, void *data);
void cmdline_walk(const char *line, cmdline_word_fn *fn, void *data);

/* Resets opts to the defaults of an empty command line. */
void options_init(struct options *opts);

/* "virtiofs", "9p", "nfs" or "nfs4", the fstype a share is mounted with; NULL for
 * SHARE_NONE. */
const char *share_fstype(enum share_fs fs);
/* Whether a share is an NFS export, which the network brings. */
bool share_is_nfs(enum share_fs fs);

/* root=/dev/nfs: the export comes from nfsroot= or DHCP's root-path. */
#define NFS_ROOT_DEVICE "/dev/nfs"

/* Whether the boot brings up the network: an ip= other than off, rd.neednet=1, or a root or
 * /usr over NFS. */
bool options_want_network(const struct options *o);
/* Whether the boot cannot go on without it: a root or /usr over NFS, or rd.neednet=1 (dracut's
 * meaning); an ip= beside a local root is wanted, not needed. */
bool options_need_network(const struct options *o);

/* The keys this parser knows, NULL-terminated (for the man page check). */
extern const char *const cmdline_known_keys[];
