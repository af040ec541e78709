/* A binary keymap into the kernel, entry by entry with KDSKBENT on the first VT, as
 * loadkeys does: every key of every modifier combination the map holds. The map is checked
 * whole first (lib/bkeymap.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kd.h>
#include <linux/keyboard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "bkeymap.h"
#include "keymap_load.h"
#include "log.h"
#include "paths.h"
#include "util.h"

#define KEYMAP_SIZE_MAX (8 + BKEYMAP_MAPS + BKEYMAP_MAPS * BKEYMAP_KEYS * 2)

static int set_entry(unsigned table, unsigned index, uint16_t value, void *data)
{
	struct kbentry e = { .kb_table = (unsigned char)table, .kb_index = (unsigned char)index,
			     .kb_value = value };

	return ioctl(*(int *)data, KDSKBENT, &e) < 0 ? -errno : 0;
}

static int load(const char *path)
{
	static uint8_t map[KEYMAP_SIZE_MAX + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC), tty = -1;
	ssize_t n = fd < 0 ? -errno : read(fd, map, sizeof(map));
	int r = n < 0 ? (int)(fd < 0 ? n : -errno) : 0;

	if (fd >= 0)
		close(fd);
	if (r == 0 && bkeymap_check(map, (size_t)n) < 0)
		r = -EBADMSG;
	if (r == 0 && (tty = open("/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		r = -errno;
	if (r == 0)
		r = bkeymap_walk(map, (size_t)n, set_entry, &tty);
	if (tty >= 0)
		close(tty);
	return r;
}

/* The default one by the name of the map it points at. */
static const char *shown_name(const char *path, const char *name)
{
	static char target[64];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n <= 0)
		return name;
	target[n] = '\0';
	target[strcspn(target, ".")] = '\0';
	return target;
}

void keymap_load(const struct options *o)
{
	char path[PATH_MAX];
	const char *name = o->keymap ? o->keymap : "default";
	int r;

	snprintf(path, sizeof(path), KEYMAP_DIR "/%s.bmap", name);
	r = load(path);
	if (r >= 0)
		log_info("keyboard layout: keymap %s (%d entries)", shown_name(path, name), r);
	else if (r == -ENOENT && !o->keymap)
		log_debug("no keymap in the image: the kernel's US layout");
	else if (r == -ENOENT)
		log_warn("rd.vconsole.keymap=%s: the image carries no such keymap (add it with "
			 "earlymount initramfs --keymap); the kernel's US layout is used", name);
	else
		log_warn("unable to load the keymap %s: %s; the kernel's US layout is used", path,
			 r == -EBADMSG ? "not a binary keymap (loadkeys -b)" : strerror(-r));
}
