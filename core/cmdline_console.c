/* rd.vconsole.keymap= and vconsole.keymap= (systemd-vconsole-setup's keys): the keyboard
 * layout the passphrase prompt reads, by the name of a keymap the image carries. */
#include <errno.h>
#include <string.h>

#include "cmdline_keys.h"
#include "util.h"

/* A keymap's name, as kbd names its files: no path, nothing a shell or a path would read. */
static bool keymap_name_valid(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < 64 && name[0] != '.' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int cmdline_set_keymap(struct options *o, const char *value, const char **why)
{
	int r = -EINVAL;

	if (!keymap_name_valid(value))
		*why = "not a keymap name (letters, digits, '.', '_' and '-')";
	else
		r = cmdline_store_or_reset(o, value, &o->keymap);
	return r;
}
