/* A growing list of modaliases, each with whether its device has a driver. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alias_list.h"
#include "util.h"

int alias_list_add(struct alias_list *list, const char *alias, bool bound)
{
	int r = 0;

	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 128;
		struct alias_seen *grown = realloc(list->items, cap * sizeof(*grown));

		if (!grown) {
			r = -ENOMEM;
			goto out;
		}
		list->items = grown;
		list->cap = cap;
	}
	list->items[list->n].alias = strdup(alias);
	if (!list->items[list->n].alias) {
		r = -ENOMEM;
		goto out;
	}
	list->items[list->n++].bound = bound;
out:
	return r;
}

void alias_list_free(struct alias_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->items[i].alias);
	free(list->items);
}

bool alias_list_has(const struct alias_list *list, const char *alias)
{
	for (size_t i = 0; i < list->n; i++)
		if (streq(list->items[i].alias, alias))
			return true;
	return false;
}
