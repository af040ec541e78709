/* The host commands' command lines, declared: each option once, with its help and what it
 * sets. The parser (getopt_long) and the --help text both come from the declaration, as
 * toybox's option strings and kmod's struct kmod_cmd do; usage errors are said one way. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "name_list.h"

/* What an option does with its value. */
enum host_opt_kind {
	HOST_OPT_STRING, /* the value into a const char * */
	HOST_OPT_FLAG,   /* true into a bool: a switch, no value */
	HOST_OPT_LIST,   /* the value added to a struct name_list */
	HOST_OPT_SETTER, /* set() decides: a value to check or to convert */
};

struct host_opt {
	const char *name; /* the long name, without "--"; NULL ends a table */
	char letter;      /* the short name, or 0 */
	const char *arg;  /* the value's name in the help; NULL for a switch */
	enum host_opt_kind kind;
	size_t field;     /* where in the group's struct (HOST_STRING() and the others) */
	/* HOST_IMPLIES(): a bool of the group's struct set true as well, once the option is
	 * taken (--luks-helper PATH asks for --luks); 0: none */
	size_t implies;
	/* ctx: the group's struct; value: NULL for a switch. 0 goes on; anything else stops the
	 * parse and is its answer, the operator told already. */
	int (*set)(void *ctx, const char *value);
	const char *help; /* lines split by '\n'; with help_default, its "%s" */
	const char *(*help_default)(void); /* a default known only at run time */
};

/* The offset of member in type, which must be a ctype: a mismatch fails the build, where a
 * store through the offset would corrupt the neighbour. */
#define HOST_FIELD(type, member, ctype) \
	(offsetof(type, member) + \
	 0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((type *)0)->member), ctype) ? 1 : -1]))
#define HOST_STRING(type, member) .kind = HOST_OPT_STRING, .field = HOST_FIELD(type, member, const char *)
#define HOST_FLAG(type, member) .kind = HOST_OPT_FLAG, .field = HOST_FIELD(type, member, bool)
#define HOST_LIST(type, member) .kind = HOST_OPT_LIST, .field = HOST_FIELD(type, member, struct name_list)
#define HOST_SETTER(fn) .kind = HOST_OPT_SETTER, .set = (fn)
/* Plus one, for a bool at the struct's start: implies is 0 for none. */
#define HOST_IMPLIES(type, member) .implies = HOST_FIELD(type, member, bool) + 1

/* A table of options and where its struct sits in the command's (plan's and check's share
 * the plan inputs' table, which writes into their struct plan_inputs). */
struct host_opt_group {
	const struct host_opt *opts; /* NULL ends the command's groups */
	size_t offset;
};

#define HOST_GROUPS_MAX 4
/* The most options a command may declare, its groups' together. */
#define HOST_OPTS_MAX 48

struct host_command {
	const char *name;   /* "plan": in the usage errors */
	const char *head;   /* the usage lines and what comes before the options */
	struct host_opt_group groups[HOST_GROUPS_MAX]; /* their options, in the help's order */
	const char *tail;   /* what comes after them: notes, exit statuses */
	int column;         /* where the options' help texts start */
};

/* Says "earlymount COMMAND: WHAT 'VALUE'" (VALUE may be NULL) and points at --help:
 * EXIT_USAGE. */
int host_usage_error(const char *command, const char *what, const char *value);

/* getopt_long over argv from its start by cmd's declaration, into args, the command's
 * struct. Reading stops at the first word that is not an option. 0 with optind there;
 * EXIT_USAGE for an unknown option or a missing value, said here; or the first non-zero
 * answer of a setter (or -ENOMEM of a list). */
int host_args_parse(const struct host_command *cmd, int argc, char **argv, void *args);

/* cmd's --help: the head, an option a line (its help at cmd's column, a label too long for
 * it on a line of its own), the tail. */
void host_args_help(const struct host_command *cmd, FILE *out);
