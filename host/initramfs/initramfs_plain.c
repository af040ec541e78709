/* `earlymount initramfs`: which modules are stored uncompressed although the others are
 * compressed. The archive itself is not compressed, so a plain .ko costs the kernel a copy
 * when it unpacks the image (about 3 ms a MB under QEMU's deterministic mode, x86-64), while
 * a .ko.zst costs user space its decompression at every insert (about 17 ms a MB): a module
 * that most boots insert is cheaper plain, one that most boots never touch is cheaper small.
 * See docs/performance.md, "Issue 48". */
#include <errno.h>
#include <libkmod/libkmod.h>
#include <string.h>

#include "initramfs.h"
#include "log.h"
#include "util.h"

/* The modules a boot from a virtual or NVMe disk with an ext4 root inserts: the PCI virtio
 * transport, the disks' drivers, ext4. What they need and their pre-softdeps (jbd2, mbcache,
 * crc16, crc32c) follow them. */
static const char *const likely_inserted[] = { "virtio_pci", "virtio_blk", "nvme", "ext4" };

static void mark_plain(struct builder *b, struct kmod_module *mod);

static void mark_list(struct builder *b, struct kmod_list *list)
{
	struct kmod_list *l;

	kmod_list_foreach(l, list) {
		struct kmod_module *dep = kmod_module_get_module(l);

		mark_plain(b, dep);
		kmod_module_unref(dep);
	}
}

static void mark_plain(struct builder *b, struct kmod_module *mod)
{
	struct chosen_module *chosen = initramfs_find_module(b, kmod_module_get_name(mod));
	struct kmod_list *deps, *pre = NULL, *post = NULL;

	/* not in the image (built in), or seen already */
	if (!chosen || chosen->plain)
		return;
	chosen->plain = true;
	deps = kmod_module_get_dependencies(mod);
	mark_list(b, deps);
	if (kmod_module_get_softdeps(mod, &pre, &post) == 0)
		mark_list(b, pre);
	kmod_module_unref_list(deps);
	kmod_module_unref_list(pre);
	kmod_module_unref_list(post);
}

int initramfs_mark_plain_modules(struct builder *b)
{
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(likely_inserted) && r == 0; i++) {
		struct kmod_list *list = NULL;

		r = kmod_module_new_from_lookup(b->kmod, likely_inserted[i], &list);
		mark_list(b, list);
		kmod_module_unref_list(list);
	}
	if (r < 0)
		log_err("unable to look up the modules stored uncompressed: %s", strerror(-r));
	return r;
}
