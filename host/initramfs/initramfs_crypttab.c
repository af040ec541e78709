/* The image's /etc/crypttab: which entries of a crypttab the boot needs, as
 * cryptsetup-initramfs picks them, checked here so that an image never holds one the boot
 * would refuse.
 *   - --crypttab FILE alone: every entry of FILE the boot would open (a generator's hook
 *     passes what its generator chose already);
 *   - --host-only (FILE, else the host's /etc/crypttab): the entries of the dm-crypt volumes
 *     under /, /usr and the fstab's x-initrd.mount entries, the resume device's (resume= of
 *     the running command line), and those marked "initramfs"; a
 *     volume there that the file does not list, and whose name only a crypttab gives, stops
 *     the build (the boot would not open it);
 *   - noauto entries and those with a random key (swap, /tmp) stay the real system's;
 *   - a key file named by path alone is copied in at that path, mode 0600, and the image is
 *     written 0600 too, with a warning, as initramfs-tools does; a key on another device
 *     (PATH:DEVICE) stays there;
 *   - a detached LUKS header (header=PATH) is copied in at its path; one on another device
 *     (header=PATH:DEVICE) is read from there at boot. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypttab.h"
#include "dps.h"
#include "fileio.h"
#include "initramfs.h"
#include "log.h"
#include "luks.h"
#include "paths.h"
#include "util.h"

/* Whether the host walk found the volume name under a mount the boot makes. */
static bool under_host_mount(const struct builder *b, const char *name)
{
	for (size_t i = 0; i < b->n_host_crypt; i++)
		if (streq(b->host_crypt[i].name, name))
			return true;
	return false;
}

static bool marked_initramfs(const struct crypttab_entry *e)
{
	char copy[CRYPTTAB_FIELD];
	bool found = false;

	COPY_STR(copy, e->options);
	for (char *save, *w = strtok_r(copy, ",", &save); w && !found; w = strtok_r(NULL, ",", &save))
		found = streq(w, "initramfs");
	return found;
}

/* A field as crypttab writes it: blanks and backslashes as \ooo. */
static void put_field(FILE *out, const char *field)
{
	for (const char *c = field; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '\\' || *c == '\n')
			fprintf(out, "\\%03o", (unsigned char)*c);
		else
			fputc(*c, out);
}

static void put_entry(FILE *out, const struct crypttab_entry *e)
{
	put_field(out, e->name);
	fputc(' ', out);
	put_field(out, e->device);
	fputc(' ', out);
	put_field(out, e->key[0] ? e->key : "none");
	if (e->options[0]) {
		fputc(' ', out);
		put_field(out, e->options);
	}
	fputc('\n', out);
}

/* The key file of e, when it is one of the host's: checked and listed for the image. */
static int take_key(struct builder *b, const char *file, const struct crypttab_entry *e)
{
	char path[CRYPTTAB_FIELD], device[CRYPTTAB_FIELD];
	struct stat st;
	int r = 0;

	if (!e->key[0] || b->print_crypttab)
		goto out;
	r = luks_key_parse(e->key, path, sizeof(path), device, sizeof(device));
	if (r < 0 || device[0])
		goto out; /* checked by the reader; a key on a device stays there */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = -ENOENT;
		log_err("%s, line %u: %s: the key file %s is %s on this host: the image could not "
			"open the volume with it", file, e->line, e->name, path,
			S_ISDIR(st.st_mode) ? "a directory" : "missing");
		goto out;
	}
	r = name_list_add_once(&b->crypttab_keys, path);
	if (r == 0)
		log_warn("%s: the key file %s goes into the image, which is written readable by root "
			 "only (mode 0600): keep every copy of it so", e->name, path);
out:
	return r;
}

/* The detached header e names (header=), a file of the host copied in at its path. */
static int take_header(struct builder *b, const char *file, const struct crypttab_entry *e)
{
	struct luks_options o;
	char why[192];
	struct stat st;
	int r = 0;

	/* a header on another device (header=PATH:DEVICE) is read there at boot */
	if (b->print_crypttab || luks_options_parse(e->options, &o, why, sizeof(why)) < 0 ||
	    !o.header[0] || o.header_device[0])
		goto out;
	if (stat(o.header, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = -ENOENT;
		log_err("%s, line %u: %s: the detached header %s is missing on this host: the image "
			"could not open the volume", file, e->line, e->name, o.header);
		goto out;
	}
	r = name_list_add_once(&b->crypttab_headers, o.header);
out:
	return r;
}

/* The running kernel's command line, read once ("" when it cannot be). */
static const char *host_cmdline(void)
{
	static char cmdline[4096];
	static bool read;

	if (!read && read_file_at(AT_FDCWD, "/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		cmdline[0] = '\0';
	read = true;
	return cmdline;
}

/* Whether the running command line's resume= names e's volume (resume=/dev/mapper/NAME), as
 * cryptsetup-initramfs takes the resume device's entry. */
static bool resumes_from(const struct crypttab_entry *e)
{
	const char *cmdline = host_cmdline();
	char word[sizeof("resume=" DM_MAPPER_DIR "/") + sizeof(e->name)];
	const char *at;
	size_t n;

	n = (size_t)snprintf(word, sizeof(word), "resume=" DM_MAPPER_DIR "/%s", e->name);
	for (at = strstr(cmdline, word); at; at = strstr(at + 1, word))
		if ((at == cmdline || at[-1] == ' ') && (!at[n] || at[n] == ' ' || at[n] == '\n'))
			return true;
	return false;
}

/* Whether the image gets e; a refused entry that it would get is an error. */
static int choose_entry(struct builder *b, const char *file, const struct crypttab_entry *e,
			bool *take)
{
	int r = 0;

	*take = !b->host_only || under_host_mount(b, e->name) || marked_initramfs(e) ||
		resumes_from(e);
	if (!*take)
		goto out;
	if (e->use == CRYPTTAB_NOAUTO || e->use == CRYPTTAB_REAL) {
		*take = false;
		if (!b->print_crypttab)
			printf("crypttab: %s left out: %s\n", e->name, crypttab_use_name(e->use));
	} else if (e->use == CRYPTTAB_REFUSED) {
		r = -EOPNOTSUPP;
		log_err("%s, line %u: %s: %s: the boot would refuse it, so no image is written; "
			"change the entry (see earlymount(8), CRYPTTAB)", file, e->line, e->name, e->why);
	}
	if (r == 0 && *take)
		r = take_key(b, file, e);
	if (r == 0 && *take)
		r = take_header(b, file, e);
out:
	return r;
}

/* Whether the boot can give volume k its name without a crypttab: a discovered partition's
 * role ("root", "usr", ...), luks-UUID of rd.luks.uuid=, or the running command line names its
 * header. */
static bool named_without_crypttab(const struct hostonly_crypt *k)
{
	char luks_name[sizeof("luks-") + sizeof(k->uuid)];

	for (int role = 0; role < DPS_ROLE_MAX; role++)
		if (streq(k->name, dps_role_name((enum dps_role)role)))
			return true;
	snprintf(luks_name, sizeof(luks_name), "luks-%s", k->uuid);
	if (streq(k->name, luks_name))
		return true;
	return k->uuid[0] && strstr(host_cmdline(), k->uuid);
}

/* The dm-crypt volumes under the host's mounts that the crypttab (NULL: none) does not list.
 * One whose name only a crypttab gives (an installer's vda3_crypt) would not be opened as this
 * system knows it: -EOPNOTSUPP, reported; the others are warned about. */
static int check_unlisted(const struct builder *b, const char *file, const struct crypttab *t)
{
	int r = 0;

	for (size_t i = 0; i < b->n_host_crypt; i++) {
		const struct hostonly_crypt *k = &b->host_crypt[i];

		if (t && crypttab_find(t, k->name))
			continue;
		if (named_without_crypttab(k)) {
			log_warn("%s is on the dm-crypt volume %s, which %s does not list: the boot opens "
				 "it only when the command line lists it or discovery finds it",
				 k->where, k->name, file ? file : "no crypttab");
			continue;
		}
		r = -EOPNOTSUPP;
		log_err("%s is on the dm-crypt volume %s, which %s does not list: the boot would not "
			"open it, so no image is written; add its entry to %s (%s UUID=%s none luks)",
			k->where, k->name, file ? file : "no crypttab of this host",
			file ? file : "/etc/crypttab", k->name, k->uuid[0] ? k->uuid : "...");
	}
	return r;
}

static int read_crypttab(const char *file, struct crypttab *t)
{
	static char text[CRYPTTAB_TEXT_MAX + 1];
	ssize_t n = read_file_at(AT_FDCWD, file, text, sizeof(text));
	int r = 0;

	if (n < 0) {
		r = (int)n;
		log_err("--crypttab: unable to read %s: %s", file, strerror(-r));
		goto out;
	}
	crypttab_parse(text, (size_t)n, t);
	if (t->bad_line || t->dropped) {
		r = -EINVAL;
		if (t->bad_line)
			log_err("%s, line %u: %s", file, t->bad_line, t->bad_why);
		else
			log_err("%s: more than %d entries, which the boot does not read", file,
				CRYPTTAB_MAX_ENTRIES);
	}
out:
	return r;
}

int initramfs_choose_crypttab(struct builder *b)
{
	const char *file = b->crypttab;
	struct crypttab *t = NULL;
	FILE *out = NULL;
	bool take;
	int r = 0;

	/* --host-only without a crypttab of the host's: no volume to name, but those its mounts
	 * lie on must be ones the boot opens all the same */
	if (!file && b->host_only && access("/etc/crypttab", F_OK) < 0) {
		r = check_unlisted(b, NULL, NULL);
		goto out;
	}
	if (!file && !b->host_only)
		goto out;
	if (!file)
		file = "/etc/crypttab";
	t = calloc(1, sizeof(*t));
	out = t ? open_memstream(&b->crypttab_text, &b->crypttab_len) : NULL;
	r = out ? read_crypttab(file, t) : -ENOMEM;
	for (size_t i = 0; r == 0 && i < t->n; i++) {
		r = choose_entry(b, file, &t->entries[i], &take);
		if (r == 0 && take)
			r = name_list_add(&b->crypttab_names, t->entries[i].name);
		if (r == 0 && take)
			put_entry(out, &t->entries[i]);
	}
	if (r == 0 && b->host_only)
		r = check_unlisted(b, file, t);
	if (r == 0 && b->crypttab_names.n && !b->luks && !b->print_crypttab) {
		r = -EINVAL;
		log_err("%s opens %s at boot: pass --luks, so that the image can unlock it", file,
			b->crypttab_names.names[0]);
	}
out:
	if (out && fclose(out) != 0 && r == 0)
		r = -ENOMEM;
	if (r == 0 && b->crypttab_names.n == 0) {
		free(b->crypttab_text);
		b->crypttab_text = NULL;
	}
	free(t);
	return r;
}

int initramfs_add_crypttab(struct builder *b)
{
	int r = 0;

	if (b->crypttab_text)
		r = cpio_add_data(&b->cpio, INITRAMFS_CRYPTTAB, 0644, b->crypttab_text,
				  b->crypttab_len);
	for (size_t i = 0; i < b->crypttab_keys.n && r == 0; i++)
		r = cpio_add_file(&b->cpio, b->crypttab_keys.names[i], 0600, b->crypttab_keys.names[i]);
	for (size_t i = 0; i < b->crypttab_headers.n && r == 0; i++)
		r = cpio_add_file(&b->cpio, b->crypttab_headers.names[i], 0600,
				  b->crypttab_headers.names[i]);
	return r;
}

int initramfs_print_crypttab(struct builder *b)
{
	int r = b->host_only ? initramfs_walk_host_crypt(b) : 0;

	if (r == 0)
		r = initramfs_choose_crypttab(b);
	if (r == 0 && b->crypttab_text)
		fwrite(b->crypttab_text, 1, b->crypttab_len, stdout);
	return r;
}
