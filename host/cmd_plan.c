/* `earlymount plan`: what earlymount would mount at boot, computed on the host from disk
 * images, a command line and machine facts, with the same planner the boot uses. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "failure.h"
#include "host_args.h"
#include "paths.h"
#include "plan.h"
#include "plan_format.h"
#include "plan_inputs.h"
#include "util.h"

struct plan_args {
	struct plan_inputs in;
	bool json;
	bool help;
};

static const struct host_opt plan_opts[] = {
	{ "json", 'j', NULL, HOST_FLAG(struct plan_args, json), .help = "print JSON instead of text" },
	{ "help", 'h', NULL, HOST_FLAG(struct plan_args, help), .help = "print this help" },
	{ 0 },
};

static const struct host_command plan_command = {
	.name = "plan",
	.head = "usage: earlymount plan --image FILE [--image FILE2 ...] [OPTIONS]\n"
		"\n"
		"Prints what earlymount would mount, from disk images, as at boot, and what the\n"
		"initramfs needs for it.\n"
		"\n",
	.groups = { { plan_input_opts, offsetof(struct plan_args, in) }, { plan_opts, 0 } },
	.tail = "\n"
		"Exit status: 0 planned, 1 refused (the reason on stderr), 2 usage error, 3 unreadable image.\n",
	.column = 31,
};

static int parse_args(int argc, char **argv, struct plan_args *args)
{
	int r = host_args_parse(&plan_command, argc, argv, args);

	if (r == 0 && optind < argc)
		r = host_usage_error("plan", "unexpected argument", argv[optind]);
	/* a root on a host share needs no disk: a --cmdline alone can plan it */
	if (r == 0 && !args->help && args->in.n_images == 0 && !args->in.cmdline)
		r = host_usage_error("plan", "at least one --image FILE is needed", NULL);
	return r;
}

/* The plan, then what a boot that stops would do (the keys rd.emergency=, rd.shell=, panic=). */
static void print_failure_path(const struct options *opts)
{
	char line[512];

	failure_describe(opts, EMERGENCY_SHELL, line, sizeof(line));
	printf("%s\n", line);
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args args = { 0 };
	struct plan *plan = calloc(1, sizeof(*plan));
	int r = plan ? plan_inputs_init(&args.in, "plan") : EXIT_SYSTEM;

	if (r != 0)
		goto out;
	r = parse_args(argc, argv, &args);
	if (r != 0 || args.help) {
		if (args.help)
			host_args_help(&plan_command, stdout);
		goto out;
	}
	r = plan_inputs_load(&args.in);
	if (r == 0 && (r = plan_inputs_build(&args.in, plan)) != 0)
		fprintf(stderr, "earlymount: %s\n", plan->error);
	if (r != 0)
		goto out;
	if (args.json)
		plan_format_json(plan, stdout);
	else {
		plan_format_text(plan, stdout);
		print_failure_path(args.in.opts);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "earlymount: cannot write the plan: %s\n", strerror(errno));
		r = EXIT_SYSTEM;
	}
out:
	plan_inputs_free(&args.in);
	free(plan);
	return r;
}
