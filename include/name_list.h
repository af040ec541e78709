/* A growing list of strings, each copied. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct name_list {
	char **names;
	size_t n;
};

/* Appends a copy of name: 0 or -ENOMEM. */
int name_list_add(struct name_list *list, const char *name);
bool name_list_has(const struct name_list *list, const char *name);
/* Appends a copy of name unless the list has it: 0 or -ENOMEM. */
int name_list_add_once(struct name_list *list, const char *name);
void name_list_free(struct name_list *list);
