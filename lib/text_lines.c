/* Numbered lines and blank-separated fields, for the files the boot reads as tables. */
#include <string.h>

#include "text_lines.h"

void text_lines(const char *text, size_t len, char *buf, size_t size, text_line_fn *fn, void *ctx)
{
	unsigned number = 0;
	size_t at = 0;

	while (at < len && text[at]) {
		size_t n = 0;

		while (at + n < len && text[at + n] && text[at + n] != '\n')
			n++;
		number++;
		if (n < size) {
			memcpy(buf, text + at, n);
			buf[n] = '\0';
		}
		fn(n < size ? buf : NULL, number, ctx);
		at += n + (at + n < len && text[at + n] == '\n');
	}
}

int text_fields(char *line, char **fields, int max)
{
	int n = 0;
	char *save = NULL;

	for (char *f = strtok_r(line, " \t", &save); f && n < max; f = strtok_r(NULL, " \t", &save))
		fields[n++] = f;
	return n;
}
