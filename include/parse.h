/* Values in the forms systemd and the kernel write them, read without knowing whose value
 * it is (the command line's, a crypttab option's). Pure. */
#pragma once

#include <stdbool.h>

/* systemd's boolean words: 1/yes/y/true/t/on and 0/no/n/false/f/off. 1, 0 or -EINVAL. */
int parse_boolean(const char *s);

/* systemd's time spans in the units a boot timeout needs: "90", "90s", "1min30s",
 * "1 min 30 s", "500ms" (rounded up to whole seconds), and "infinity", which is 0. 0, -EINVAL,
 * or -ERANGE for a span longer than INT_MAX seconds. */
int parse_time_span(const char *s, int *seconds);

/* A whole number of seconds, digits only: 0, -EINVAL, or -ERANGE past INT_MAX. */
int parse_seconds(const char *s, int *seconds);

/* Whether s is a device number as the kernel writes it, "MAJ:MIN" in decimal. */
bool is_devno(const char *s);
