/* Runtime hook points: executables under HOOKS_DIR/<point>.d/, run in order with the boot's
 * facts in their environment. The environment is built purely; running them is the effect. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "hooks.h"
#include "log.h"
#include "util.h"

#define HOOKS_PATH "/usr/sbin:/usr/bin:/sbin:/bin"

static const char *const hook_point_names[HOOK_POINT_MAX] = {
	[HOOK_PRE_DISCOVER] = "pre-discover",
	[HOOK_PRE_MOUNT] = "pre-mount",
	[HOOK_PRE_SWITCH] = "pre-switch",
};

static const char *const volatile_names[] = {
	[VOLATILE_NO] = "no",
	[VOLATILE_YES] = "yes",
	[VOLATILE_STATE] = "state",
	[VOLATILE_OVERLAY] = "overlay",
};

/* Leftovers of editors and package managers that run-parts also passes over. */
static const char *const unwanted_suffixes[] = { "~", ".rpmnew", ".rpmsave", ".rpmorig",
						  ".swp", ".bak" };

const char *hook_point_name(enum hook_point point)
{
	if ((unsigned)point >= HOOK_POINT_MAX)
		return NULL;
	return hook_point_names[point];
}

void hooks_env_init(struct hooks_env *env)
{
	env->n = 0;
	env->used = 0;
	env->vars[0] = NULL;
}

/* The pieces of one KEY=VALUE go straight into the storage: the mount list can be long. */
static int env_append(struct hooks_env *env, const char *s)
{
	size_t len = strlen(s);

	if (env->used + len + 1 > sizeof(env->storage))
		return -E2BIG;
	memcpy(env->storage + env->used, s, len + 1);
	env->used += len;
	return 0;
}

static int env_begin(struct hooks_env *env, const char *key)
{
	int r;

	if (strchr(key, '=') || !key[0])
		return -EINVAL;
	if (env->n >= HOOKS_ENV_MAX)
		return -E2BIG;
	env->vars[env->n] = env->storage + env->used;
	r = env_append(env, key);
	if (r == 0)
		r = env_append(env, "=");
	return r;
}

static void env_end(struct hooks_env *env)
{
	env->used++; /* past the terminating NUL env_append left */
	env->n++;
	env->vars[env->n] = NULL;
}

int hooks_env_add(struct hooks_env *env, const char *key, const char *value)
{
	size_t mark_used = env->used;
	int r = env_begin(env, key);

	if (r == 0)
		r = env_append(env, value);
	if (r < 0) {
		env->used = mark_used;
		env->vars[env->n] = NULL;
		goto out;
	}
	env_end(env);
out:
	return r;
}

static bool step_is_mount(const struct plan_step *s)
{
	return s->op == OP_MOUNT || s->op == OP_SHARE || s->op == OP_TMPFS || s->op == OP_OVERLAY || s->op == OP_BIND ||
	       s->op == OP_MOVE;
}

/* At boot the plan knows the partition: its device node says more than a PARTUUID= spec. */
static const char *step_source(const struct plan_step *s)
{
	if (s->part && s->part->devpath[0])
		return s->part->devpath;
	return s->source[0] ? s->source : s->fstype;
}

/* The mount that ends up on top at target. */
static const struct plan_step *plan_mount_at(const struct plan *plan, const char *target)
{
	const struct plan_step *top = NULL;

	for (size_t i = 0; i < plan->n_steps; i++)
		if (step_is_mount(&plan->steps[i]) && streq(plan->steps[i].target, target))
			top = &plan->steps[i];
	return top;
}

static int env_add_mount(struct hooks_env *env, const char *key, const struct plan_step *s)
{
	char name[64];
	int r;

	if (!s)
		return 0;
	r = hooks_env_add(env, key, step_source(s));
	snprintf(name, sizeof(name), "%s_FSTYPE", key);
	if (r == 0)
		r = hooks_env_add(env, name, s->fstype);
	snprintf(name, sizeof(name), "%s_OPTIONS", key);
	if (r == 0)
		r = hooks_env_add(env, name, s->options);
	return r;
}

/* One line per mount: TARGET SOURCE FSTYPE OPTIONS, as at boot (under /sysroot). */
static int env_add_mount_list(struct hooks_env *env, const struct plan *plan)
{
	size_t mark_used = env->used;
	bool first = true;
	int r = env_begin(env, "EARLYMOUNT_MOUNTS");

	for (size_t i = 0; i < plan->n_steps && r == 0; i++) {
		const struct plan_step *s = &plan->steps[i];

		if (!step_is_mount(s))
			continue;
		if (!first)
			r = env_append(env, "\n");
		first = false;
		if (r == 0)
			r = env_append(env, s->target);
		if (r == 0)
			r = env_append(env, " ");
		if (r == 0)
			r = env_append(env, step_source(s));
		if (r == 0)
			r = env_append(env, " ");
		if (r == 0)
			r = env_append(env, s->fstype[0] ? s->fstype : "-");
		if (r == 0)
			r = env_append(env, " ");
		if (r == 0)
			r = env_append(env, s->options[0] ? s->options : "-");
	}
	if (r < 0) {
		env->used = mark_used;
		env->vars[env->n] = NULL;
		return r;
	}
	env_end(env);
	return 0;
}

static const char *root_from_options(const struct options *o)
{
	switch (o->root_kind) {
	case ROOT_DEVICE:
	case ROOT_SHARE: /* the share's tag, as the mount's source is */
		return o->root;
	case ROOT_TMPFS:
		return "tmpfs";
	default:
		return "gpt-auto";
	}
}

static int env_add_plan(struct hooks_env *env, const struct plan *plan)
{
	char usr[PLAN_PATH];
	int r;

	snprintf(usr, sizeof(usr), "%s/usr", SYSROOT);
	r = env_add_mount(env, "EARLYMOUNT_ROOT", plan_mount_at(plan, SYSROOT));
	if (r == 0)
		r = env_add_mount(env, "EARLYMOUNT_USR", plan_mount_at(plan, usr));
	if (r == 0 && plan->disk)
		r = hooks_env_add(env, "EARLYMOUNT_DISK", plan->disk->path);
	if (r == 0 && plan->init[0])
		r = hooks_env_add(env, "EARLYMOUNT_INIT", plan->init);
	if (r == 0)
		r = env_add_mount_list(env, plan);
	return r;
}

static void id128_hex(const uint8_t id[16], char out[33])
{
	for (size_t i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

int hooks_env_build(const struct hooks_facts *f, struct hooks_env *env)
{
	const char *point = hook_point_name(f->point);
	char machine_id[33];
	int r;

	hooks_env_init(env);
	if (!point)
		return -EINVAL;
	r = hooks_env_add(env, "PATH", HOOKS_PATH);
	if (r == 0)
		r = hooks_env_add(env, "EARLYMOUNT_STAGE", point);
	if (r == 0)
		r = hooks_env_add(env, "EARLYMOUNT_SYSROOT", SYSROOT);
	if (r == 0 && f->machine)
		r = hooks_env_add(env, "EARLYMOUNT_ARCH", arch_name(f->machine->arch));
	if (r == 0 && f->machine && f->machine->loader_partuuid[0])
		r = hooks_env_add(env, "EARLYMOUNT_LOADER_PARTUUID", f->machine->loader_partuuid);
	if (r == 0 && f->machine && f->machine->has_machine_id) {
		id128_hex(f->machine->machine_id, machine_id);
		r = hooks_env_add(env, "EARLYMOUNT_MACHINE_ID", machine_id);
	}
	if (r == 0 && f->opts && (unsigned)f->opts->volatile_mode < ARRAY_SIZE(volatile_names))
		r = hooks_env_add(env, "EARLYMOUNT_VOLATILE", volatile_names[f->opts->volatile_mode]);
	if (r < 0)
		goto out;
	if (f->plan) {
		r = env_add_plan(env, f->plan);
	} else if (f->opts) {
		/* Before discovery all there is to say about the root is what root= asked for. */
		r = hooks_env_add(env, "EARLYMOUNT_ROOT", root_from_options(f->opts));
		if (r == 0 && f->opts->init)
			r = hooks_env_add(env, "EARLYMOUNT_INIT", f->opts->init);
	}
out:
	return r;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && streq(s + n - m, suffix);
}

bool hooks_name_wanted(const char *name)
{
	if (!name[0] || name[0] == '.')
		return false;
	if (strstr(name, ".dpkg-"))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(unwanted_suffixes); i++)
		if (ends_with(name, unwanted_suffixes[i]))
			return false;
	return true;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool is_executable_file(int dir_fd, const char *name)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, 0) < 0)
		return false;
	return S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

int hooks_list_dir(const char *dir, struct hooks_list *list)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	list->n = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (!hooks_name_wanted(e->d_name) || !is_executable_file(dirfd(d), e->d_name))
			continue;
		if (list->n >= HOOKS_MAX || COPY_STR(list->names[list->n], e->d_name) < 0) {
			r = -E2BIG;
			goto out;
		}
		list->n++;
	}
	qsort(list->names, list->n, sizeof(list->names[0]), compare_names);
out:
	closedir(d);
	return r;
}

static void describe_status(int status, char *out, size_t size)
{
	if (WIFEXITED(status))
		snprintf(out, size, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(out, size, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(out, size, "wait status 0x%x", (unsigned)status);
}

/* posix_spawn reports an exec failure (ENOEXEC for a script without #!) as its result. */
static int run_one(const char *path, char *const envp[], char *why, size_t why_size)
{
	char *argv[] = { (char *)path, NULL };
	char status_text[96];
	pid_t pid;
	int status;
	int r = posix_spawn(&pid, path, NULL, NULL, argv, envp);

	if (r != 0) {
		snprintf(why, why_size, "unable to run hook %s: %s — make it executable with a #! line, or remove it",
			 path, strerror(r));
		return -r;
	}
	r = child_wait(pid, &status);
	if (r < 0) {
		snprintf(why, why_size, "unable to wait for hook %s: %s", path, strerror(-r));
		return r;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	describe_status(status, status_text, sizeof(status_text));
	snprintf(why, why_size,
		 "hook %s failed (%s) — fix or remove it; rd.break stops before the handoff to look around",
		 path, status_text);
	return -ECANCELED;
}

/* Static: the list and the environment are large, and PID 1 runs one point at a time. */
static struct hooks_list run_list;
static struct hooks_env run_env;

int hooks_run(const char *base, const struct hooks_facts *facts, char *why, size_t why_size)
{
	const char *point = hook_point_name(facts->point);
	char dir[512];
	char path[sizeof(dir) + 256];
	int r;

	if (!point)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s/%s.d", base, point);
	r = hooks_list_dir(dir, &run_list);
	if (r < 0) {
		snprintf(why, why_size, "unable to read the %s hooks in %s: %s", point, dir,
			 r == -E2BIG ? "more than 64 hooks, or a name too long" : strerror(-r));
		goto out;
	}
	if (run_list.n == 0)
		goto out;
	r = hooks_env_build(facts, &run_env);
	if (r < 0) {
		snprintf(why, why_size, "unable to pass the boot's facts to the %s hooks: %s", point,
			 strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < run_list.n && r == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, run_list.names[i]);
		log_info("running %s hook %s", point, path);
		r = run_one(path, run_env.vars, why, why_size);
	}
out:
	return r;
}
