/* The --help text of a host command, from its declaration. */
#include <stdio.h>
#include <string.h>

#include "host_args.h"

/* "  -o, --output OUT": the option as the help names it. */
static void option_label(const struct host_opt *o, char *label, size_t size)
{
	int n = o->letter ? snprintf(label, size, "  -%c, ", o->letter) : snprintf(label, size, "  ");

	snprintf(label + n, size - (size_t)n, "--%s%s%s", o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
}

/* The help's lines, those after the first indented to column. */
static void print_help_text(const struct host_opt *o, int column, FILE *out)
{
	char text[1024];
	const char *line = o->help;

	if (o->help_default) {
		snprintf(text, sizeof(text), o->help, o->help_default());
		line = text;
	}
	for (const char *nl; (nl = strchr(line, '\n')); line = nl + 1)
		fprintf(out, "%.*s\n%*s", (int)(nl - line), line, column, "");
	fprintf(out, "%s\n", line);
}

static void print_option(const struct host_opt *o, int column, FILE *out)
{
	char label[128];

	option_label(o, label, sizeof(label));
	/* two spaces at least between a label and its help, or the help starts a line below */
	if ((int)strlen(label) + 2 > column)
		fprintf(out, "%s\n%*s", label, column, "");
	else
		fprintf(out, "%-*s", column, label);
	print_help_text(o, column, out);
}

void host_args_help(const struct host_command *cmd, FILE *out)
{
	const struct host_opt_group *g = cmd->groups;

	fputs(cmd->head, out);
	for (; g < cmd->groups + HOST_GROUPS_MAX && g->opts; g++)
		for (const struct host_opt *o = g->opts; o->name; o++)
			print_option(o, cmd->column, out);
	if (cmd->tail)
		fputs(cmd->tail, out);
}
