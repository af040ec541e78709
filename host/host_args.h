/* The host commands' command lines: options read the same way, usage errors said the same way. */
#pragma once

#include <getopt.h>

/* Says "earlymount COMMAND: WHAT 'VALUE'" (VALUE may be NULL) and points at --help:
 * EXIT_USAGE. */
int host_usage_error(const char *command, const char *what, const char *value);

/* One option: its getopt code and the word it was given in (its value, for an option that
 * takes one). 0 to go on; anything else stops the reading and is returned. */
typedef int host_option_fn(int c, const char *word, void *ctx);

/* getopt_long over argv from its start, every option to parse; a missing value and an
 * unknown option are usage errors said here. The first non-zero answer, or 0 with optind
 * at the first word that is not an option. */
int host_getopt(const char *command, int argc, char **argv, const char *shortopts,
		const struct option *longopts, host_option_fn *parse, void *ctx);
