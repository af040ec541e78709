/* LVM2's names, and the command line's say in what is activated. Pure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lvm_names.h"
#include "util.h"

static bool lvm_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '_' || c == '.' || c == '-';
}

bool lvm_name_valid(const char *name)
{
	size_t len = strlen(name);
	bool ok = len > 0 && len < LVM_NAME_MAX && name[0] != '-' && !streq(name, ".") &&
		  !streq(name, "..");

	for (size_t i = 0; i < len && ok; i++)
		ok = lvm_name_char(name[i]);
	return ok;
}

/* Copies the dm-escaped text [from, to) into out with each "--" made '-': false when a
 * single '-' is left inside it, or out is too small. */
static bool unescape(const char *from, const char *to, char *out, size_t size)
{
	size_t n = 0;
	bool ok = from < to;

	for (const char *c = from; c < to && ok; c++) {
		if (*c == '-') {
			ok = c + 1 < to && c[1] == '-';
			c++;
		}
		ok = ok && n + 1 < size;
		if (ok)
			out[n++] = *c;
	}
	if (size > 0)
		out[ok ? n : 0] = '\0';
	return ok;
}

bool lvm_split_dm_name(const char *dm_name, char *vg, size_t vg_size, char *lv, size_t lv_size)
{
	const char *sep = NULL;
	const char *end = dm_name + strlen(dm_name);

	/* the first '-' that is not half of a "--" */
	for (const char *c = dm_name; *c && !sep; c++) {
		if (*c != '-')
			continue;
		if (c[1] == '-')
			c++;
		else
			sep = c;
	}
	return sep && unescape(dm_name, sep, vg, vg_size) && unescape(sep + 1, end, lv, lv_size);
}

struct list_out {
	char *out;
	size_t size;
	size_t len;
	bool full;
};

static void list_add(struct list_out *l, const char *item, size_t n)
{
	int w = snprintf(l->out + l->len, l->size - l->len, "%s\"%.*s\"", l->len > 2 ? ", " : "",
			 (int)n, item);

	if (w < 0 || (size_t)w >= l->size - l->len)
		l->full = true;
	else
		l->len += (size_t)w;
}

/* One item of rd.lvm.vg= (a VG name) or rd.lvm.lv= (VG/LV): whether every name in it is
 * valid. */
static bool item_valid(const char *item, size_t n, bool is_lv)
{
	char text[2 * LVM_NAME_MAX];
	char *slash;
	bool ok = n < sizeof(text);

	if (ok) {
		memcpy(text, item, n);
		text[n] = '\0';
		slash = strchr(text, '/');
		if (slash)
			*slash = '\0';
		ok = is_lv ? slash && lvm_name_valid(text) && lvm_name_valid(slash + 1)
			   : !slash && lvm_name_valid(text);
	}
	return ok;
}

static int add_items(struct list_out *l, const char *list, bool is_lv, char *err, size_t err_size)
{
	int r = 0;

	for (const char *item = list; item && *item && r == 0;) {
		size_t n = strcspn(item, ",");

		if (n > 0 && !item_valid(item, n, is_lv)) {
			snprintf(err, err_size, "%s=%.*s: not %s", is_lv ? "rd.lvm.lv" : "rd.lvm.vg",
				 n > 2 * LVM_NAME_MAX ? 2 * LVM_NAME_MAX : (int)n, item,
				 is_lv ? "VG/LV with LVM2's names (a-z A-Z 0-9 + _ . -)"
				       : "a volume group name (a-z A-Z 0-9 + _ . -)");
			r = -EINVAL;
		} else if (n > 0) {
			list_add(l, item, n);
		}
		item += n;
		if (*item == ',')
			item++;
	}
	return r;
}

int lvm_activation_list(const struct lvm_cmdline *l, char *out, size_t size, char *err, size_t err_size)
{
	struct list_out o = { out, size, 0, false };
	int r = 0;

	if (size < 5) {
		r = -ENAMETOOLONG;
		goto out;
	}
	out[0] = '\0';
	/* an empty rd.lvm.vg= restricts nothing */
	if (!(l->vgs && l->vgs[0]) && !(l->lvs && l->lvs[0]))
		goto out;
	o.len = (size_t)snprintf(out, size, "[ ");
	r = add_items(&o, l->vgs, false, err, err_size);
	if (r == 0)
		r = add_items(&o, l->lvs, true, err, err_size);
	if (r == 0 && !o.full && o.len + 3 <= size)
		snprintf(out + o.len, size - o.len, " ]");
	else if (r == 0)
		r = -ENAMETOOLONG;
	if (r < 0)
		out[0] = '\0';
out:
	return r;
}
