/* A growing list of strings, each copied. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "name_list.h"
#include "util.h"

int name_list_add(struct name_list *list, const char *name)
{
	char **grown = realloc(list->names, (list->n + 1) * sizeof(*grown));
	int r = -ENOMEM;

	if (!grown)
		goto out;
	list->names = grown;
	list->names[list->n] = strdup(name);
	if (list->names[list->n]) {
		list->n++;
		r = 0;
	}
out:
	return r;
}

bool name_list_has(const struct name_list *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (streq(list->names[i], name))
			return true;
	return false;
}

int name_list_add_once(struct name_list *list, const char *name)
{
	return name_list_has(list, name) ? 0 : name_list_add(list, name);
}

void name_list_free(struct name_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->names[i]);
	free(list->names);
	list->names = NULL;
	list->n = 0;
}
