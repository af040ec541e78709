/* The host commands' command lines. */
#include <stdio.h>

#include "exit_codes.h"
#include "host_args.h"

int host_usage_error(const char *command, const char *what, const char *value)
{
	fprintf(stderr, "earlymount %s: %s%s%s%s\n", command, what, value ? " '" : "",
		value ? value : "", value ? "'" : "");
	fprintf(stderr, "Try 'earlymount %s --help'.\n", command);
	return EXIT_USAGE;
}

int host_getopt(const char *command, int argc, char **argv, const char *shortopts,
		const struct option *longopts, host_option_fn *parse, void *ctx)
{
	int c, r = 0;

	optind = 0; /* glibc: start over, so a second call (tests) parses afresh */
	opterr = 0; /* the usage errors say it, in our words */
	while (r == 0 && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const char *word = argv[optind - 1];

		if (c == ':')
			r = host_usage_error(command, "this option needs a value:", word);
		else if (c == '?')
			r = host_usage_error(command, "unknown option", word);
		else
			r = parse(c, word, ctx);
	}
	return r;
}
