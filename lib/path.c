/* File names: joining them, and finding programs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "path.h"
#include "util.h"

int path_join(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int path_self(char *out, size_t size)
{
	ssize_t n = size > 0 ? readlink(PATH_SELF, out, size - 1) : -1;
	int r = 0;

	if (n < 0)
		r = size > 0 ? -errno : -ENAMETOOLONG;
	else
		out[n] = '\0';
	return r;
}

int path_find_program(const char *name, const char *also, char *out, size_t size)
{
	const char *env = getenv("PATH");
	char dirs[4096];
	char *save = NULL;
	int n = snprintf(dirs, sizeof(dirs), "%s%s%s", env && *env ? env : "/usr/bin:/bin",
			 also ? ":" : "", also ? also : "");
	int r = n < 0 || (size_t)n >= sizeof(dirs) ? -ENAMETOOLONG : -ENOENT;

	for (char *dir = strtok_r(dirs, ":", &save); dir && r == -ENOENT;
	     dir = strtok_r(NULL, ":", &save))
		if (path_join(out, size, dir, name) == 0 && access(out, X_OK) == 0)
			r = 0;
	return r;
}
