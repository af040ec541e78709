/* systemd.volatile=: a boolean, or the words state and overlay. */
#include "cmdline_keys.h"
#include "parse.h"
#include "util.h"

static const struct word_value volatile_words[] = {
	{ "state", VOLATILE_STATE },
	{ "overlay", VOLATILE_OVERLAY },
};

int cmdline_set_volatile(struct options *o, const char *value, const char **why)
{
	int b = value ? parse_boolean(value) : 1;
	int mode = 0;
	int r = 0;

	if (b >= 0) {
		o->volatile_mode = b ? VOLATILE_YES : VOLATILE_NO;
		goto out;
	}
	r = cmdline_word_lookup(volatile_words, ARRAY_SIZE(volatile_words), value, &mode);
	if (r == 0)
		o->volatile_mode = (enum volatile_mode)mode;
	else
		*why = "not a volatile mode; use yes, no, state or overlay";
out:
	return r;
}
