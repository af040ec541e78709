/* A growing list of modaliases, each with whether its device has a driver. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct alias_seen {
	char *alias;
	bool bound; /* the device already has a driver: no module is no problem */
};

struct alias_list {
	struct alias_seen *items;
	size_t n;
	size_t cap;
};

/* Appends a copy of alias: 0 or -ENOMEM. */
int alias_list_add(struct alias_list *list, const char *alias, bool bound);
bool alias_list_has(const struct alias_list *list, const char *alias);
void alias_list_free(struct alias_list *list);
