/* Line-based configuration files (fstab, crypttab): a text cut into numbered lines, a line
 * into fields split on blanks. Pure. */
#pragma once

#include <stddef.h>

/* Called with each line of a text, NUL-terminated without its newline, and its number from 1;
 * line is NULL when the line did not fit the buffer. */
typedef void text_line_fn(char *line, unsigned number, void *ctx);

/* Calls fn for each line of text (len bytes; a NUL ends it sooner), copied into buf of size
 * bytes, which fn may change. */
void text_lines(const char *text, size_t len, char *buf, size_t size, text_line_fn *fn, void *ctx);
/* Splits line on blanks (spaces, tabs) into at most max fields, in place; their count. */
int text_fields(char *line, char **fields, int max);
