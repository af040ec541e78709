/* The kernel command line: split into words the way the kernel's next_arg() does, each word
 * read the way systemd's initrd reads it. Pure: no logging, no allocation. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "parse.h"
#include "util.h"
#include "uuid.h"
#include "verity.h"

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
};

/* 0 or -errno; on -EINVAL *why says what is wrong with the value. */
typedef int key_handler(struct options *o, const char *value, const char **why);

static key_handler set_root, set_rootfstype, set_ro, set_rw, set_usr, set_usrfstype, set_gpt_auto,
	set_volatile, set_init, set_disk, set_machine_id, set_emergency, set_break, set_quiet,
	set_debug, set_rootwait, set_timeout, set_rootdelay, set_verity, set_roothash, set_usrhash,
	set_verity_root_data, set_verity_root_hash, set_verity_root_options, set_verity_usr_data,
	set_verity_usr_hash, set_verity_usr_options, set_fallback, set_luks, set_luks_uuid,
	set_luks_name, set_luks_options, set_luks_key, set_fsck_mode, set_fsck_repair, set_resume,
	set_resume_offset, set_noresume, set_rd_emergency, set_shell, set_panic;

/* One table for the parser and for cmdline_known_keys[]. */
#define CMDLINE_KEYS(KEY)                                                   \
	KEY("root",                FORM_VALUE,    set_root,       LIST_NONE)      \
	KEY("rootfstype",          FORM_VALUE,    set_rootfstype, LIST_NONE)      \
	KEY("rootflags",           FORM_LIST,     NULL,           LIST_ROOTFLAGS) \
	KEY("ro",                  FORM_SWITCH,   set_ro,         LIST_NONE)      \
	KEY("rw",                  FORM_SWITCH,   set_rw,         LIST_NONE)      \
	KEY("mount.usr",           FORM_VALUE,    set_usr,        LIST_NONE)      \
	KEY("mount.usrfstype",     FORM_VALUE,    set_usrfstype,  LIST_NONE)      \
	KEY("mount.usrflags",      FORM_LIST,     NULL,           LIST_USRFLAGS)  \
	KEY("systemd.gpt_auto",    FORM_OPTIONAL, set_gpt_auto,   LIST_NONE)      \
	KEY("rd.systemd.gpt_auto", FORM_OPTIONAL, set_gpt_auto,   LIST_NONE)      \
	KEY("systemd.volatile",    FORM_OPTIONAL, set_volatile,   LIST_NONE)      \
	KEY("systemd.verity",      FORM_OPTIONAL, set_verity,     LIST_NONE)      \
	KEY("rd.systemd.verity",   FORM_OPTIONAL, set_verity,     LIST_NONE)      \
	KEY("roothash",            FORM_VALUE,    set_roothash,   LIST_NONE)      \
	KEY("usrhash",             FORM_VALUE,    set_usrhash,    LIST_NONE)      \
	KEY("systemd.verity_root_data",    FORM_VALUE, set_verity_root_data,    LIST_NONE) \
	KEY("systemd.verity_root_hash",    FORM_VALUE, set_verity_root_hash,    LIST_NONE) \
	KEY("systemd.verity_root_options", FORM_VALUE, set_verity_root_options, LIST_NONE) \
	KEY("systemd.verity_usr_data",     FORM_VALUE, set_verity_usr_data,     LIST_NONE) \
	KEY("systemd.verity_usr_hash",     FORM_VALUE, set_verity_usr_hash,     LIST_NONE) \
	KEY("systemd.verity_usr_options",  FORM_VALUE, set_verity_usr_options,  LIST_NONE) \
	KEY("rd.luks",             FORM_OPTIONAL, set_luks,       LIST_NONE)      \
	KEY("luks",                FORM_OPTIONAL, set_luks,       LIST_NONE)      \
	KEY("rd.luks.uuid",        FORM_VALUE,    set_luks_uuid,  LIST_NONE)      \
	KEY("luks.uuid",           FORM_VALUE,    set_luks_uuid,  LIST_NONE)      \
	KEY("rd.luks.name",        FORM_VALUE,    set_luks_name,  LIST_NONE)      \
	KEY("luks.name",           FORM_VALUE,    set_luks_name,  LIST_NONE)      \
	KEY("rd.luks.options",     FORM_VALUE,    set_luks_options, LIST_NONE)    \
	KEY("luks.options",        FORM_VALUE,    set_luks_options, LIST_NONE)    \
	KEY("rd.luks.key",         FORM_VALUE,    set_luks_key,   LIST_NONE)      \
	KEY("luks.key",            FORM_VALUE,    set_luks_key,   LIST_NONE)      \
	KEY("fsck.mode",           FORM_VALUE,    set_fsck_mode,  LIST_NONE)      \
	KEY("rd.fsck.mode",        FORM_VALUE,    set_fsck_mode,  LIST_NONE)      \
	KEY("fsck.repair",         FORM_VALUE,    set_fsck_repair, LIST_NONE)     \
	KEY("rd.fsck.repair",      FORM_VALUE,    set_fsck_repair, LIST_NONE)     \
	KEY("resume",              FORM_VALUE,    set_resume,     LIST_NONE)      \
	KEY("resume_offset",       FORM_VALUE,    set_resume_offset, LIST_NONE)   \
	KEY("noresume",            FORM_SWITCH,   set_noresume,   LIST_NONE)      \
	KEY("init",                FORM_VALUE,    set_init,       LIST_NONE)      \
	KEY("earlymount.disk",     FORM_VALUE,    set_disk,       LIST_NONE)      \
	KEY("earlymount.fallback", FORM_OPTIONAL, set_fallback,   LIST_NONE)      \
	KEY("systemd.machine_id",  FORM_VALUE,    set_machine_id, LIST_NONE)      \
	KEY("rd.emergency",        FORM_OPTIONAL, set_rd_emergency, LIST_NONE)    \
	KEY("emergency",           FORM_SWITCH,   set_emergency,  LIST_NONE)      \
	KEY("rd.shell",            FORM_OPTIONAL, set_shell,      LIST_NONE)      \
	KEY("panic",               FORM_VALUE,    set_panic,      LIST_NONE)      \
	KEY("rd.break",            FORM_SWITCH,   set_break,      LIST_NONE)      \
	KEY("quiet",               FORM_SWITCH,   set_quiet,      LIST_NONE)      \
	KEY("debug",               FORM_SWITCH,   set_debug,      LIST_NONE)      \
	KEY("rd.debug",            FORM_SWITCH,   set_debug,      LIST_NONE)      \
	KEY("rootwait",            FORM_SWITCH,   set_rootwait,   LIST_NONE)      \
	KEY("rd.timeout",          FORM_VALUE,    set_timeout,    LIST_NONE)      \
	KEY("earlymount.timeout",  FORM_VALUE,    set_timeout,    LIST_NONE)      \
	KEY("rootdelay",           FORM_VALUE,    set_rootdelay,  LIST_NONE)      \
	KEY("rd.modules-load",     FORM_LIST,     NULL,           LIST_MODULES)   \
	KEY("modules_load",        FORM_LIST,     NULL,           LIST_MODULES)   \
	KEY("modprobe.blacklist",  FORM_LIST,     NULL,           LIST_BLACKLIST) \
	KEY("earlymount.tmpfs",    FORM_LIST,     NULL,           LIST_TMPFS)

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

/* A key's words and the values they stand for. */
struct word_value {
	const char *word;
	int value;
};

static const struct word_value volatile_words[] = {
	{ "state", VOLATILE_STATE },
	{ "overlay", VOLATILE_OVERLAY },
};

/* systemd-fsck(8)'s words. */
static const struct word_value fsck_mode_words[] = {
	{ "auto", FSCK_AUTO },
	{ "force", FSCK_FORCE },
	{ "skip", FSCK_SKIP },
};

static const struct word_value fsck_repair_words[] = {
	{ "preen", FSCK_PREEN },
	{ "yes", FSCK_YES },
	{ "no", FSCK_NO },
};

/* dracut's rd.emergency= words: what a stopped boot does once no shell runs. */
static const struct word_value emergency_words[] = {
	{ "reboot", EMERGENCY_REBOOT },
	{ "poweroff", EMERGENCY_POWEROFF },
	{ "halt", EMERGENCY_HALT },
};

static const char *const device_tags[] = { "UUID=", "PARTUUID=", "LABEL=", "PARTLABEL=" };

/* dracut's forms (mkosi writes virtiofs: too); virtme-ng gives rootfstype= instead. */
static const struct {
	const char *prefix;
	enum share_fs fs;
} share_prefixes[] = {
	{ "virtiofs:", SHARE_VIRTIOFS },
	{ "virtfs:", SHARE_9P },
};

static const struct {
	const char *fstype;
	enum share_fs fs;
} share_fstypes[] = {
	{ "virtiofs", SHARE_VIRTIOFS },
	{ "9p", SHARE_9P },
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
	opts->verity = true;
	opts->luks.enabled = true;
	opts->fallback = true;
	opts->volatile_mode = VOLATILE_NO;
	opts->timeout_sec = -1;
	opts->rootdelay_sec = -1;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
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

static int store(struct options *o, const char *s, const char **out)
{
	size_t n = strlen(s) + 1;
	int r = -E2BIG;

	if (n > sizeof(o->storage) - o->used)
		goto out;
	memcpy(o->storage + o->used, s, n);
	*out = o->storage + o->used;
	o->used += n;
	r = 0;
out:
	return r;
}

/* An empty value resets the key, as if it had not been given. */
static int store_or_reset(struct options *o, const char *value, const char **field)
{
	if (value[0] == '\0') {
		*field = NULL;
		return 0;
	}
	return store(o, value, field);
}

/* Appends the non-empty comma-separated items of value to *list, which must be the last
 * string in storage: join_lists() builds one list at a time, after every other key. */
static int list_append(struct options *o, const char **list, const char *value)
{
	size_t len = strlen(value);
	const char *item = value;
	char *out;
	int r = 0;

	if (!*list) {
		r = store(o, "", list);
		if (r < 0)
			goto out;
	}
	/* The items and their commas take at most len + 1 bytes beyond the terminator. */
	if (len + 1 > sizeof(o->storage) - o->used) {
		r = -E2BIG;
		goto out;
	}
	out = o->storage + o->used - 1;
	while (*item) {
		size_t n = strcspn(item, ",");

		if (n > 0) {
			if (out != *list)
				*out++ = ',';
			memcpy(out, item, n);
			out += n;
		}
		item += n;
		if (*item == ',')
			item++;
	}
	*out = '\0';
	o->used = (size_t)(out - o->storage) + 1;
out:
	return r;
}

static bool is_device_spec(const char *s)
{
	if (s[0] == '/')
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(device_tags); i++) {
		const char *rest = startswith(s, device_tags[i]);

		if (rest && rest[0] != '\0')
			return true;
	}
	return false;
}

/* The share a value names by dracut's prefixes (virtiofs:TAG, virtfs:TAG for 9p), its tag in
 * *tag; SHARE_NONE without a prefix. */
static enum share_fs share_prefix(const char *value, const char **tag)
{
	for (size_t i = 0; i < ARRAY_SIZE(share_prefixes); i++) {
		*tag = startswith(value, share_prefixes[i].prefix);
		if (*tag)
			return share_prefixes[i].fs;
	}
	return SHARE_NONE;
}

static enum share_fs share_from_fstype(const char *fstype)
{
	for (size_t i = 0; fstype && i < ARRAY_SIZE(share_fstypes); i++)
		if (streq(fstype, share_fstypes[i].fstype))
			return share_fstypes[i].fs;
	return SHARE_NONE;
}

const char *share_fstype(enum share_fs fs)
{
	for (size_t i = 0; i < ARRAY_SIZE(share_fstypes); i++)
		if (share_fstypes[i].fs == fs)
			return share_fstypes[i].fstype;
	return NULL;
}

/* root= and mount.usr=: a device spec, or a share's tag, by a prefix or because the fstype
 * key (applied before every other key) names a share. */
static int set_mount_source(struct options *o, const char *value, const char *fstype,
			    const char **field, enum share_fs *share, const char **why)
{
	const char *tag = NULL;
	enum share_fs fs = share_prefix(value, &tag);
	int r = -EINVAL;

	if (fs == SHARE_NONE) {
		fs = share_from_fstype(fstype);
		tag = fs != SHARE_NONE ? value : NULL;
	}
	if (fs != SHARE_NONE && !tag[0])
		*why = "no share tag after the prefix; give virtiofs:TAG or virtfs:TAG";
	else if (fs == SHARE_NONE && !is_device_spec(value))
		*why = "not a device; give a path such as /dev/vda2, a UUID=, PARTUUID=, LABEL= or "
		       "PARTLABEL= tag, gpt-auto, or a host share: virtiofs:TAG, virtfs:TAG, or TAG "
		       "with the fstype virtiofs or 9p";
	else
		r = store(o, tag ? tag : value, field);
	if (r == 0)
		*share = fs;
	return r;
}

static int set_root(struct options *o, const char *value, const char **why)
{
	int r = 0;

	if (value[0] == '\0' || streq(value, "gpt-auto")) {
		o->root_kind = ROOT_DISCOVER;
		o->root = NULL;
		o->root_share = SHARE_NONE;
	} else if (streq(value, "tmpfs")) {
		o->root_kind = ROOT_TMPFS;
		o->root = NULL;
		o->root_share = SHARE_NONE;
	} else {
		r = set_mount_source(o, value, o->rootfstype, &o->root, &o->root_share, why);
		if (r == 0)
			o->root_kind = o->root_share != SHARE_NONE ? ROOT_SHARE : ROOT_DEVICE;
	}
	return r;
}

static int set_rootfstype(struct options *o, const char *value, const char **why)
{
	return store_or_reset(o, value, &o->rootfstype);
}

static int set_ro(struct options *o, const char *value, const char **why)
{
	o->rw = 0;
	return 0;
}

static int set_rw(struct options *o, const char *value, const char **why)
{
	o->rw = 1;
	return 0;
}

static int set_usr(struct options *o, const char *value, const char **why)
{
	int r = 0;

	/* gpt-auto asks for discovery, as it does for root=. */
	if (value[0] == '\0' || streq(value, "gpt-auto")) {
		o->usr = NULL;
		o->usr_share = SHARE_NONE;
	} else {
		r = set_mount_source(o, value, o->usrfstype, &o->usr, &o->usr_share, why);
	}
	return r;
}

static int set_usrfstype(struct options *o, const char *value, const char **why)
{
	return store_or_reset(o, value, &o->usrfstype);
}

/* A boolean key: the bare key means yes. */
static int set_bool(const char *value, bool *field, const char **why)
{
	int b = value ? parse_boolean(value) : 1;

	if (b < 0) {
		*why = "not a boolean; use yes or no (or 1/0, true/false, on/off, y/n, t/f)";
		return b;
	}
	*field = b;
	return 0;
}

static int set_gpt_auto(struct options *o, const char *value, const char **why)
{
	return set_bool(value, &o->gpt_auto, why);
}

static int set_fallback(struct options *o, const char *value, const char **why)
{
	return set_bool(value, &o->fallback, why);
}

static int set_verity(struct options *o, const char *value, const char **why)
{
	return set_bool(value, &o->verity, why);
}

/* A malformed hash or device is kept, and refused by the planner: a boot that asked for
 * verification must not go on without it, as it would if the key were left out. */
static int set_hash(struct options *o, const char *value, const char **field, const char **why)
{
	int r = store_or_reset(o, value, field);

	if (r == 0 && value[0] && verity_hash_check(value) < 0) {
		*why = "not a root hash: 64 to 128 hex digits (sha256 gives 64), as veritysetup "
		       "format or systemd-repart print it";
		r = -EINVAL;
	}
	return r;
}

static int set_roothash(struct options *o, const char *value, const char **why)
{
	return set_hash(o, value, &o->verity_root.hash, why);
}

static int set_usrhash(struct options *o, const char *value, const char **why)
{
	return set_hash(o, value, &o->verity_usr.hash, why);
}

static int set_verity_device(struct options *o, const char *value, const char **field,
			     const char **why)
{
	int r = store_or_reset(o, value, field);

	if (r == 0 && value[0] && !is_device_spec(value)) {
		*why = "not a device; give a path such as /dev/vda2, or a UUID=, PARTUUID=, LABEL= "
		       "or PARTLABEL= tag";
		r = -EINVAL;
	}
	return r;
}

static int set_verity_root_data(struct options *o, const char *value, const char **why)
{
	return set_verity_device(o, value, &o->verity_root.data, why);
}

static int set_verity_root_hash(struct options *o, const char *value, const char **why)
{
	return set_verity_device(o, value, &o->verity_root.hash_device, why);
}

static int set_verity_root_options(struct options *o, const char *value, const char **why)
{
	return store_or_reset(o, value, &o->verity_root.options);
}

static int set_verity_usr_data(struct options *o, const char *value, const char **why)
{
	return set_verity_device(o, value, &o->verity_usr.data, why);
}

static int set_verity_usr_hash(struct options *o, const char *value, const char **why)
{
	return set_verity_device(o, value, &o->verity_usr.hash_device, why);
}

static int set_verity_usr_options(struct options *o, const char *value, const char **why)
{
	return store_or_reset(o, value, &o->verity_usr.options);
}

static int set_luks(struct options *o, const char *value, const char **why)
{
	return set_bool(value, &o->luks.enabled, why);
}

/* The volume of a LUKS header UUID ("luks-" prefix allowed, as systemd takes it), added when
 * new. 0, -EINVAL (not a UUID) or -ENOSPC. */
static int luks_volume(struct options *o, const char *uuid, size_t len, struct luks_volume **out)
{
	char text[UUID_STR_LEN + sizeof("luks-")];
	uint8_t bytes[16];
	char normal[UUID_STR_LEN];
	struct luks_cmdline *l = &o->luks;
	int r = -EINVAL;

	if (len >= sizeof(text))
		goto out;
	memcpy(text, uuid, len);
	text[len] = '\0';
	uuid = startswith(text, "luks-") ? text + 5 : text;
	if (uuid_parse(uuid, bytes) < 0 && id128_parse(uuid, bytes) < 0)
		goto out;
	uuid_format(bytes, normal);
	for (size_t i = 0; i < l->n_volumes; i++)
		if (streq(l->volumes[i].uuid, normal)) {
			*out = &l->volumes[i];
			r = 0;
			goto out;
		}
	r = -ENOSPC;
	if (l->n_volumes == LUKS_MAX_VOLUMES)
		goto out;
	*out = &l->volumes[l->n_volumes++];
	memset(*out, 0, sizeof(**out));
	COPY_STR((*out)->uuid, normal);
	r = 0;
out:
	return r;
}

static const char *luks_volume_why(int r)
{
	return r == -ENOSPC ? "more LUKS volumes than earlymount keeps (8)"
			    : "not a LUKS UUID (as cryptsetup luksUUID prints it)";
}

static int set_luks_uuid(struct options *o, const char *value, const char **why)
{
	struct luks_volume *v;
	int r = luks_volume(o, value, strlen(value), &v);

	if (r == 0)
		v->listed = true;
	else
		*why = luks_volume_why(r);
	return r < 0 ? -EINVAL : 0;
}

static int set_luks_name(struct options *o, const char *value, const char **why)
{
	const char *eq = strchr(value, '=');
	struct luks_volume *v;
	int r = eq ? luks_volume(o, value, (size_t)(eq - value), &v) : -EINVAL;

	if (r < 0) {
		*why = eq ? luks_volume_why(r) : "UUID=NAME expected";
	} else if (!eq[1] || strchr(eq + 1, '/') || strlen(eq + 1) > 127) {
		*why = "not a device-mapper name: 1 to 127 characters, no '/'";
		r = -EINVAL;
	} else {
		r = store(o, eq + 1, &v->name);
		v->listed = true;
	}
	return r;
}

/* rd.luks.options= and rd.luks.key= apply to one volume when they start with its UUID and
 * '=', else to all. The part after the UUID in *rest. */
static const char **luks_field(struct options *o, const char *value, bool key, const char **rest)
{
	const char *eq = strchr(value, '=');
	struct luks_volume *v = NULL;

	*rest = value;
	if (eq && luks_volume(o, value, (size_t)(eq - value), &v) == 0) {
		*rest = eq + 1;
		return key ? &v->key : &v->options;
	}
	return key ? &o->luks.key : &o->luks.options;
}

static int set_luks_options(struct options *o, const char *value, const char **why)
{
	const char *rest;
	const char **field = luks_field(o, value, false, &rest);

	(void)why;
	return store_or_reset(o, rest, field);
}

/* A malformed key spec is left out: the passphrase prompt still opens the volume. */
static int set_luks_key(struct options *o, const char *value, const char **why)
{
	const char *rest;
	const char **field = luks_field(o, value, true, &rest);
	int r = 0;

	if (rest[0] && rest[0] != '/') {
		*why = "not a key file: an absolute path, with :DEVICE when it is on a device";
		r = -EINVAL;
	} else {
		r = store_or_reset(o, rest, field);
	}
	return r;
}

/* The value of word in table; -EINVAL when it is not there. */
static int word_lookup(const struct word_value *table, size_t n, const char *word, int *value)
{
	int r = -EINVAL;

	for (size_t i = 0; i < n && r < 0; i++)
		if (streq(word, table[i].word)) {
			*value = table[i].value;
			r = 0;
		}
	return r;
}

static int set_fsck_mode(struct options *o, const char *value, const char **why)
{
	int mode = 0;
	int r = word_lookup(fsck_mode_words, ARRAY_SIZE(fsck_mode_words), value, &mode);

	if (r == 0)
		o->fsck_mode = (enum fsck_mode)mode;
	else
		*why = "not a fsck mode; use auto, force or skip";
	return r;
}

static int set_fsck_repair(struct options *o, const char *value, const char **why)
{
	int repair = 0;
	int r = word_lookup(fsck_repair_words, ARRAY_SIZE(fsck_repair_words), value, &repair);

	if (r == 0)
		o->fsck_repair = (enum fsck_repair)repair;
	else
		*why = "not a fsck repair mode; use preen, yes or no";
	return r;
}

static int set_volatile(struct options *o, const char *value, const char **why)
{
	int b = value ? parse_boolean(value) : 1;
	int mode = 0;
	int r = 0;

	if (b >= 0) {
		o->volatile_mode = b ? VOLATILE_YES : VOLATILE_NO;
		goto out;
	}
	r = word_lookup(volatile_words, ARRAY_SIZE(volatile_words), value, &mode);
	if (r == 0)
		o->volatile_mode = (enum volatile_mode)mode;
	else
		*why = "not a volatile mode; use yes, no, state or overlay";
out:
	return r;
}

static int set_resume(struct options *o, const char *value, const char **why)
{
	int r = 0;

	if (value[0] && !is_device_spec(value) && !is_devno(value)) {
		*why = "not a device; give a path such as /dev/vda3, a UUID=, PARTUUID=, LABEL= or "
		       "PARTLABEL= tag, or MAJOR:MINOR";
		r = -EINVAL;
	} else {
		r = store_or_reset(o, value, &o->resume);
	}
	return r;
}

static int set_resume_offset(struct options *o, const char *value, const char **why)
{
	int r = parse_decimal(value, strlen(value), UINT64_MAX, &o->resume_offset);

	if (r < 0)
		*why = "not a number of pages; give the swap file's first page, as "
		       "filefrag or btrfs inspect-internal map-swapfile -r print it";
	else
		o->has_resume_offset = true;
	return r;
}

static int set_noresume(struct options *o, const char *value, const char **why)
{
	o->noresume = true;
	return 0;
}

static int set_init(struct options *o, const char *value, const char **why)
{
	if (value[0] != '\0' && value[0] != '/') {
		*why = "not an absolute path; name the program in the new root, e.g. init=/sbin/init";
		return -EINVAL;
	}
	return store_or_reset(o, value, &o->init);
}

static int set_disk(struct options *o, const char *value, const char **why)
{
	return store_or_reset(o, value, &o->disk);
}

static int set_machine_id(struct options *o, const char *value, const char **why)
{
	static const uint8_t null_id[16];
	uint8_t id[16];
	int r = id128_parse(value, id);

	if (r < 0) {
		*why = "not a machine ID; give 32 hex digits or the 8-4-4-4-12 UUID form";
		goto out;
	}
	/* systemd refuses the null ID too: it means "no ID" everywhere. */
	if (memcmp(id, null_id, sizeof(id)) == 0) {
		*why = "the all-zero ID is not a machine ID";
		r = -EINVAL;
		goto out;
	}
	memcpy(o->machine_id, id, sizeof(id));
	o->has_machine_id = true;
out:
	return r;
}

static int set_emergency(struct options *o, const char *value, const char **why)
{
	o->emergency = true;
	return 0;
}

/* The bare key is the shell now, before the boot; a value is dracut's action on failure. */
static int set_rd_emergency(struct options *o, const char *value, const char **why)
{
	int action = 0;
	int r;

	if (!value)
		return set_emergency(o, value, why);
	r = word_lookup(emergency_words, ARRAY_SIZE(emergency_words), value, &action);
	if (r == 0)
		o->emergency_action = (enum emergency_action)action;
	else
		*why = "not an action; use reboot, poweroff or halt (or the bare rd.emergency for a shell now)";
	return r;
}

static int set_shell(struct options *o, const char *value, const char **why)
{
	bool shell = true;
	int r = set_bool(value, &shell, why);

	if (r == 0)
		o->no_shell = !shell;
	return r;
}

/* The kernel's own key, read as its int parameter: seconds, negative for at once. */
static int set_panic(struct options *o, const char *value, const char **why)
{
	bool negative = value[0] == '-';
	const char *digits = value + (value[0] == '-' || value[0] == '+');
	uint64_t n;
	int r = parse_decimal(digits, strlen(digits), INT_MAX, &n);

	if (r < 0)
		*why = "not a whole number of seconds (negative: at once)";
	else
		o->panic_sec = negative ? -(int)n : (int)n;
	return r;
}

static int set_break(struct options *o, const char *value, const char **why)
{
	o->rd_break = true;
	return 0;
}

static int set_quiet(struct options *o, const char *value, const char **why)
{
	o->quiet = true;
	return 0;
}

static int set_debug(struct options *o, const char *value, const char **why)
{
	o->debug = true;
	return 0;
}

static int set_rootwait(struct options *o, const char *value, const char **why)
{
	o->rootwait = true;
	return 0;
}

static int set_timeout(struct options *o, const char *value, const char **why)
{
	int r = parse_time_span(value, &o->timeout_sec);

	if (r == -ERANGE)
		*why = "too long; use infinity to wait forever";
	else if (r < 0)
		*why = "not a time span; use whole seconds, a span such as 90s, 500ms or 2min, or infinity";
	return r < 0 ? -EINVAL : 0;
}

static int set_rootdelay(struct options *o, const char *value, const char **why)
{
	int r = parse_seconds(value, &o->rootdelay_sec);

	if (r < 0)
		*why = "not a number of seconds; use a whole number of seconds, 0 or more";
	return r < 0 ? -EINVAL : 0;
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

static void append_list_param(struct parser *p, const char *key, const char *value)
{
	char value_shown[SHOWN_SIZE];
	const struct cmdline_key *k = find_key(key);
	int r;

	if (!k || k->form != FORM_LIST || k->list != p->list || !value)
		return;
	r = list_append(p->opts, list_field(p->opts, p->list), value);
	if (r < 0)
		report(p, r, "%s=%s: " NO_ROOM "; ignored", key, shown(value_shown, value));
}

/* One pass per list keeps each list contiguous in storage, in command-line order. */
static void join_lists(struct parser *p, const char *line)
{
	static const enum list_id lists[] = { LIST_ROOTFLAGS, LIST_USRFLAGS, LIST_MODULES, LIST_BLACKLIST,
					      LIST_TMPFS };

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
