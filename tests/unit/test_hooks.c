/* init/hooks.c: the environment hooks get, which files run and in what order, and how a
 * failing hook stops the boot. The hooks are small shell scripts in a temporary directory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hooks.h"
#include "util.h"

struct fixture {
	char base[64];
	char dir[128];
	char out[128];
};

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void add_hook(struct fixture *fx, const char *name, const char *body, mode_t mode)
{
	char path[256];
	char text[1024];

	snprintf(path, sizeof(path), "%s/%s", fx->dir, name);
	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", body);
	write_file(path, text, mode);
}

static char *read_all(const char *path)
{
	static char text[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	snprintf(fx->base, sizeof(fx->base), "/tmp/test_hooks.XXXXXX");
	assert_non_null(mkdtemp(fx->base));
	snprintf(fx->dir, sizeof(fx->dir), "%s/pre-mount.d", fx->base);
	assert_int_equal(mkdir(fx->dir, 0755), 0);
	snprintf(fx->out, sizeof(fx->out), "%s/out", fx->base);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->base);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

static const char *env_get(const struct hooks_env *env, const char *key)
{
	size_t n = strlen(key);

	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->vars[i], key, n) == 0 && env->vars[i][n] == '=')
			return env->vars[i] + n + 1;
	return NULL;
}

/* A plan as the planner makes it for a DPS disk: root and /usr, then the API moves. */
static void sample_plan(struct plan *plan, struct disk *disk, struct part *root)
{
	memset(plan, 0, sizeof(*plan));
	memset(disk, 0, sizeof(*disk));
	memset(root, 0, sizeof(*root));
	COPY_STR(disk->path, "/dev/vda");
	COPY_STR(root->devpath, "/dev/vda1");
	plan->disk = disk;
	plan->steps[0] = (struct plan_step){ .op = OP_MOUNT, .source = "PARTUUID=1234",
					     .target = SYSROOT, .fstype = "ext4",
					     .options = "ro,nodev", .part = root };
	plan->steps[1] = (struct plan_step){ .op = OP_MKDIR, .target = SYSROOT "/usr",
					     .mode = 0755 };
	plan->steps[2] = (struct plan_step){ .op = OP_MOUNT, .source = "/dev/vda2",
					     .target = SYSROOT "/usr", .fstype = "ext4",
					     .options = "ro" };
	plan->n_steps = 3;
	COPY_STR(plan->init, "/sbin/init");
}

static void point_names(void **state)
{
	assert_string_equal(hook_point_name(HOOK_PRE_DISCOVER), "pre-discover");
	assert_string_equal(hook_point_name(HOOK_PRE_MOUNT), "pre-mount");
	assert_string_equal(hook_point_name(HOOK_PRE_SWITCH), "pre-switch");
	assert_null(hook_point_name(HOOK_POINT_MAX));
}

static void env_before_discovery_says_what_root_asked_for(void **state)
{
	static struct hooks_env env;
	struct options opts;
	struct machine m = { .arch = arch_native() };
	struct hooks_facts f = { HOOK_PRE_DISCOVER, &opts, &m, NULL };

	options_init(&opts);
	assert_int_equal(cmdline_parse("root=LABEL=r init=/bin/x systemd.volatile=state", &opts, NULL, 0), 0);
	COPY_STR(m.loader_partuuid, "abcd");
	assert_int_equal(hooks_env_build(&f, &env), 0);
	assert_null(env.vars[env.n]);
	assert_string_equal(env_get(&env, "EARLYMOUNT_STAGE"), "pre-discover");
	assert_string_equal(env_get(&env, "EARLYMOUNT_SYSROOT"), "/sysroot");
	assert_string_equal(env_get(&env, "EARLYMOUNT_ROOT"), "LABEL=r");
	assert_string_equal(env_get(&env, "EARLYMOUNT_INIT"), "/bin/x");
	assert_string_equal(env_get(&env, "EARLYMOUNT_VOLATILE"), "state");
	assert_string_equal(env_get(&env, "EARLYMOUNT_LOADER_PARTUUID"), "abcd");
	assert_string_equal(env_get(&env, "EARLYMOUNT_ARCH"), arch_name(arch_native()));
	assert_non_null(env_get(&env, "PATH"));
	assert_null(env_get(&env, "EARLYMOUNT_MOUNTS"));
}

static void env_discover_without_root(void **state)
{
	static struct hooks_env env;
	struct options opts;
	struct hooks_facts f = { HOOK_PRE_DISCOVER, &opts, NULL, NULL };

	options_init(&opts);
	assert_int_equal(hooks_env_build(&f, &env), 0);
	assert_string_equal(env_get(&env, "EARLYMOUNT_ROOT"), "gpt-auto");
	assert_null(env_get(&env, "EARLYMOUNT_ARCH"));
}

static void env_from_plan(void **state)
{
	static struct hooks_env env;
	static struct plan plan;
	struct disk disk;
	struct part root;
	struct options opts;
	struct machine m = { .arch = arch_native(), .has_machine_id = true,
			     .machine_id = { 0xcc, 0x1f, 0xed, 0x1f } };
	struct hooks_facts f = { HOOK_PRE_SWITCH, &opts, &m, &plan };

	options_init(&opts);
	sample_plan(&plan, &disk, &root);
	assert_int_equal(hooks_env_build(&f, &env), 0);
	assert_string_equal(env_get(&env, "EARLYMOUNT_STAGE"), "pre-switch");
	/* the device node the partition was found at, not the spec */
	assert_string_equal(env_get(&env, "EARLYMOUNT_ROOT"), "/dev/vda1");
	assert_string_equal(env_get(&env, "EARLYMOUNT_ROOT_FSTYPE"), "ext4");
	assert_string_equal(env_get(&env, "EARLYMOUNT_ROOT_OPTIONS"), "ro,nodev");
	assert_string_equal(env_get(&env, "EARLYMOUNT_USR"), "/dev/vda2");
	assert_string_equal(env_get(&env, "EARLYMOUNT_DISK"), "/dev/vda");
	assert_string_equal(env_get(&env, "EARLYMOUNT_INIT"), "/sbin/init");
	assert_string_equal(env_get(&env, "EARLYMOUNT_MACHINE_ID"), "cc1fed1f000000000000000000000000");
	assert_string_equal(env_get(&env, "EARLYMOUNT_MOUNTS"),
			    "/sysroot /dev/vda1 ext4 ro,nodev\n/sysroot/usr /dev/vda2 ext4 ro");
}

static void env_overflow_is_an_error_not_a_crash(void **state)
{
	static struct hooks_env env;
	static char big[HOOKS_ENV_SIZE];

	hooks_env_init(&env);
	memset(big, 'x', sizeof(big) - 1);
	assert_int_equal(hooks_env_add(&env, "A", "1"), 0);
	assert_int_equal(hooks_env_add(&env, "BIG", big), -E2BIG);
	assert_int_equal(env.n, 1);
	assert_null(env.vars[1]);
	assert_int_equal(hooks_env_add(&env, "B", "2"), 0);
	assert_string_equal(env.vars[1], "B=2");
	assert_int_equal(hooks_env_add(&env, "C=D", "2"), -EINVAL);
	for (size_t i = env.n; i < HOOKS_ENV_MAX; i++)
		assert_int_equal(hooks_env_add(&env, "K", "v"), 0);
	assert_int_equal(hooks_env_add(&env, "K", "v"), -E2BIG);
}

static void names_like_run_parts(void **state)
{
	assert_true(hooks_name_wanted("10-net"));
	assert_true(hooks_name_wanted("cryptsetup.sh"));
	assert_false(hooks_name_wanted(".hidden"));
	assert_false(hooks_name_wanted("10-net~"));
	assert_false(hooks_name_wanted("10-net.dpkg-old"));
	assert_false(hooks_name_wanted("10-net.rpmnew"));
	assert_false(hooks_name_wanted(""));
}

static void missing_directory_runs_nothing(void **state)
{
	struct fixture *fx = *state;
	struct options opts;
	struct hooks_facts f = { HOOK_PRE_SWITCH, &opts, NULL, NULL };
	char why[512] = "";

	options_init(&opts);
	assert_int_equal(hooks_run(fx->base, &f, why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

static void hooks_run_in_order_with_the_facts(void **state)
{
	struct fixture *fx = *state;
	struct options opts;
	struct hooks_facts f = { HOOK_PRE_MOUNT, &opts, NULL, NULL };
	char body[512];
	char why[512] = "";

	options_init(&opts);
	snprintf(body, sizeof(body), "echo \"$(basename \"$0\") $EARLYMOUNT_STAGE $EARLYMOUNT_ROOT\" >>%s", fx->out);
	add_hook(fx, "20-second", body, 0755);
	add_hook(fx, "10-first", body, 0755);
	add_hook(fx, "15-not-executable", body, 0644);
	add_hook(fx, ".15-hidden", body, 0755);
	add_hook(fx, "15-backup~", body, 0755);
	assert_int_equal(hooks_run(fx->base, &f, why, sizeof(why)), 0);
	assert_string_equal(read_all(fx->out), "10-first pre-mount gpt-auto\n20-second pre-mount gpt-auto\n");
}

static void failing_hook_stops_with_its_name(void **state)
{
	struct fixture *fx = *state;
	struct options opts;
	struct hooks_facts f = { HOOK_PRE_MOUNT, &opts, NULL, NULL };
	char body[256];
	char why[512] = "";

	options_init(&opts);
	snprintf(body, sizeof(body), "echo ran >>%s", fx->out);
	add_hook(fx, "10-fails", "exit 3", 0755);
	add_hook(fx, "20-never", body, 0755);
	assert_int_equal(hooks_run(fx->base, &f, why, sizeof(why)), -ECANCELED);
	assert_non_null(strstr(why, "pre-mount.d/10-fails"));
	assert_non_null(strstr(why, "exit status 3"));
	assert_null(read_all(fx->out));
}

static void killed_hook_says_the_signal(void **state)
{
	struct fixture *fx = *state;
	struct options opts;
	struct hooks_facts f = { HOOK_PRE_MOUNT, &opts, NULL, NULL };
	char why[512] = "";

	options_init(&opts);
	add_hook(fx, "10-killed", "kill -TERM $$", 0755);
	assert_int_equal(hooks_run(fx->base, &f, why, sizeof(why)), -ECANCELED);
	assert_non_null(strstr(why, "10-killed"));
	assert_non_null(strstr(why, "signal 15"));
}

static void hook_without_interpreter_is_reported(void **state)
{
	struct fixture *fx = *state;
	struct options opts;
	struct hooks_facts f = { HOOK_PRE_MOUNT, &opts, NULL, NULL };
	char path[256];
	char why[512] = "";

	options_init(&opts);
	snprintf(path, sizeof(path), "%s/10-no-shebang", fx->dir);
	write_file(path, "\x7f" "ELF garbage", 0755);
	assert_true(hooks_run(fx->base, &f, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "10-no-shebang"));
}

static void list_sorts_in_c_order(void **state)
{
	struct fixture *fx = *state;
	static struct hooks_list list;

	add_hook(fx, "b", "true", 0755);
	add_hook(fx, "A", "true", 0755);
	add_hook(fx, "a", "true", 0755);
	assert_int_equal(mkdir(strcat(strcpy((char[256]){ 0 }, fx->dir), "/dir"), 0755), 0);
	assert_int_equal(hooks_list_dir(fx->dir, &list), 0);
	assert_int_equal(list.n, 3);
	assert_string_equal(list.names[0], "A");
	assert_string_equal(list.names[1], "a");
	assert_string_equal(list.names[2], "b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(point_names),
		cmocka_unit_test(env_before_discovery_says_what_root_asked_for),
		cmocka_unit_test(env_discover_without_root),
		cmocka_unit_test(env_from_plan),
		cmocka_unit_test(env_overflow_is_an_error_not_a_crash),
		cmocka_unit_test(names_like_run_parts),
		cmocka_unit_test_setup_teardown(missing_directory_runs_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(hooks_run_in_order_with_the_facts, setup, teardown),
		cmocka_unit_test_setup_teardown(failing_hook_stops_with_its_name, setup, teardown),
		cmocka_unit_test_setup_teardown(killed_hook_says_the_signal, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_without_interpreter_is_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(list_sorts_in_c_order, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
