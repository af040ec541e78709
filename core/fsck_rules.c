/* Which checker a filesystem gets and what its exit code means: fsck(8)'s conventions, which
 * systemd-fsck, mkinitcpio and initramfs-tools all follow. Pure. */
#include <errno.h>
#include <string.h>

#include "fsck_rules.h"
#include "util.h"

static const char *const e2fsck_programs[] = { "e2fsck", "fsck.ext4", "fsck.ext3", "fsck.ext2", NULL };
static const char *const fat_programs[] = { "fsck.vfat", "fsck.fat", "fsck.msdos", NULL };

static const struct fsck_checker checkers[] = {
	{ "ext4", e2fsck_programs, true },
	{ "ext3", e2fsck_programs, true },
	{ "ext2", e2fsck_programs, true },
	{ "vfat", fat_programs, false },
};

/* fsck(8)'s exit code bits */
#define FSCK_EXIT_CORRECTED 1
#define FSCK_EXIT_REBOOT 2

const struct fsck_checker *fsck_checker_for(const char *fstype)
{
	const struct fsck_checker *found = NULL;

	for (size_t i = 0; fstype && i < ARRAY_SIZE(checkers) && !found; i++)
		if (streq(fstype, checkers[i].fstype))
			found = &checkers[i];
	return found;
}

const char *fsck_repair_option(enum fsck_repair repair)
{
	switch (repair) {
	case FSCK_YES:
		return "-y";
	case FSCK_NO:
		return "-n";
	case FSCK_PREEN:
	default:
		return "-a";
	}
}

enum fsck_verdict fsck_verdict(int status)
{
	enum fsck_verdict v = FSCK_VERDICT_FAILED;

	if (status == 0)
		v = FSCK_VERDICT_CLEAN;
	else if (status == FSCK_EXIT_CORRECTED)
		v = FSCK_VERDICT_REPAIRED;
	else if (status > 0 && (status & ~(FSCK_EXIT_CORRECTED | FSCK_EXIT_REBOOT)) == 0)
		v = FSCK_VERDICT_REBOOT;
	return v;
}

int fsck_argv(const struct fsck_checker *c, const char *program, const char *options,
	      const char *device, char *words, size_t words_size, const char **argv, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	int r = copy_str(words, words_size, options);

	if (r == 0 && max < 3)
		r = -E2BIG;
	if (r < 0)
		goto out;
	argv[n++] = program;
	for (char *w = strtok_r(words, " ", &save); w && r == 0; w = strtok_r(NULL, " ", &save)) {
		if (streq(w, "-f") && !c->takes_force)
			continue;
		if (n + 2 >= max)
			r = -E2BIG;
		else
			argv[n++] = w;
	}
	argv[n++] = device;
	argv[n] = NULL;
out:
	return r < 0 ? -E2BIG : 0;
}
