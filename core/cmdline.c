/* The kernel command line: split into words the way the kernel's next_arg() does, each word
 * read the way systemd's initrd reads it, by the setter its key names in the table below (the
 * setters are in cmdline_<area>.c). Pure: no logging, no allocation. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "parse.h"
#include "cmdline_keys.h"
#include "util.h"

enum key_form {
	FORM_SWITCH,   /* a bare word; "quiet=1" and the like are left alone, as systemd does */
	FORM_VALUE,    /* key=value; the bare key is an error */
	FORM_OPTIONAL, /* the bare key means yes */
	FORM_LIST,     /* key=a,b; every occurrence adds to one comma-separated list */
};

enum list_id {
	LIST_NONE,
	LIST_ROOTFLAGS,
	LIST_USRFLAGS,
	LIST_MODULES,
	LIST_BLACKLIST,
	LIST_TMPFS,
	LIST_LVM_VGS,
	LIST_LVM_LVS,
	LIST_MD_UUIDS,
};

/* One table for the parser and for cmdline_known_keys[]. */
#define CMDLINE_KEYS(KEY)                                                                                  \
	KEY("root",                        FORM_VALUE,    cmdline_set_root,                LIST_NONE)      \
	KEY("rootfstype",                  FORM_VALUE,    cmdline_set_rootfstype,          LIST_NONE)      \
	KEY("rootflags",                   FORM_LIST,     NULL,                            LIST_ROOTFLAGS) \
	KEY("ro",                          FORM_SWITCH,   cmdline_set_ro,                  LIST_NONE)      \
	KEY("rw",                          FORM_SWITCH,   cmdline_set_rw,                  LIST_NONE)      \
	KEY("mount.usr",                   FORM_VALUE,    cmdline_set_usr,                 LIST_NONE)      \
	KEY("mount.usrfstype",             FORM_VALUE,    cmdline_set_usrfstype,           LIST_NONE)      \
	KEY("mount.usrflags",              FORM_LIST,     NULL,                            LIST_USRFLAGS)  \
	KEY("systemd.gpt_auto",            FORM_OPTIONAL, cmdline_set_gpt_auto,            LIST_NONE)      \
	KEY("rd.systemd.gpt_auto",         FORM_OPTIONAL, cmdline_set_gpt_auto,            LIST_NONE)      \
	KEY("systemd.image_policy",        FORM_VALUE,    cmdline_set_image_policy,        LIST_NONE)      \
	KEY("rd.systemd.image_policy",     FORM_VALUE,    cmdline_set_image_policy,        LIST_NONE)      \
	KEY("systemd.image_filter",        FORM_VALUE,    cmdline_set_image_filter,        LIST_NONE)      \
	KEY("systemd.mount-extra",         FORM_VALUE,    cmdline_set_mount_extra,         LIST_NONE)      \
	KEY("rd.systemd.mount-extra",      FORM_VALUE,    cmdline_set_mount_extra,         LIST_NONE)      \
	KEY("systemd.swap-extra",          FORM_VALUE,    cmdline_set_swap_extra,          LIST_NONE)      \
	KEY("systemd.set_credential",      FORM_VALUE,    cmdline_set_credential,          LIST_NONE)      \
	KEY("systemd.set_credential_binary", FORM_VALUE,  cmdline_set_credential,          LIST_NONE)      \
	KEY("systemd.import_credentials",  FORM_OPTIONAL, cmdline_set_import_credentials,  LIST_NONE)      \
	KEY("rd.systemd.import_credentials", FORM_OPTIONAL, cmdline_set_import_credentials, LIST_NONE)    \
	KEY("systemd.tpm2_wait",           FORM_OPTIONAL, cmdline_set_tpm2_wait,           LIST_NONE)      \
	KEY("systemd.volatile",            FORM_OPTIONAL, cmdline_set_volatile,            LIST_NONE)      \
	KEY("systemd.verity",              FORM_OPTIONAL, cmdline_set_verity,              LIST_NONE)      \
	KEY("rd.systemd.verity",           FORM_OPTIONAL, cmdline_set_verity,              LIST_NONE)      \
	KEY("roothash",                    FORM_VALUE,    cmdline_set_roothash,            LIST_NONE)      \
	KEY("usrhash",                     FORM_VALUE,    cmdline_set_usrhash,             LIST_NONE)      \
	KEY("systemd.verity_root_data",    FORM_VALUE,    cmdline_set_verity_root_data,    LIST_NONE)      \
	KEY("systemd.verity_root_hash",    FORM_VALUE,    cmdline_set_verity_root_hash,    LIST_NONE)      \
	KEY("systemd.verity_root_options", FORM_VALUE,    cmdline_set_verity_root_options, LIST_NONE)      \
	KEY("systemd.verity_usr_data",     FORM_VALUE,    cmdline_set_verity_usr_data,     LIST_NONE)      \
	KEY("systemd.verity_usr_hash",     FORM_VALUE,    cmdline_set_verity_usr_hash,     LIST_NONE)      \
	KEY("systemd.verity_usr_options",  FORM_VALUE,    cmdline_set_verity_usr_options,  LIST_NONE)      \
	KEY("rd.luks",                     FORM_OPTIONAL, cmdline_set_luks,                LIST_NONE)      \
	KEY("luks",                        FORM_OPTIONAL, cmdline_set_luks,                LIST_NONE)      \
	KEY("rd.luks.crypttab",            FORM_OPTIONAL, cmdline_set_luks_crypttab,       LIST_NONE)      \
	KEY("luks.crypttab",               FORM_OPTIONAL, cmdline_set_luks_crypttab,       LIST_NONE)      \
	KEY("rd.luks.uuid",                FORM_VALUE,    cmdline_set_luks_uuid,           LIST_NONE)      \
	KEY("luks.uuid",                   FORM_VALUE,    cmdline_set_luks_uuid,           LIST_NONE)      \
	KEY("rd.luks.name",                FORM_VALUE,    cmdline_set_luks_name,           LIST_NONE)      \
	KEY("luks.name",                   FORM_VALUE,    cmdline_set_luks_name,           LIST_NONE)      \
	KEY("rd.luks.options",             FORM_VALUE,    cmdline_set_luks_options,        LIST_NONE)      \
	KEY("luks.options",                FORM_VALUE,    cmdline_set_luks_options,        LIST_NONE)      \
	KEY("rd.luks.key",                 FORM_VALUE,    cmdline_set_luks_key,            LIST_NONE)      \
	KEY("luks.key",                    FORM_VALUE,    cmdline_set_luks_key,            LIST_NONE)      \
	KEY("rd.lvm",                      FORM_OPTIONAL, cmdline_set_lvm,                 LIST_NONE)      \
	KEY("rd.lvm.vg",                   FORM_LIST,     NULL,                            LIST_LVM_VGS)   \
	KEY("rd.lvm.lv",                   FORM_LIST,     NULL,                            LIST_LVM_LVS)   \
	KEY("rd.md",                       FORM_OPTIONAL, cmdline_set_md,                  LIST_NONE)      \
	KEY("rd.md.uuid",                  FORM_LIST,     NULL,                            LIST_MD_UUIDS)  \
	KEY("earlymount.md_degraded",      FORM_VALUE,    cmdline_set_md_degraded,         LIST_NONE)      \
	KEY("fsck.mode",                   FORM_VALUE,    cmdline_set_fsck_mode,           LIST_NONE)      \
	KEY("rd.fsck.mode",                FORM_VALUE,    cmdline_set_fsck_mode,           LIST_NONE)      \
	KEY("fsck.repair",                 FORM_VALUE,    cmdline_set_fsck_repair,         LIST_NONE)      \
	KEY("rd.fsck.repair",              FORM_VALUE,    cmdline_set_fsck_repair,         LIST_NONE)      \
	KEY("resume",                      FORM_VALUE,    cmdline_set_resume,              LIST_NONE)      \
	KEY("resume_offset",               FORM_VALUE,    cmdline_set_resume_offset,       LIST_NONE)      \
	KEY("noresume",                    FORM_SWITCH,   cmdline_set_noresume,            LIST_NONE)      \
	KEY("init",                        FORM_VALUE,    cmdline_set_init,                LIST_NONE)      \
	KEY("earlymount.disk",             FORM_VALUE,    cmdline_set_disk,                LIST_NONE)      \
	KEY("earlymount.fallback",         FORM_OPTIONAL, cmdline_set_fallback,            LIST_NONE)      \
	KEY("systemd.machine_id",          FORM_VALUE,    cmdline_set_machine_id,          LIST_NONE)      \
	KEY("rd.emergency",                FORM_OPTIONAL, cmdline_set_rd_emergency,        LIST_NONE)      \
	KEY("emergency",                   FORM_SWITCH,   cmdline_set_emergency,           LIST_NONE)      \
	KEY("rd.shell",                    FORM_OPTIONAL, cmdline_set_shell,               LIST_NONE)      \
	KEY("panic",                       FORM_VALUE,    cmdline_set_panic,               LIST_NONE)      \
	KEY("rd.break",                    FORM_SWITCH,   cmdline_set_break,               LIST_NONE)      \
	KEY("quiet",                       FORM_SWITCH,   cmdline_set_quiet,               LIST_NONE)      \
	KEY("debug",                       FORM_SWITCH,   cmdline_set_debug,               LIST_NONE)      \
	KEY("rd.debug",                    FORM_SWITCH,   cmdline_set_debug,               LIST_NONE)      \
	KEY("rootwait",                    FORM_SWITCH,   cmdline_set_rootwait,            LIST_NONE)      \
	KEY("rd.timeout",                  FORM_VALUE,    cmdline_set_timeout,             LIST_NONE)      \
	KEY("earlymount.timeout",          FORM_VALUE,    cmdline_set_timeout,             LIST_NONE)      \
	KEY("rootdelay",                   FORM_VALUE,    cmdline_set_rootdelay,           LIST_NONE)      \
	KEY("rd.vconsole.keymap",          FORM_VALUE,    cmdline_set_keymap,              LIST_NONE)      \
	KEY("vconsole.keymap",             FORM_VALUE,    cmdline_set_keymap,              LIST_NONE)      \
	KEY("rd.watchdog",                 FORM_VALUE,    cmdline_set_watchdog,            LIST_NONE)      \
	KEY("systemd.watchdog_device",     FORM_VALUE,    cmdline_set_watchdog_device,     LIST_NONE)      \
	KEY("ip",                          FORM_VALUE,    cmdline_set_ip,                  LIST_NONE)      \
	KEY("rd.neednet",                  FORM_OPTIONAL, cmdline_set_neednet,             LIST_NONE)      \
	KEY("rd.net.timeout.dhcp",         FORM_VALUE,    cmdline_set_dhcp_timeout,        LIST_NONE)      \
	KEY("nfsroot",                     FORM_VALUE,    cmdline_set_nfsroot,             LIST_NONE)      \
	KEY("netroot",                     FORM_VALUE,    cmdline_set_netroot,             LIST_NONE)      \
	KEY("rd.driver.pre",               FORM_LIST,     NULL,                            LIST_MODULES)   \
	KEY("rd.modules-load",             FORM_LIST,     NULL,                            LIST_MODULES)   \
	KEY("modules_load",                FORM_LIST,     NULL,                            LIST_MODULES)   \
	KEY("modprobe.blacklist",          FORM_LIST,     NULL,                            LIST_BLACKLIST) \
	KEY("earlymount.tmpfs",            FORM_LIST,     NULL,                            LIST_TMPFS)

static const struct cmdline_key {
	const char *name;
	enum key_form form;
	key_handler *apply;
	enum list_id list;
} keys[] = {
#define KEY_ENTRY(name, form, apply, list) { name, form, apply, list },
	CMDLINE_KEYS(KEY_ENTRY)
#undef KEY_ENTRY
};

const char *const cmdline_known_keys[] = {
#define KEY_NAME(name, form, apply, list) name,
	CMDLINE_KEYS(KEY_NAME)
#undef KEY_NAME
	NULL,
};

/* Keys with a dot under these prefixes belong to systemd, initrds or us, not to a module. */
static const char *const non_module_prefixes[] = {
	"systemd.", "rd.", "mount.", "earlymount.", "modprobe.",
};

/* Bytes of a key or value quoted in a message before it is cut short. */
#define SHOWN_BYTES 48
#define SHOWN_SIZE (SHOWN_BYTES * 4 + sizeof("..."))

#define NO_ROOM "no room left to keep it"

#define NO_VALUE UINT16_MAX
#define NO_KEY UINT8_MAX
_Static_assert(CMDLINE_MAX < NO_VALUE, "an offset in the line must fit in struct word");

/* A word of the line, split once by split_line(): its key and value as offsets in the
 * parser's text (CMDLINE_MAX fits in 16 bits), the entry of keys[] its key names, and what
 * is wrong with it. Every pass then walks these instead of the line. */
struct word {
	uint16_t key;
	uint16_t value;    /* NO_VALUE without '=' */
	uint16_t bad;      /* offset of a control byte in text, NO_VALUE when there is none */
	uint8_t entry;     /* index in keys[], NO_KEY for a key not in the table */
	bool unterminated; /* an open double quote ran to the end of the line */
};

struct parser {
	struct options *opts;
	char *err;
	size_t err_size;
	int result;         /* the first problem, 0 while there is none */
	size_t n_words;
	/* The words without their quotes, each key and value terminated: no longer than the
	 * line, as a blank or the line's end follows every word. */
	char text[CMDLINE_MAX];
	/* A word takes a byte and a blank but the last, so a line of CMDLINE_MAX - 1 bytes
	 * holds at most CMDLINE_MAX / 2. */
	struct word words[CMDLINE_MAX / 2];
};

void options_init(struct options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->root_kind = ROOT_DISCOVER;
	opts->rw = -1;
	opts->gpt_auto = true;
	opts->import_credentials = true;
	opts->tpm2_wait = -1;
	opts->verity = true;
	opts->luks.enabled = true;
	opts->luks.crypttab = true;
	opts->lvm.enabled = true;
	opts->md.enabled = true;
	opts->md.degraded_sec = -1;
	opts->fallback = true;
	opts->volatile_mode = VOLATILE_NO;
	opts->timeout_sec = -1;
	opts->rootdelay_sec = -1;
	opts->watchdog_sec = -1;
	opts->net.dhcp_timeout_sec = -1;
}

static bool is_control(unsigned char c)
{
	return (c < 0x20 && !is_space((char)c)) || c == 0x7f;
}

static const char *find_control(const char *s)
{
	while (*s && !is_control((unsigned char)*s))
		s++;
	return *s ? s : NULL;
}

/* s fit for a message: control bytes as \xNN, cut after SHOWN_BYTES bytes. */
static const char *shown(char out[SHOWN_SIZE], const char *s)
{
	size_t o = 0, i;

	for (i = 0; s[i] && i < SHOWN_BYTES; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(out + o, SHOWN_SIZE - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (s[i]) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

static void report(struct parser *p, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Keeps the first problem only: it is the one the user meets first on the line. */
static void report(struct parser *p, int r, const char *fmt, ...)
{
	va_list ap;

	if (p->result != 0)
		return;
	p->result = r;
	if (p->err && p->err_size > 0) {
		va_start(ap, fmt);
		vsnprintf(p->err, p->err_size, fmt, ap);
		va_end(ap);
	}
}

static const struct cmdline_key *find_key(const char *name)
{
	/* the first byte first: most words match no key, and each word meets every name */
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (keys[i].name[0] == name[0] && streq(keys[i].name, name))
			return &keys[i];
	return NULL;
}

/* module.param, which the kernel and libkmod read from /proc/cmdline themselves. */
static bool is_module_param(const char *key)
{
	const char *dot = strchr(key, '.');

	if (!dot || dot == key || dot[1] == '\0')
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(non_module_prefixes); i++)
		if (startswith(key, non_module_prefixes[i]))
			return false;
	return true;
}

static const char **list_field(struct options *o, enum list_id list)
{
	switch (list) {
	case LIST_ROOTFLAGS:
		return &o->rootflags;
	case LIST_USRFLAGS:
		return &o->usrflags;
	case LIST_MODULES:
		return &o->modules_load;
	case LIST_BLACKLIST:
		return &o->modprobe_blacklist;
	case LIST_TMPFS:
		return &o->tmpfs_flags;
	case LIST_LVM_VGS:
		return &o->lvm.vgs;
	case LIST_LVM_LVS:
		return &o->lvm.lvs;
	case LIST_MD_UUIDS:
		return &o->md.uuids;
	case LIST_NONE:
		break;
	}
	return NULL;
}

/* Reads the next word at *pos into word, without its double quotes: a quote anywhere
 * toggles quoting, as in the kernel's next_arg(). False at the end of the line. */
static bool next_word(const char **pos, char *word, size_t size, bool *unterminated)
{
	const char *s = *pos;
	bool quoted = false;
	size_t n = 0;

	while (is_space(*s))
		s++;
	if (*s == '\0') {
		*pos = s;
		return false;
	}
	/* cmdline_parse() refused longer lines, so the bound only guards against misuse. */
	for (; *s && (quoted || !is_space(*s)) && n + 1 < size; s++) {
		if (*s == '"')
			quoted = !quoted;
		else
			word[n++] = *s;
	}
	word[n] = '\0';
	*unterminated = quoted;
	*pos = s;
	return true;
}

static uint8_t find_entry(const char *name)
{
	const struct cmdline_key *k = find_key(name);

	_Static_assert(ARRAY_SIZE(keys) < NO_KEY, "a key's index must fit in struct word");
	return k ? (uint8_t)(k - keys) : NO_KEY;
}

/* Splits the words before "--" (the rest is init's) into p->words, once for all passes. */
static void split_line(struct parser *p, const char *line)
{
	const char *pos = line;
	size_t used = 0, n;
	bool unterminated;
	char *word, *value;
	const char *bad;

	/* A word is no longer than its part of the line, so what is left of text holds it. */
	while (p->n_words < ARRAY_SIZE(p->words) &&
	       next_word(&pos, word = p->text + used, sizeof(p->text) - used, &unterminated) &&
	       !streq(word, "--")) {
		struct word *w = &p->words[p->n_words++];

		n = strlen(word);
		value = strchr(word, '=');
		if (value)
			*value++ = '\0';
		bad = find_control(word);
		if (!bad && value)
			bad = find_control(value);
		w->key = (uint16_t)used;
		w->value = value ? (uint16_t)(value - p->text) : NO_VALUE;
		w->bad = bad ? (uint16_t)(bad - p->text) : NO_VALUE;
		w->entry = word[0] && !bad ? find_entry(word) : NO_KEY;
		w->unterminated = unterminated;
		used += n + 1;
	}
}

static const char *word_key(const struct parser *p, const struct word *w)
{
	return p->text + w->key;
}

static const char *word_value(const struct parser *p, const struct word *w)
{
	return w->value == NO_VALUE ? NULL : p->text + w->value;
}

/* What is wrong with a word itself, in the first pass: report() keeps the first problem of
 * the line, so later passes would only repeat it. True when the word is to be skipped. */
static bool report_word(struct parser *p, const struct word *w)
{
	char key_shown[SHOWN_SIZE];
	const char *eq = w->value == NO_VALUE ? "" : "=";

	if (w->bad != NO_VALUE) {
		report(p, -EINVAL, "%s%s contains the control character \\x%02x; the word was ignored",
		       shown(key_shown, word_key(p, w)), eq, (unsigned char)p->text[w->bad]);
		return true;
	}
	if (w->unterminated)
		report(p, -EINVAL, "unterminated double quote in %s%s; the rest of the line was read as its value",
		       shown(key_shown, word_key(p, w)), eq);
	return false;
}

void cmdline_walk(const char *line, cmdline_word_fn *fn, void *data)
{
	char word[CMDLINE_MAX];
	const char *pos = line;
	bool unterminated;
	char *value;

	while (next_word(&pos, word, sizeof(word), &unterminated) && !streq(word, "--")) {
		value = strchr(word, '=');
		if (value)
			*value++ = '\0';
		if (word[0] != '\0')
			fn(word, value, data);
	}
}

static void apply_param(struct parser *p, const struct word *w)
{
	char value_shown[SHOWN_SIZE];
	const char *key = word_key(p, w), *value = word_value(p, w);
	const struct cmdline_key *k = w->entry == NO_KEY ? NULL : &keys[w->entry];
	const char *why = NO_ROOM;
	int r;

	if (!k) {
		/* A bare module.param is a module boolean set to yes. */
		if (is_module_param(key))
			p->opts->n_module_params++;
		return;
	}
	if (k->form == FORM_SWITCH && value)
		return;
	if ((k->form == FORM_VALUE || k->form == FORM_LIST) && !value) {
		report(p, -EINVAL, "%s was given without a value and was ignored; write %s=VALUE", key, key);
		return;
	}
	if (k->form == FORM_LIST)
		return;
	/* A value the setter refuses or cannot keep (one too many, no room) is one word ignored:
	 * -EINVAL, whatever the setter's reason; -E2BIG is the whole line's. */
	r = k->apply(p->opts, value, &why);
	if (r < 0)
		report(p, -EINVAL, "%s=%s: %s; ignored", key, shown(value_shown, value ? value : ""), why);
}

static bool is_fstype_key(const struct word *w)
{
	return w->entry != NO_KEY &&
	       (streq(keys[w->entry].name, "rootfstype") || streq(keys[w->entry].name, "mount.usrfstype"));
}

/* The fstype keys first: they say whether a bare root= (mount.usr=) is a share's tag,
 * wherever they are on the line. The first pass also reports what is wrong with a word. */
static void apply_params(struct parser *p)
{
	for (size_t i = 0; i < p->n_words; i++)
		if (!report_word(p, &p->words[i]) && is_fstype_key(&p->words[i]))
			apply_param(p, &p->words[i]);
	for (size_t i = 0; i < p->n_words; i++)
		if (p->words[i].bad == NO_VALUE && p->text[p->words[i].key] != '\0')
			apply_param(p, &p->words[i]);
}

/* One pass per list keeps each list contiguous in storage, in command-line order. */
static void join_lists(struct parser *p)
{
	static const enum list_id lists[] = { LIST_ROOTFLAGS, LIST_USRFLAGS, LIST_MODULES, LIST_BLACKLIST,
					      LIST_TMPFS, LIST_LVM_VGS, LIST_LVM_LVS,
					      LIST_MD_UUIDS };
	char value_shown[SHOWN_SIZE];

	for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
		for (size_t i = 0; i < p->n_words; i++) {
			const struct word *w = &p->words[i];
			const char *value = word_value(p, w);
			int r;

			if (w->entry == NO_KEY || keys[w->entry].list != lists[l] || !value)
				continue;
			r = cmdline_list_append(p->opts, list_field(p->opts, lists[l]), value);
			if (r < 0)
				report(p, -EINVAL, "%s=%s: " NO_ROOM "; ignored", word_key(p, w), shown(value_shown, value));
		}
	}
}

int cmdline_parse(const char *line, struct options *opts, char *err, size_t err_size)
{
	struct parser p = { .opts = opts, .err = err, .err_size = err_size };
	size_t len;

	options_init(opts);
	if (err && err_size > 0)
		err[0] = '\0';
	if (!line) {
		report(&p, -EINVAL, "no kernel command line was given");
		goto out;
	}
	len = strlen(line);
	if (len >= CMDLINE_MAX) {
		report(&p, -E2BIG, "the kernel command line is %zu bytes long, over the limit of %d; none of it was applied",
		       len, CMDLINE_MAX - 1);
		goto out;
	}
	split_line(&p, line);
	apply_params(&p);
	join_lists(&p);
out:
	return p.result;
}
