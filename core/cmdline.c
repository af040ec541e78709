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

struct parser {
	struct options *opts;
	char *err;
	size_t err_size;
	int result;         /* the first problem, 0 while there is none */
	enum list_id list;  /* the list being joined by join_lists() */
	char word[CMDLINE_MAX];
};

typedef void param_fn(struct parser *p, const char *key, const char *value);

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
	opts->lvm.enabled = true;
	opts->md.enabled = true;
	opts->md.degraded_sec = -1;
	opts->fallback = true;
	opts->volatile_mode = VOLATILE_NO;
	opts->timeout_sec = -1;
	opts->rootdelay_sec = -1;
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
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (streq(keys[i].name, name))
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
static bool next_word(const char **pos, char word[CMDLINE_MAX], bool *unterminated)
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
	for (; *s && (quoted || !is_space(*s)) && n < CMDLINE_MAX - 1; s++) {
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

/* Calls fn for every key[=value] word before "--" (the rest is init's). */
static void for_each_param(struct parser *p, const char *line, param_fn *fn)
{
	char key_shown[SHOWN_SIZE];
	const char *pos = line;
	const char *bad;
	bool unterminated;
	char *value;

	while (next_word(&pos, p->word, &unterminated)) {
		if (streq(p->word, "--"))
			break;
		value = strchr(p->word, '=');
		if (value)
			*value++ = '\0';
		bad = find_control(p->word);
		if (!bad && value)
			bad = find_control(value);
		if (bad) {
			report(p, -EINVAL, "%s%s contains the control character \\x%02x; the word was ignored",
			       shown(key_shown, p->word), value ? "=" : "", (unsigned char)*bad);
			continue;
		}
		if (unterminated)
			report(p, -EINVAL, "unterminated double quote in %s%s; the rest of the line was read as its value",
			       shown(key_shown, p->word), value ? "=" : "");
		if (p->word[0] != '\0')
			fn(p, p->word, value);
	}
}

void cmdline_walk(const char *line, cmdline_word_fn *fn, void *data)
{
	char word[CMDLINE_MAX];
	const char *pos = line;
	bool unterminated;
	char *value;

	while (next_word(&pos, word, &unterminated) && !streq(word, "--")) {
		value = strchr(word, '=');
		if (value)
			*value++ = '\0';
		if (word[0] != '\0')
			fn(word, value, data);
	}
}

static void apply_param(struct parser *p, const char *key, const char *value)
{
	char value_shown[SHOWN_SIZE];
	const struct cmdline_key *k = find_key(key);
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
	r = k->apply(p->opts, value, &why);
	if (r < 0)
		report(p, r, "%s=%s: %s; ignored", key, shown(value_shown, value ? value : ""), why);
}

/* A key of list, or NULL: the list is compared first, so that each of join_lists()' passes
 * compares each word with the list's one or two names, not with every key's. */
static const struct cmdline_key *find_list_key(const char *name, enum list_id list)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (keys[i].list == list && keys[i].form == FORM_LIST && streq(keys[i].name, name))
			return &keys[i];
	return NULL;
}

static void append_list_param(struct parser *p, const char *key, const char *value)
{
	char value_shown[SHOWN_SIZE];
	const struct cmdline_key *k = find_list_key(key, p->list);
	int r;

	if (!k || !value)
		return;
	r = cmdline_list_append(p->opts, list_field(p->opts, p->list), value);
	if (r < 0)
		report(p, r, "%s=%s: " NO_ROOM "; ignored", key, shown(value_shown, value));
}

/* One pass per list keeps each list contiguous in storage, in command-line order. */
static void join_lists(struct parser *p, const char *line)
{
	static const enum list_id lists[] = { LIST_ROOTFLAGS, LIST_USRFLAGS, LIST_MODULES, LIST_BLACKLIST,
					      LIST_TMPFS, LIST_LVM_VGS, LIST_LVM_LVS,
					      LIST_MD_UUIDS };

	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		p->list = lists[i];
		for_each_param(p, line, append_list_param);
	}
}

/* The fstype keys first: they say whether a bare root= (mount.usr=) is a share's tag,
 * wherever they are on the line. */
static void apply_fstype_param(struct parser *p, const char *key, const char *value)
{
	if (streq(key, "rootfstype") || streq(key, "mount.usrfstype"))
		apply_param(p, key, value);
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
	for_each_param(&p, line, apply_fstype_param);
	for_each_param(&p, line, apply_param);
	join_lists(&p, line);
out:
	return p.result;
}
