/* Mount options the way mount(8) splits them: the words the kernel takes as MS_* flags,
 * and everything else handed to the filesystem as data. Pure. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>

#include "mountopts.h"
#include "util.h"

static const struct mount_flag_word {
	const char *word;
	unsigned long set;
	unsigned long clear;
} mount_flag_words[] = {
	{ "defaults", 0, 0 },
	{ "ro", MS_RDONLY, 0 },
	{ "rw", 0, MS_RDONLY },
	{ "nodev", MS_NODEV, 0 },
	{ "dev", 0, MS_NODEV },
	{ "nosuid", MS_NOSUID, 0 },
	{ "suid", 0, MS_NOSUID },
	{ "noexec", MS_NOEXEC, 0 },
	{ "exec", 0, MS_NOEXEC },
	{ "sync", MS_SYNCHRONOUS, 0 },
	{ "async", 0, MS_SYNCHRONOUS },
	{ "dirsync", MS_DIRSYNC, 0 },
	{ "remount", MS_REMOUNT, 0 },
	{ "mand", MS_MANDLOCK, 0 },
	{ "nomand", 0, MS_MANDLOCK },
	{ "atime", 0, MS_NOATIME },
	{ "noatime", MS_NOATIME, 0 },
	{ "diratime", 0, MS_NODIRATIME },
	{ "nodiratime", MS_NODIRATIME, 0 },
	{ "relatime", MS_RELATIME, 0 },
	{ "norelatime", 0, MS_RELATIME },
	{ "strictatime", MS_STRICTATIME, 0 },
	{ "nostrictatime", 0, MS_STRICTATIME },
	{ "lazytime", MS_LAZYTIME, 0 },
	{ "nolazytime", 0, MS_LAZYTIME },
	{ "bind", MS_BIND, 0 },
	{ "rbind", MS_BIND | MS_REC, 0 },
	{ "silent", MS_SILENT, 0 },
	{ "loud", 0, MS_SILENT },
};

static const struct mount_flag_word *flag_word_lookup(const char *word, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(mount_flag_words); i++)
		if (strlen(mount_flag_words[i].word) == len &&
		    memcmp(mount_flag_words[i].word, word, len) == 0)
			return &mount_flag_words[i];
	return NULL;
}

static int data_append(char *data, size_t data_size, size_t *used, const char *word, size_t len)
{
	size_t need = len + (*used > 0 ? 1 : 0);

	if (*used + need >= data_size)
		return -E2BIG;
	if (*used > 0)
		data[(*used)++] = ',';
	memcpy(data + *used, word, len);
	*used += len;
	data[*used] = '\0';
	return 0;
}

int mountopts_parse(const char *options, unsigned long *flags, char *data, size_t data_size)
{
	size_t used = 0;
	int r = 0;

	if (!flags || !data || data_size == 0)
		return -EINVAL;
	*flags = 0;
	data[0] = '\0';
	for (const char *p = options; p && *p;) {
		size_t len = strcspn(p, ",");
		const struct mount_flag_word *w = flag_word_lookup(p, len);

		if (w) {
			*flags = (*flags & ~w->clear) | w->set;
			if (w->set & MS_RELATIME)
				*flags &= ~(unsigned long)(MS_NOATIME | MS_STRICTATIME);
			if (w->set & MS_STRICTATIME)
				*flags &= ~(unsigned long)(MS_NOATIME | MS_RELATIME);
			if (w->set & MS_NOATIME)
				*flags &= ~(unsigned long)(MS_RELATIME | MS_STRICTATIME);
		} else if (len > 0) {
			r = data_append(data, data_size, &used, p, len);
			if (r < 0)
				goto out;
		}
		p += len;
		if (*p == ',')
			p++;
	}
out:
	return r;
}

int mountopts_has(const char *options, const char *word)
{
	size_t wlen = strlen(word);

	for (const char *p = options; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len == wlen && memcmp(p, word, len) == 0)
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
