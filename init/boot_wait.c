/* The plan stage: waiting for the devices until a plan can be made, and how long. */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "boot_state.h"
#include "execute.h"
#include "log.h"
#include "nfs_mount.h"
#include "share.h"
#include "storage_hold.h"
#include "timing.h"
#include "util.h"

/* While other drivers still load, the filesystems a plan would mount load beside them. */
static void prefetch_filesystems(struct boot *b)
{
	char alias[sizeof("fs-") + sizeof(b->plan.steps[0].fstype)];

	for (size_t i = 0; i < b->plan.n_steps; i++) {
		const char *fstype = b->plan.steps[i].fstype;

		if (!fstype[0] || filesystem_registered(fstype))
			continue;
		snprintf(alias, sizeof(alias), "fs-%s", fstype);
		modules_request_alias(&b->modules, alias, true);
	}
}

/* What the boot waits for, in its messages. */
static const char *awaited(const struct boot *b)
{
	if (b->replanning)
		return "a device the root's files name";
	return b->opts.root_kind == ROOT_SHARE ? "the root share" : "the root partition";
}

/* A share can be mounted once its virtio device is bound to its driver, which the uevents
 * load: until then the plan waits, as for a disk, and its error says what is there. */
static void wait_for_shares(struct boot *b)
{
	char found[PLAN_TEXT];

	for (size_t i = 0; i < b->plan.n_steps; i++) {
		const struct plan_step *s = &b->plan.steps[i];

		/* an NFS export is there once the network is (the network stage) */
		if (s->op != OP_SHARE || nfs_fstype(s->fstype) || share_present("/sys", s->fstype, s->source))
			continue;
		share_describe("/sys", s->fstype, found, sizeof(found));
		/* a long list of tags is cut: the message still says which one is missing */
		if (snprintf(b->plan.error, sizeof(b->plan.error), "no %s share tagged '%s': %s",
			     s->fstype, s->source, found) >= (int)sizeof(b->plan.error))
			log_debug("the shares there: %s", found);
		b->plan_result = -ENOENT;
		break;
	}
}

/* A root (or /usr) named on the command line and not found may lie inside a volume the
 * command line or the image's crypttab lists (LVM on LUKS): those are unlocked as they
 * appear. Not for discovery, whose LUKS partitions are unlocked by the plan under their
 * roles' names. */
static bool listed_volumes_may_hold_it(const struct options *o, const struct machine *m)
{
	bool crypttab = o->luks.crypttab && m->has_crypttab && m->crypttab.n > 0;

	return o->luks.enabled && (o->luks.n_volumes > 0 || crypttab) &&
	       (o->root_kind == ROOT_DEVICE || (o->usr && o->usr_share == SHARE_NONE));
}

static void make_plan(struct boot *b, struct devices *d)
{
	struct plan_input in = { &b->opts, &d->disks, &b->machine, b->fallback.failed,
				 b->fallback.n };

	btrfs_mark_incomplete(&b->btrfs, &d->disks);
	b->plan_result = plan_build(&in, &b->plan);
	/* a btrfs may span devices: known once btrfs is loaded and shown them */
	if (b->plan_result == 0 && btrfs_plan_mounts(&b->btrfs, &b->plan, &d->disks))
		b->plan_result = plan_build(&in, &b->plan);
}

/* A plan counts once the devices settled, when a disk still to come could make it
 * ambiguous; a pinned one counts as soon as it is made. */
static bool plan_ready(struct devices *d, bool settled, void *data)
{
	struct boot *b = data;

	/* a member added since the slice began may have started an array's degraded timer */
	if (!b->wait_has_md_timer && md_degraded_due_ms(&b->md) >= 0) {
		b->wait_restart = true;
		return true;
	}
	make_plan(b, d);
	if (b->plan_result == -ENOENT && listed_volumes_may_hold_it(&b->opts, &b->machine)) {
		double began = timing_now();
		int r = boot_unlock_listed(b);

		if (r < 0) {
			b->plan_result = r;
			b->unlock_failed = true;
			return true;
		}
		/* the root's wait does not count the time a passphrase took to type */
		b->wait_paused_sec += timing_now() - began;
		make_plan(b, d);
		if (b->plan_result == -ENOENT) {
			b->wait_restart = true;
			return true;
		}
	}
	if (b->plan_result == 0)
		wait_for_shares(b);
	if (b->plan_result == 0 && !settled)
		prefetch_filesystems(b);
	/* The likely controllers are in and the root is not there: the slow-scanning ones get
	 * their turn after a short wait (NVMe names its disks after its insert returned). */
	if (b->plan_result == -ENOENT && settled && boot_storage_hold_due_ms(b) > 0) {
		if (b->wait_has_hold_timer)
			return false;
		log_info("%s is not behind the storage controllers inserted first: the slow-scanning "
			 "ones (SATA, SCSI, USB, SD) follow in %d ms", awaited(b), STORAGE_HOLD_MS);
		b->wait_restart = true; /* into a slice that ends when they are due */
		return true;
	}
	/* not one of them should bring a disk; but no root yet is reason enough to try */
	if (b->plan_result == -ENOENT && settled && boot_release_held(b, HELD_LOAD))
		return false;
	if (b->plan_result == -ENOENT && settled && !b->wait_announced) {
		b->wait_announced = true;
		if (b->opts.rootwait || b->opts.timeout_sec == 0)
			log_info("waiting for %s: %s", awaited(b), b->plan.error);
		else
			log_info("waiting up to %d s for %s: %s",
				 b->opts.timeout_sec > 0 ? b->opts.timeout_sec : DEFAULT_TIMEOUT_SEC,
				 awaited(b), b->plan.error);
	}
	/* the root is mounted already: no disk still to come changes that choice */
	if (b->replanning && b->plan_result != -ENOENT)
		return true;
	if (b->plan_result == 0 && !settled && boot_plan_pinned(b)) {
		modules_yield(&b->modules);
		return true;
	}
	return settled && b->plan_result != -ENOENT;
}

static bool never_ready(struct devices *d, bool settled, void *data)
{
	return false;
}

/* The shorter of two waits in ms, -1 being none. */
static int sooner_ms(int a, int b)
{
	return a < 0 || (b >= 0 && b < a) ? b : a;
}

/* A slice ended early: what was due then happens. */
static void slice_due(struct boot *b)
{
	if (md_degraded_due_ms(&b->md) == 0)
		md_start_degraded(&b->md);
	if (boot_storage_hold_due_ms(b) == 0)
		boot_release_held(b, HELD_LOAD);
}

/* devices_wait() for the plan, in slices that end when an md array missing members is due to
 * start degraded (it is started then), when one begins to wait (its timer is taken into the
 * next slice), when the slow-scanning storage controllers held back are due (they are
 * inserted then), or after a passphrase was asked (its time is added to the wait); the wait
 * goes on for what is left of timeout_ms. */
static int wait_in_slices(struct boot *b, int timeout_ms)
{
	double end = timeout_ms < 0 ? -1 : timing_now() + timeout_ms / 1000.0;
	int r, left, slice, due, hold_due;
	bool again;

	do {
		if (end >= 0)
			end += b->wait_paused_sec;
		b->wait_paused_sec = 0;
		left = end < 0 ? -1 : (int)((end - timing_now()) * 1000);
		if (end >= 0 && left < 0)
			left = 0;
		due = md_degraded_due_ms(&b->md);
		hold_due = boot_storage_hold_due_ms(b);
		slice = sooner_ms(sooner_ms(left, due), hold_due);
		b->wait_has_md_timer = due >= 0;
		b->wait_has_hold_timer = hold_due >= 0;
		b->wait_restart = false;
		r = devices_wait(&b->devices, slice, plan_ready, b);
		if (r == -ETIMEDOUT && slice != left)
			slice_due(b);
		again = (r == -ETIMEDOUT && slice != left) || (r == 0 && b->wait_restart);
	} while (again);
	return r;
}

int boot_stage_wait_for_plan(struct boot *b)
{
	int timeout_ms = boot_plan_timeout_ms(&b->opts);
	int r;

	/* rootdelay=: devices keep arriving and get their modules meanwhile, without polling. */
	if (b->opts.rootdelay_sec > 0) {
		log_info("rootdelay=%d: waiting %d s before looking for the root",
			 b->opts.rootdelay_sec, b->opts.rootdelay_sec);
		devices_wait(&b->devices, b->opts.rootdelay_sec * 1000, never_ready, b);
		if (timeout_ms > 0)
			timeout_ms = timeout_ms > b->opts.rootdelay_sec * 1000
					     ? timeout_ms - b->opts.rootdelay_sec * 1000
					     : 0;
	}
	r = wait_in_slices(b, timeout_ms);
	if (r == -ETIMEDOUT && b->plan_result == 0) {
		/* a driver stuck in its init must not hold a boot whose root is there */
		if (modules_loading(&b->modules) > 0)
			log_warn("gave up waiting for %zu module loads; going on with the disks present",
				 modules_loading(&b->modules));
		else
			log_warn("gave up waiting for the devices to settle (%s): a disk still to come "
				 "cannot be known; going on with the disks present", b->devices.unsettled);
		r = 0;
	}
	b->plan_counted_sec = timing_now();
	modules_set_parallel(&b->modules, false);
	if (b->unlock_failed)
		return b->plan_result; /* b->why says which volume, and why */
	log_info("discovery: %u disk probes, %.1f ms", b->devices.probes, b->devices.probe_ms);
	if (r == -ETIMEDOUT) {
		devices_report(&b->devices);
		return boot_fail(b, r, "gave up waiting for %s: %s — %s", awaited(b), b->plan.error,
				 b->opts.root_kind == ROOT_SHARE
					 ? "check the tag QEMU was given (vhost-user-fs tag=, virtio-9p "
					   "mount_tag=) and that the share's modules are in the initramfs, or "
					   "give rd.timeout="
					 : "check that the disk's driver is in the initramfs, or give root= "
					   "or rd.timeout=");
	}
	if (r < 0)
		return boot_fail(b, r, "unable to wait for block devices: %s", strerror(-r));
	if (b->plan_result < 0)
		return boot_fail(b, b->plan_result, "%s", b->plan.error);
	/* a plan made again with the root's files logs only the notes it adds (boot_mount.c) */
	for (size_t i = 0; i < b->plan.n_notes; i++)
		log_info("%s", b->plan.notes[i]);
	return 0;
}

int boot_wait_for_replan(struct boot *b)
{
	int r;

	b->wait_announced = false;
	b->replanning = true;
	r = wait_in_slices(b, boot_plan_timeout_ms(&b->opts));
	/* the devices settled long ago; a plan made is all that counts */
	if (r == -ETIMEDOUT && b->plan_result == 0)
		r = 0;
	if (b->unlock_failed)
		return b->plan_result;
	if (r == -ETIMEDOUT) {
		devices_report(&b->devices);
		return boot_fail(b, r, "gave up waiting for %s: %s — check the root's /etc/fstab, or "
				 "give mount.usr= or rd.timeout=", awaited(b), b->plan.error);
	}
	if (r < 0)
		return boot_fail(b, r, "unable to wait for block devices: %s", strerror(-r));
	if (b->plan_result < 0)
		return boot_fail(b, b->plan_result, "%s", b->plan.error);
	return 0;
}
