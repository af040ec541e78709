/* Runtime hook points, for images built without a generator: the executables in
 * HOOKS_DIR/<point>.d/ run one after another, in the C locale's order of their names, with the
 * boot's facts in their environment. A hook that fails stops the boot. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cmdline.h"
#include "plan.h"

#define HOOKS_DIR "/usr/lib/earlymount/hooks"

enum hook_point {
	HOOK_PRE_DISCOVER, /* modules loaded, devices settled; before looking for the root */
	HOOK_PRE_MOUNT,    /* the plan is made; nothing under /sysroot is mounted yet */
	HOOK_PRE_SWITCH,   /* everything is mounted under /sysroot; before switch_root */
	HOOK_POINT_MAX,
};

/* What a hook is told. plan is NULL before discovery. */
struct hooks_facts {
	enum hook_point point;
	const struct options *opts;
	const struct machine *machine;
	const struct plan *plan;
};

#define HOOKS_ENV_MAX 32
#define HOOKS_ENV_SIZE 32768

/* A NULL-terminated environment for execve(), with its own storage. */
struct hooks_env {
	char *vars[HOOKS_ENV_MAX + 1];
	size_t n;
	size_t used;
	char storage[HOOKS_ENV_SIZE];
};

#define HOOKS_MAX 64

struct hooks_list {
	char names[HOOKS_MAX][256];
	size_t n;
};

/* "pre-discover", "pre-mount", "pre-switch", or NULL. */
const char *hook_point_name(enum hook_point point);

/* Pure. Resets env. */
void hooks_env_init(struct hooks_env *env);
/* Appends KEY=VALUE. 0, -E2BIG when it does not fit, -EINVAL for a key with '='. */
int hooks_env_add(struct hooks_env *env, const char *key, const char *value);
/* The environment of a hook point: PATH, EARLYMOUNT_STAGE, EARLYMOUNT_SYSROOT,
 * EARLYMOUNT_ARCH, and what is known of the root, /usr, the disk, the init and the mounts
 * (see earlymount(8)). Pure. 0 or -E2BIG. */
int hooks_env_build(const struct hooks_facts *facts, struct hooks_env *env);

/* Whether a directory entry's name is one to run: not hidden, no editor backup (~), no
 * package manager leftover (.dpkg-*, .rpmnew, .rpmsave). Pure. */
bool hooks_name_wanted(const char *name);

/* The executable regular files of dir with wanted names, sorted. A missing dir is an empty
 * list. 0, -E2BIG for more than HOOKS_MAX, or the -errno of reading dir. */
int hooks_list_dir(const char *dir, struct hooks_list *list);

/* Runs the hooks of facts->point found under base (HOOKS_DIR at boot) and waits for each.
 * 0 when all exited 0 (or there are none); else -errno, with why naming the hook, how it
 * failed, and what to try. */
int hooks_run(const char *base, const struct hooks_facts *facts, char *why, size_t why_size);
