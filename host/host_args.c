/* The host commands' command lines: a command's declaration as getopt_long reads it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "host_args.h"

/* getopt answers an option without a letter with this plus its index. */
#define LONG_ONLY 256

/* getopt's view of a command: its arrays, and for each option the declaration and the
 * struct it writes into. */
struct getopt_view {
	struct option longopts[HOST_OPTS_MAX + 1];
	char shortopts[2 + 2 * HOST_OPTS_MAX + 1];
	const struct host_opt *opt[HOST_OPTS_MAX];
	void *ctx[HOST_OPTS_MAX];
	size_t n;
};

int host_usage_error(const char *command, const char *what, const char *value)
{
	fprintf(stderr, "earlymount %s: %s%s%s%s\n", command, what, value ? " '" : "",
		value ? value : "", value ? "'" : "");
	fprintf(stderr, "Try 'earlymount %s --help'.\n", command);
	return EXIT_USAGE;
}

static int view_add(struct getopt_view *v, const struct host_opt *o, void *ctx)
{
	size_t len = strlen(v->shortopts);

	if (v->n == HOST_OPTS_MAX)
		return -E2BIG;
	v->longopts[v->n] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
					     o->letter ? o->letter : LONG_ONLY + (int)v->n };
	v->opt[v->n] = o;
	v->ctx[v->n++] = ctx;
	if (o->letter) {
		v->shortopts[len++] = o->letter;
		if (o->arg)
			v->shortopts[len++] = ':';
	}
	return 0;
}

static int view_build(const struct host_command *cmd, void *args, struct getopt_view *v)
{
	const struct host_opt_group *g = cmd->groups;
	int r = 0;

	memset(v, 0, sizeof(*v));
	/* '+': the first word that is not an option ends them (qemu's kernel arguments follow);
	 * ':': a missing value is told from an unknown option */
	strcpy(v->shortopts, "+:");
	for (; r == 0 && g < cmd->groups + HOST_GROUPS_MAX && g->opts; g++)
		for (const struct host_opt *o = g->opts; r == 0 && o->name; o++)
			r = view_add(v, o, (char *)args + g->offset);
	return r;
}

/* The index of the option getopt answered c for; v->n for none. */
static size_t view_find(const struct getopt_view *v, int c)
{
	size_t i = 0;

	if (c >= LONG_ONLY)
		return (size_t)(c - LONG_ONLY);
	while (i < v->n && v->opt[i]->letter != c)
		i++;
	return i;
}

static int apply(const struct host_opt *o, void *ctx, const char *value)
{
	void *field = (char *)ctx + o->field;
	int r = 0;

	switch (o->kind) {
	case HOST_OPT_STRING:
		*(const char **)field = value;
		break;
	case HOST_OPT_FLAG:
		*(bool *)field = true;
		break;
	case HOST_OPT_LIST:
		r = name_list_add(field, value);
		break;
	case HOST_OPT_SETTER:
		r = o->set(ctx, value);
		break;
	}
	if (r == 0 && o->implies)
		*(bool *)((char *)ctx + o->implies - 1) = true;
	return r;
}

int host_args_parse(const struct host_command *cmd, int argc, char **argv, void *args)
{
	struct getopt_view v;
	int c, word_at, r = view_build(cmd, args, &v);

	if (r < 0) {
		fprintf(stderr, "earlymount %s: more than %d options declared\n", cmd->name, HOST_OPTS_MAX);
		r = EXIT_SYSTEM;
		goto out;
	}
	optind = 0; /* glibc: start over, so a second call (tests) parses afresh */
	opterr = 0; /* the usage errors say it, in our words */
	/* word_at: the word getopt reads next; it stays on one of several letters ("-jx") until
	 * the last, and an error names that word, not the one before */
	for (word_at = 1; r == 0 && (c = getopt_long(argc, argv, v.shortopts, v.longopts, NULL)) != -1;
	     word_at = optind) {
		const char *word = optind > word_at ? argv[optind - 1] : argv[optind];
		size_t i = view_find(&v, c);

		if (c == ':')
			r = host_usage_error(cmd->name, "this option needs a value:", word);
		else if (c == '?' || i == v.n)
			r = host_usage_error(cmd->name, "unknown option", word);
		else
			r = apply(v.opt[i], v.ctx[i], optarg);
	}
out:
	return r;
}
