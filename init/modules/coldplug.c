/* The coldplug walk: the modaliases of the devices the kernel found before PID 1 ran. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coldplug.h"
#include "modalias.h"
#include "sysfs.h"
#include "util.h"

/* The devices that can have a modalias: those on a bus, and of the devices on none only two
 * classes' (input devices, the DMI identity) carry one. Each list holds links to their
 * directories under /sys/devices. Reading those costs a few hundred system calls where
 * walking /sys/devices costs thousands (power/, queue/, attribute groups), and the other
 * classes (ttys, memory devices, consoles) hold no modalias: docs/performance.md has what
 * each cost under QEMU. */
static const struct device_list {
	const char *path;
	const char *devices; /* the subdirectory of each entry that lists devices; NULL: path does */
} device_lists[] = {
	{ "/sys/bus", "devices" },
	{ "/sys/class/input", NULL },
	{ "/sys/class/dmi", NULL },
};

static int collect_listed(int listfd, struct alias_list *list)
{
	DIR *dir = fdopendir(listfd);
	struct dirent *de;
	char path[NAME_MAX + sizeof("/modalias")];
	char alias[MODALIAS_MAX];
	int r = 0;

	if (!dir) {
		close(listfd);
		goto out;
	}
	while (r == 0 && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/modalias", de->d_name);
		if (!sysfs_read_line_at(listfd, path, alias, sizeof(alias)) || !alias[0])
			continue;
		snprintf(path, sizeof(path), "%s/driver", de->d_name);
		r = alias_list_add(list, alias, faccessat(listfd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0);
	}
	closedir(dir);
out:
	return r;
}

/* One entry of device_lists. A list or bus that is not there holds nothing to load. */
static int collect_device_list(const struct device_list *dl, struct alias_list *list)
{
	char path[NAME_MAX + 16];
	struct dirent *de;
	DIR *top;
	int r = 0;

	if (!dl->devices) {
		int fd = open(dl->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		r = fd >= 0 ? collect_listed(fd, list) : 0;
		goto out;
	}
	top = opendir(dl->path);
	if (!top)
		goto out;
	while (r == 0 && (de = readdir(top))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", de->d_name, dl->devices);
		fd = openat(dirfd(top), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			r = collect_listed(fd, list);
	}
	closedir(top);
out:
	return r;
}

#define CPU_MODALIAS "/sys/devices/system/cpu/modalias"

static int collect_modaliases(struct alias_list *list)
{
	char alias[MODALIAS_MAX];
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(device_lists) && r == 0; i++)
		r = collect_device_list(&device_lists[i], list);
	/* The CPUs' features: the cpu subsystem's root device, listed under no bus or class */
	if (r == 0 && sysfs_read_line_at(AT_FDCWD, CPU_MODALIAS, alias, sizeof(alias)) && alias[0])
		r = alias_list_add(list, alias, false);
	return r;
}

static int compare_alias(const void *a, const void *b)
{
	return strcmp(((const struct alias_seen *)a)->alias, ((const struct alias_seen *)b)->alias);
}

int coldplug_modaliases(struct alias_list *list)
{
	int r = collect_modaliases(list);

	if (r == 0 && list->n > 1)
		qsort(list->items, list->n, sizeof(*list->items), compare_alias);
	return r;
}
