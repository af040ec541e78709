/* The plan executor. Each op is one function; a failure leaves one sentence in ctx->why that
 * names the step, the reason and, where there is one, what to try. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "dm.h"
#include "execute.h"
#include "execute_skeleton.h"
#include "fileio.h"
#include "fsck.h"
#include "growfs.h"
#include "log.h"
#include "luks.h"
#include "luks_helper.h"
#include "luks_open.h"
#include "mountopts.h"
#include "parse.h"
#include "probe.h"
#include "resume.h"
#include "nfs_mount.h"
#include "share.h"
#include "sysfs.h"
#include "util.h"
#include "verity_open.h"

/* Enough for any /proc/filesystems: ~40 lines of "nodev\tname\n". */
#define FILESYSTEMS_MAX 4096

bool filesystems_text_has(const char *text, const char *fstype)
{
	size_t want = strlen(fstype);

	for (const char *line = text; line && *line;) {
		size_t len = strcspn(line, "\n");
		const char *tab = memchr(line, '\t', len);
		const char *name = tab ? tab + 1 : line;
		size_t name_len = len - (size_t)(name - line);

		if (name_len == want && memcmp(name, fstype, want) == 0)
			return true;
		line += len;
		if (*line == '\n')
			line++;
	}
	return false;
}

bool filesystem_registered(const char *fstype)
{
	char text[FILESYSTEMS_MAX];

	return read_file_at(AT_FDCWD, "/proc/filesystems", text, sizeof(text)) > 0 &&
	       filesystems_text_has(text, fstype);
}

/* A device spec to a node: the partition's when known, a path as it is, else looked up. */
static int resolve_device(const char *spec, const struct part *known,
			  const struct disk_set *disks, char *out, size_t size,
			  const struct part **part)
{
	const struct part *found = known;
	int r = 0;

	if (!found && spec[0] == '/') {
		r = copy_str(out, size, spec);
		goto out;
	}
	if (!found && !disks) {
		r = -ENOENT;
		goto out;
	}
	if (!found)
		r = disk_set_find(disks, spec, &found, NULL);
	if (r == 0 && !found->devpath[0])
		r = -ENODEV;
	if (r == 0)
		r = copy_str(out, size, found->devpath);
out:
	if (part)
		*part = r == 0 ? found : NULL;
	return r;
}

int execute_resolve_source(const struct plan_step *step, const struct disk_set *disks,
			   char *out, size_t size, const struct part **part)
{
	return resolve_device(step->source, step->part, disks, out, size, part);
}

static void why_set(struct execute_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why_set(struct execute_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->why, sizeof(ctx->why), fmt, ap);
	va_end(ap);
}

static const char *mount_hint(int err)
{
	switch (err) {
	case EINVAL:
		return " — the filesystem may be damaged: check it with fsck, or give rootfstype=";
	case EUCLEAN: /* ext4's and xfs's word for a corrupted filesystem */
	case EIO:
		return " — the filesystem is damaged: repair it with fsck from a rescue system";
	case ENODEV:
		return " — the kernel does not know this filesystem: add its module to the initramfs";
	case ENOENT:
	case ENXIO:
		return " — the device is gone: check the disk and its driver";
	case EACCES:
	case EROFS:
		return " — the device is read-only: mount it with ro";
	case EBUSY:
		return " — something is already mounted there";
	default:
		return "";
	}
}

static void ensure_fs(struct execute_ctx *ctx, const char *fstype)
{
	if (ctx->ensure_fs && fstype && fstype[0])
		ctx->ensure_fs(fstype, ctx->data);
}

static int mount_at(struct execute_ctx *ctx, const char *source, const char *target,
		    const char *fstype, const char *options)
{
	char data[PLAN_OPTIONS];
	unsigned long flags;
	int r = mountopts_parse(options, &flags, data, sizeof(data));

	if (r < 0) {
		why_set(ctx, "unable to mount %s on %s: options too long",
			 source, target);
		goto out;
	}
	r = make_directories(target, 0755);
	if (r < 0) {
		why_set(ctx, "unable to create the mount point %s: %s",
			 target, strerror(-r));
		goto out;
	}
	ensure_fs(ctx, fstype);
	if (mount(source, target, fstype, flags, data[0] ? data : NULL) < 0) {
		r = -errno;
		why_set(ctx, "unable to mount %s (%s) on %s: %s%s", source,
			 fstype, target, strerror(-r), mount_hint(-r));
	}
out:
	return r;
}

/* A device earlymount set up with dm-verity (its dm UUID, verity_open.c): read errors there
 * are what verification refused, or what the disk under it could not read. */
static bool is_verity_device(const char *dev)
{
	char real[PATH_MAX], path[PATH_MAX + 32], uuid[128];
	const char *base;

	if (!realpath(dev, real) || !(base = strrchr(real, '/')))
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s/dm/uuid", base + 1);
	return sysfs_read_line_at(AT_FDCWD, path, uuid, sizeof(uuid)) &&
	       startswith(uuid, "CRYPT-VERITY-");
}

static const char *resolve_failure(int r)
{
	return r == -ENOTUNIQ ? "several partitions match it, name one by PARTUUID=" : strerror(-r);
}

/* What an unlocked device holds is known only now: the plan could not look inside. */
static void probe_unlocked(const char *dev, char *fstype, size_t size)
{
	int r = probe_device_fstype(dev, fstype, size);

	if (r < 0)
		log_warn("unable to probe %s: %s", dev, strerror(-r));
	else if (fstype[0])
		log_debug("%s holds %s", dev, fstype);
}

static int op_mount(const struct plan_step *s, struct execute_ctx *ctx)
{
	const struct part *part = NULL;
	char dev[PATH_MAX];
	char probed[32] = "";
	char options[PLAN_OPTIONS + sizeof(",norecovery")];
	const char *fstype = s->fstype;
	bool norecovery;
	int r = execute_resolve_source(s, ctx->disks, dev, sizeof(dev), &part);

	if (r < 0) {
		why_set(ctx, "unable to find %s to mount on %s: %s", s->source, s->target,
			 resolve_failure(r));
		goto out;
	}
	if (!fstype[0] && part)
		fstype = part->fstype;
	if (!fstype[0] && !part) {
		probe_unlocked(dev, probed, sizeof(probed));
		fstype = probed;
	}
	if (!fstype[0]) {
		r = -EINVAL;
		why_set(ctx,
			 "unable to mount %s on %s: no filesystem was recognised on it — give rootfstype=",
			 dev, s->target);
		goto out;
	}
	norecovery = s->norecovery_if_journalled && plan_fstype_journalled(fstype);
	snprintf(options, sizeof(options), "%s%s%s", s->options,
		 s->options[0] && norecovery ? "," : "", norecovery ? "norecovery" : "");
	r = mount_at(ctx, dev, s->target, fstype, options);
	if (r == -EIO && is_verity_device(dev))
		why_set(ctx, "unable to mount %s (%s) on %s: %s — dm-verity could not verify what it "
			"read: a block does not match its hash, or the data or hash partition cannot be "
			"read (the kernel's messages above name the device and sector); it is not used "
			"unverified", dev, fstype, s->target, strerror(-r));
out:
	return r;
}

static int op_fsck(const struct plan_step *s, struct execute_ctx *ctx)
{
	const struct part *part = NULL;
	char dev[PATH_MAX];
	char probed[32] = "";
	const char *fstype = s->fstype;
	int r = execute_resolve_source(s, ctx->disks, dev, sizeof(dev), &part);

	if (r < 0) {
		why_set(ctx, "unable to find %s to check before it is mounted on %s: %s", s->source,
			 s->target, resolve_failure(r));
		goto out;
	}
	if (!fstype[0] && part)
		fstype = part->fstype;
	if (!fstype[0]) {
		probe_unlocked(dev, probed, sizeof(probed));
		fstype = probed;
	}
	r = fsck_check(dev, fstype, s->target, s->options, ctx->why, sizeof(ctx->why));
out:
	return r;
}

/* "root" of /dev/mapper/root: the plan names device-mapper devices by their link. */
static const char *mapper_name(const char *target)
{
	const char *slash = strrchr(target, '/');

	return slash ? slash + 1 : target;
}

static int op_verity(const struct plan_step *s, struct execute_ctx *ctx)
{
	char data[PATH_MAX], hash[PATH_MAX], sig[PATH_MAX];
	const char *name = mapper_name(s->target);
	const char *failed = s->source;
	int r = resolve_device(s->source, s->part, ctx->disks, data, sizeof(data), NULL);

	if (r == 0) {
		failed = s->hash_source;
		r = resolve_device(s->hash_source, s->hash_part, ctx->disks, hash, sizeof(hash), NULL);
	}
	if (r == 0 && s->sig_source[0]) {
		failed = s->sig_source;
		r = resolve_device(s->sig_source, s->sig_part, ctx->disks, sig, sizeof(sig), NULL);
	}
	if (r < 0) {
		why_set(ctx, "unable to find %s for the verity device %s: %s", failed, s->target,
			 resolve_failure(r));
		goto out;
	}
	if (ctx->load_module)
		ctx->load_module("dm-verity", ctx->data);
	r = verity_open(&(struct verity_request){ name, data, hash, s->root_hash, s->options,
						  s->sig_source[0] ? sig : NULL },
			ctx->why, sizeof(ctx->why));
out:
	return r;
}

static const char *const luks_modules[] = { LUKS_MODULES };

static int op_unlock(const struct plan_step *s, struct execute_ctx *ctx)
{
	static bool modules_loaded;
	char dev[PATH_MAX];
	char key_dev[PATH_MAX] = "";
	char header_dev[PATH_MAX] = "";
	struct luks_options o;
	char ignored[8];
	int r = resolve_device(s->source, s->part, ctx->disks, dev, sizeof(dev), NULL);

	if (r < 0) {
		why_set(ctx, "unable to find %s to unlock as %s: %s", s->source, s->target,
			 resolve_failure(r));
		goto out;
	}
	/* a key device named by a tag is one of the disks found at boot, or none */
	if (s->key_device[0] && resolve_device(s->key_device, NULL, ctx->disks, key_dev,
					       sizeof(key_dev), NULL) < 0)
		COPY_STR(key_dev, s->key_device);
	/* so is the device of a detached header (header=PATH:DEVICE); luks_open() says what is
	 * wrong with the options */
	if (luks_options_parse(s->options, &o, ignored, sizeof(ignored)) == 0 &&
	    o.header_device[0] &&
	    resolve_device(o.header_device, NULL, ctx->disks, header_dev, sizeof(header_dev), NULL) < 0)
		COPY_STR(header_dev, o.header_device);
	for (size_t i = 0; !modules_loaded && ctx->load_module && i < ARRAY_SIZE(luks_modules); i++)
		ctx->load_module(luks_modules[i], ctx->data);
	modules_loaded = true;
	r = luks_open(&(struct luks_request){ mapper_name(s->target), dev, s->options, s->key_file,
					      key_dev, header_dev, s->prompt, ctx->ensure_fs, ctx->data,
					      ctx->watch, s->part ? s->part->luks_tpm2 : 1,
					      s->identity, s->discovered, ctx->tpm2_wait },
		      ctx->why, sizeof(ctx->why));
out:
	return r;
}

static int op_tmpfs(const struct plan_step *s, struct execute_ctx *ctx)
{
	return mount_at(ctx, "tmpfs", s->target, "tmpfs", s->options);
}

static int op_overlay(const struct plan_step *s, struct execute_ctx *ctx)
{
	return mount_at(ctx, "overlay", s->target, "overlay", s->options);
}

static int op_bind(const struct plan_step *s, struct execute_ctx *ctx)
{
	int r = make_directories(s->target, 0755);

	if (r < 0) {
		why_set(ctx, "unable to create the mount point %s: %s",
			 s->target, strerror(-r));
		goto out;
	}
	if (mount(s->source, s->target, NULL, MS_BIND, NULL) < 0) {
		r = -errno;
		why_set(ctx, "unable to bind %s on %s: %s", s->source,
			 s->target, strerror(-r));
		goto out;
	}
	/* The kernel ignores MS_RDONLY on the bind itself; it takes a remount. */
	if (mountopts_has(s->options, "ro") &&
	    mount(NULL, s->target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0) {
		r = -errno;
		why_set(ctx, "unable to make the bind mount %s read-only: %s",
			 s->target, strerror(-r));
	}
out:
	return r;
}

static int op_move(const struct plan_step *s, struct execute_ctx *ctx)
{
	int r = make_directories(s->target, 0755);

	if (r == 0 && mount(s->source, s->target, NULL, MS_MOVE, NULL) < 0)
		r = -errno;
	if (r < 0)
		why_set(ctx, "unable to move the mount %s to %s: %s",
			 s->source, s->target, strerror(-r));
	return r;
}

static int op_mkdir(const struct plan_step *s, struct execute_ctx *ctx)
{
	int r = make_directories(s->target, s->mode ? s->mode : 0755);

	if (r < 0)
		why_set(ctx, "unable to create the directory %s: %s",
			 s->target, strerror(-r));
	return r;
}

static int op_symlink(const struct plan_step *s, struct execute_ctx *ctx)
{
	int r = 0;

	if (symlink(s->source, s->target) < 0 && errno != EEXIST) {
		r = -errno;
		why_set(ctx, "unable to create the symlink %s -> %s: %s",
			 s->target, s->source, strerror(-r));
	}
	return r;
}

/* Swap only adds memory: a partition without a swap signature must not stop the boot. An
 * unlocked one is looked into first: a hibernation image there is never overwritten. */
static int op_swapon(const struct plan_step *s, struct execute_ctx *ctx)
{
	const struct part *part = NULL;
	char dev[PATH_MAX];
	char probed[32] = "";
	int r = execute_resolve_source(s, ctx->disks, dev, sizeof(dev), &part);

	if (r == 0 && !s->fstype[0] && !part) {
		probe_unlocked(dev, probed, sizeof(probed));
		if (!streq(probed, "swap")) {
			r = -EINVAL;
			why_set(ctx, "not enabling swap on %s: it holds %s", s->source,
				 streq(probed, "swsuspend") ? "a hibernation image, which earlymount "
				 "does not resume from an encrypted swap and must not overwrite"
				 : probed[0] ? probed : "no swap signature");
			goto out;
		}
	}
	if (r == 0 && swapon(dev, 0) < 0)
		r = -errno;
	if (r < 0)
		why_set(ctx, "unable to enable swap on %s: %s", s->source, strerror(-r));
out:
	return r;
}

/* The plan put this first: nothing is mounted yet. A device that did not resolve, or a kernel
 * without hibernation, is the step's failure, a warning since the step is optional. Once a
 * boot: the kernel drops an image it has looked at, and the A/B fallback runs the plan again. */
static int op_resume(const struct plan_step *s, struct execute_ctx *ctx)
{
	static bool attempted;
	const char *offset = startswith(s->options, "resume_offset=");
	char dev[PATH_MAX];
	int r = 0;

	if (attempted)
		goto out;
	attempted = true;
	r = is_devno(s->source) ? copy_str(dev, sizeof(dev), s->source)
				: execute_resolve_source(s, ctx->disks, dev, sizeof(dev), NULL);
	if (r < 0)
		why_set(ctx, "unable to resume from %s: %s", s->source, strerror(-r));
	else
		r = resume_attempt(dev, offset, ctx->why, sizeof(ctx->why));
out:
	return r;
}

static int op_umount(const struct plan_step *s, struct execute_ctx *ctx)
{
	int r = 0;

	if (umount2(s->target, 0) < 0) {
		r = -errno;
		why_set(ctx, "unable to unmount %s: %s", s->target,
			 strerror(-r));
	}
	return r;
}

/* An NFS export, once the network is up (the boot's network stage): its version's module,
 * then the mount, tried until the boot's timeout. */
static int op_nfs(const struct plan_step *s, struct execute_ctx *ctx)
{
	const char *const *modules = nfs_modules(s->fstype);

	for (size_t i = 0; modules && modules[i] && ctx->load_module; i++)
		ctx->load_module(modules[i], ctx->data);
	return nfs_mount(s->source, s->target, s->fstype, s->options,
			 ctx->timeout_sec > 0 ? ctx->timeout_sec : EXECUTE_DEFAULT_TIMEOUT_SEC, ctx->why,
			 sizeof(ctx->why));
}

/* A host share: its transport's module first (nothing else asks for it), then the mount;
 * a mount that fails says which shares the machine has. */
static int op_share(const struct plan_step *s, struct execute_ctx *ctx)
{
	const char *const *modules = share_modules(s->fstype);
	char found[EXECUTE_WHY / 2];
	int r;

	if (nfs_fstype(s->fstype))
		return op_nfs(s, ctx);
	for (size_t i = 0; modules && modules[i] && ctx->load_module; i++)
		ctx->load_module(modules[i], ctx->data);
	r = mount_at(ctx, s->source, s->target, s->fstype, s->options);
	/* virtiofs says EINVAL for a tag it does not have, 9p's virtio transport ENOENT */
	if (r == -ENOENT || r == -EINVAL) {
		share_describe("/sys", s->fstype, found, sizeof(found));
		why_set(ctx, "unable to mount the %s share tagged '%s' on %s: %s — %s; check the tag "
			"QEMU was given (vhost-user-fs tag=, virtio-9p mount_tag=)", s->fstype, s->source,
			s->target, strerror(-r), found);
	}
	return r;
}

/* A volume group activated, an array assembled, a btrfs's devices scanned: done as their
 * members appeared, before this plan could name the device (lvm_activate.c, md_assemble.c,
 * btrfs_scan.c). The step stands in the plan where it belongs in the order; a device that did
 * not come was the wait's to report. */
static int op_growfs(const struct plan_step *s, struct execute_ctx *ctx)
{
	char dev[PATH_MAX];
	int r = execute_resolve_source(s, ctx->disks, dev, sizeof(dev), NULL);

	if (r < 0)
		why_set(ctx, "unable to grow %s: %s is not there", s->target, s->source);
	else
		r = growfs_mounted(s->target, dev, s->fstype, ctx->why, sizeof(ctx->why));
	return r;
}

static int op_made_already(const struct plan_step *s, struct execute_ctx *ctx)
{
	return 0;
}

static const struct op_runner {
	int (*run)(const struct plan_step *s, struct execute_ctx *ctx);
} op_runners[OP_MAX] = {
	[OP_MOUNT] = { op_mount },
	[OP_BIND] = { op_bind },
	[OP_MOVE] = { op_move },
	[OP_TMPFS] = { op_tmpfs },
	[OP_OVERLAY] = { op_overlay },
	[OP_MKDIR] = { op_mkdir },
	[OP_SYMLINK] = { op_symlink },
	[OP_SWAPON] = { op_swapon },
	[OP_UMOUNT] = { op_umount },
	[OP_VERITY] = { op_verity },
	[OP_UNLOCK] = { op_unlock },
	[OP_FSCK] = { op_fsck },
	[OP_POPULATE] = { execute_populate },
	[OP_SKEL_DIR] = { execute_skel_dir },
	[OP_SKEL_LINK] = { execute_skel_link },
	[OP_RESUME] = { op_resume },
	[OP_SHARE] = { op_share },
	[OP_ACTIVATE] = { op_made_already },
	[OP_ASSEMBLE] = { op_made_already },
	[OP_SCAN] = { op_made_already },
	[OP_GROWFS] = { op_growfs },
};

static bool op_is_skeleton(enum plan_op op)
{
	return op == OP_POPULATE || op == OP_SKEL_DIR || op == OP_SKEL_LINK;
}

static void log_step(const struct plan_step *s)
{
	const char *name = plan_op_name(s->op);
	const char *sep = s->options[0] ? " " : "";

	/* The skeleton's steps are conditional: what they did is said once they did it. */
	if (op_is_skeleton(s->op))
		log_debug("%s %s%s%s", name, s->source, s->source[0] ? " → " : "", s->target);
	else if (s->fstype[0])
		log_info("%s %s → %s (%s)%s%s", name, s->source, s->target, s->fstype, sep,
			 s->options);
	else if (s->source[0] && s->target[0])
		log_info("%s %s → %s%s%s", name, s->source, s->target, sep, s->options);
	else if (s->source[0])
		log_info("%s %s%s%s", name, s->source, sep, s->options);
	else
		log_info("%s %s%s%s", name, s->target, sep, s->options);
	if (s->reason[0])
		log_debug("  because %s", s->reason);
}

int execute_step(const struct plan_step *step, struct execute_ctx *ctx)
{
	int r = -EINVAL;

	ctx->why[0] = '\0';
	if ((unsigned)step->op >= OP_MAX || !op_runners[step->op].run) {
		snprintf(ctx->why, sizeof(ctx->why), "unknown plan step %d for %s", (int)step->op,
			 step->target);
		goto out;
	}
	log_step(step);
	r = op_runners[step->op].run(step, ctx);
	if (r < 0 && step->optional) {
		log_warn("%s; booting on without it", ctx->why);
		ctx->why[0] = '\0';
		r = 0;
	}
out:
	return r;
}

int execute_steps(const struct plan_step *steps, size_t from, size_t to, struct execute_ctx *ctx)
{
	int r = 0;

	for (size_t i = from; i < to && r == 0; i++) {
		r = execute_step(&steps[i], ctx);
		if (r < 0)
			ctx->failed = i;
	}
	return r;
}

static void undo_step(const struct plan_step *s, struct execute_ctx *ctx)
{
	char dev[PATH_MAX];
	int r = 0;

	switch (s->op) {
	case OP_MOUNT:
	case OP_SHARE:
	case OP_BIND:
	case OP_TMPFS:
	case OP_OVERLAY:
		/* a lazy unmount where something still holds it: the tree must go either way */
		if (umount2(s->target, 0) < 0 && umount2(s->target, MNT_DETACH) < 0)
			r = -errno;
		break;
	case OP_SWAPON:
		r = execute_resolve_source(s, ctx->disks, dev, sizeof(dev), NULL);
		if (r == 0 && swapoff(dev) < 0)
			r = -errno;
		break;
	case OP_VERITY:
	case OP_UNLOCK:
		r = dm_remove(mapper_name(s->target));
		break;
	default:
		break;
	}
	if (r < 0 && r != -EINVAL && r != -ENOENT)
		log_warn("unable to take back %s %s: %s", plan_op_name(s->op), s->target, strerror(-r));
}

void execute_undo(const struct plan_step *steps, size_t from, size_t to, struct execute_ctx *ctx)
{
	for (size_t i = to; i > from; i--)
		undo_step(&steps[i - 1], ctx);
}
