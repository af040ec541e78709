/* fsck.mode= and fsck.repair=, and their rd. forms. */
#include "cmdline_keys.h"
#include "util.h"

/* systemd-fsck(8)'s words. */
static const struct word_value fsck_mode_words[] = {
	{ "auto", FSCK_AUTO },
	{ "force", FSCK_FORCE },
	{ "skip", FSCK_SKIP },
};

static const struct word_value fsck_repair_words[] = {
	{ "preen", FSCK_PREEN },
	{ "yes", FSCK_YES },
	{ "no", FSCK_NO },
};

int cmdline_set_fsck_mode(struct options *o, const char *value, const char **why)
{
	int mode = 0;
	int r = cmdline_word_lookup(fsck_mode_words, ARRAY_SIZE(fsck_mode_words), value, &mode);

	if (r == 0)
		o->fsck_mode = (enum fsck_mode)mode;
	else
		*why = "not a fsck mode; use auto, force or skip";
	return r;
}

int cmdline_set_fsck_repair(struct options *o, const char *value, const char **why)
{
	int repair = 0;
	int r = cmdline_word_lookup(fsck_repair_words, ARRAY_SIZE(fsck_repair_words), value, &repair);

	if (r == 0)
		o->fsck_repair = (enum fsck_repair)repair;
	else
		*why = "not a fsck repair mode; use preen, yes or no";
	return r;
}
