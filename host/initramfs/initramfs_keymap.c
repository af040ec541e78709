/* `earlymount initramfs --keymap`: console keymaps compiled on the host with kbd's loadkeys
 * -b -u (Unicode keysyms, as the kernel's VTs default to UTF-8), checked, and put in the
 * image as KEYMAP_DIR/NAME.bmap; default.bmap points at the first. The boot loads one before
 * any prompt (init/unlock/keymap_load.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bkeymap.h"
#include "child.h"
#include "initramfs.h"
#include "log.h"
#include "paths.h"
#include "util.h"

#define BMAP_MAX (8 + BKEYMAP_MAPS + BKEYMAP_MAPS * BKEYMAP_KEYS * 2)

/* A map's name: its file name without .gz and .kmap or .map. */
static void keymap_name(const char *spec, char *out, size_t size)
{
	const char *base = strrchr(spec, '/') ? strrchr(spec, '/') + 1 : spec;
	static const char *const suffixes[] = { ".gz", ".kmap", ".map" };
	size_t n;

	snprintf(out, size, "%s", base);
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		n = strlen(out);
		if (n > strlen(suffixes[i]) && streq(out + n - strlen(suffixes[i]), suffixes[i]))
			out[n - strlen(suffixes[i])] = '\0';
	}
}

/* loadkeys -b -u spec into a temporary file, read back into map: its length, or -errno
 * (reported). */
static ssize_t compile(const char *spec, uint8_t *map, size_t size)
{
	char tmp[] = "/tmp/earlymount-keymap.XXXXXX";
	const char *argv[] = { "loadkeys", "-q", "-b", "-u", spec, NULL };
	int fd = mkstemp(tmp), status = 0;
	ssize_t n = -1;
	pid_t pid;
	int r = fd < 0 ? -errno : 0;

	if (r == 0)
		r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = fd, .err = -1,
						     .exec_failed = 127 },
				&pid);
	if (r == 0)
		r = child_wait(pid, &status);
	if (r == 0 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		r = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : -EINVAL;
	if (r == 0) {
		n = pread(fd, map, size, 0);
		r = n < 0 ? -errno : bkeymap_check(map, (size_t)n) < 0 ? -EBADMSG : 0;
	}
	if (r == -ENOENT)
		log_err("--keymap %s: loadkeys cannot be run (package kbd)", spec);
	else if (r == -EINVAL)
		log_err("--keymap %s: loadkeys failed (see above): no such keymap? (kbd's names, as "
			"console-data installs them, or a file)", spec);
	else if (r < 0)
		log_err("--keymap %s: %s", spec, r == -EBADMSG ? "loadkeys wrote no binary keymap" : strerror(-r));
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	return r < 0 ? r : n;
}

int initramfs_add_keymaps(struct builder *b)
{
	static uint8_t map[BMAP_MAX + 1];
	char name[64], path[128];
	int r = 0;

	for (size_t i = 0; i < b->keymaps.n && r == 0; i++) {
		ssize_t n = compile(b->keymaps.names[i], map, sizeof(map));

		keymap_name(b->keymaps.names[i], name, sizeof(name));
		snprintf(path, sizeof(path), "%s/%s.bmap", KEYMAP_DIR + 1, name);
		r = n < 0 ? (int)n : cpio_add_data(&b->cpio, path, 0644, map, (size_t)n);
		if (r == 0 && i == 0) {
			snprintf(path, sizeof(path), "%s/default.bmap", KEYMAP_DIR + 1);
			snprintf((char *)map, sizeof(map), "%s.bmap", name);
			r = cpio_add_symlink(&b->cpio, path, (char *)map);
		}
	}
	return r;
}
