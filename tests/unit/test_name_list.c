/* lib/name_list.c: copies kept in order, duplicates once, and a list left whole when memory
 * runs out. realloc and strdup are wrapped to fail on demand. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "name_list.h"

static bool fail_realloc, fail_strdup;

void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);

void *__wrap_realloc(void *p, size_t n)
{
	return fail_realloc ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_strdup ? NULL : __real_strdup(s);
}

static void test_add_copies_in_order(void **state)
{
	struct name_list list = { 0 };
	char name[] = "ext4";

	assert_false(name_list_has(&list, "ext4"));
	assert_int_equal(name_list_add(&list, name), 0);
	assert_int_equal(name_list_add(&list, "vfat"), 0);
	assert_int_equal(name_list_add(&list, "ext4"), 0);
	name[0] = 'X';
	assert_int_equal(list.n, 3);
	assert_string_equal(list.names[0], "ext4");
	assert_string_equal(list.names[1], "vfat");
	assert_string_equal(list.names[2], "ext4");
	assert_true(name_list_has(&list, "vfat"));
	assert_false(name_list_has(&list, "Xxt4"));
	assert_false(name_list_has(&list, "ext"));
	assert_false(name_list_has(&list, ""));
	name_list_free(&list);
	(void)state;
}

static void test_add_once(void **state)
{
	struct name_list list = { 0 };

	assert_int_equal(name_list_add_once(&list, "dm_mod"), 0);
	assert_int_equal(name_list_add_once(&list, "dm_mod"), 0);
	assert_int_equal(name_list_add_once(&list, "dm_crypt"), 0);
	assert_int_equal(name_list_add_once(&list, ""), 0);
	assert_int_equal(name_list_add_once(&list, ""), 0);
	assert_int_equal(list.n, 3);
	assert_string_equal(list.names[1], "dm_crypt");
	assert_string_equal(list.names[2], "");
	name_list_free(&list);
	(void)state;
}

/* Freed, the list is empty and may be used and freed again. */
static void test_free_empties(void **state)
{
	struct name_list list = { 0 };

	name_list_free(&list);
	assert_int_equal(name_list_add(&list, "a"), 0);
	name_list_free(&list);
	assert_null(list.names);
	assert_int_equal(list.n, 0);
	assert_false(name_list_has(&list, "a"));
	assert_int_equal(name_list_add(&list, "b"), 0);
	assert_int_equal(list.n, 1);
	name_list_free(&list);
	name_list_free(&list);
	(void)state;
}

/* -ENOMEM from either allocation: the names already there stay, and nothing leaks (ASan and
 * valgrind see to that). add_once of a name the list has allocates nothing. */
static void test_out_of_memory(void **state)
{
	struct name_list list = { 0 };

	assert_int_equal(name_list_add(&list, "a"), 0);
	fail_realloc = true;
	assert_int_equal(name_list_add(&list, "b"), -ENOMEM);
	assert_int_equal(name_list_add_once(&list, "b"), -ENOMEM);
	assert_int_equal(name_list_add_once(&list, "a"), 0);
	fail_realloc = false;
	fail_strdup = true;
	assert_int_equal(name_list_add(&list, "c"), -ENOMEM);
	assert_int_equal(name_list_add_once(&list, "c"), -ENOMEM);
	fail_strdup = false;
	assert_int_equal(list.n, 1);
	assert_string_equal(list.names[0], "a");
	assert_false(name_list_has(&list, "c"));
	assert_int_equal(name_list_add(&list, "d"), 0);
	assert_int_equal(list.n, 2);
	assert_string_equal(list.names[1], "d");
	name_list_free(&list);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_copies_in_order),
		cmocka_unit_test(test_add_once),
		cmocka_unit_test(test_free_empties),
		cmocka_unit_test(test_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
