/* The grammar of systemd.image-policy(7) and what a rule means for one partition, as systemd's
 * dissection applies it: the flags of a rule are alternatives, unset groups mean "any", a
 * verity partition follows its data partition unless it has a rule of its own. Followed: systemd
 * 260 (src/shared/image-policy.c), the version that added "encryptedwithintegrity". */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "image_policy.h"
#include "util.h"

#define RO_MASK     (POLICY_READ_ONLY_ON | POLICY_READ_ONLY_OFF)
#define GROWFS_MASK (POLICY_GROWFS_ON | POLICY_GROWFS_OFF)

/* In the order systemd writes them. */
static const struct flag_name {
	const char *name;
	uint32_t bits;
} flag_names[] = {
	{ "verity", POLICY_VERITY },
	{ "signed", POLICY_SIGNED },
	{ "encrypted", POLICY_ENCRYPTED },
	{ "encryptedwithintegrity", POLICY_ENCRYPTED_INTEGRITY },
	{ "unprotected", POLICY_UNPROTECTED },
	{ "unused", POLICY_UNUSED },
	{ "absent", POLICY_ABSENT },
	{ "read-only-on", POLICY_READ_ONLY_ON },
	{ "read-only-off", POLICY_READ_ONLY_OFF },
	{ "growfs-off", POLICY_GROWFS_OFF },
	{ "growfs-on", POLICY_GROWFS_ON },
	{ "btrfs", 1u << (POLICY_FS_SHIFT + 0) },
	{ "erofs", 1u << (POLICY_FS_SHIFT + 1) },
	{ "ext4", 1u << (POLICY_FS_SHIFT + 2) },
	{ "f2fs", 1u << (POLICY_FS_SHIFT + 3) },
	{ "squashfs", 1u << (POLICY_FS_SHIFT + 4) },
	{ "vfat", 1u << (POLICY_FS_SHIFT + 5) },
	{ "xfs", 1u << (POLICY_FS_SHIFT + 6) },
	/* shorthands, read but never written */
	{ "open", POLICY_OPEN },
	{ "ignore", POLICY_IGNORE },
};
#define N_WRITTEN (ARRAY_SIZE(flag_names) - 2)

static const char *const designators[DPS_ROLE_MAX] = {
	[DPS_ROOT] = "root",
	[DPS_USR] = "usr",
	[DPS_ROOT_VERITY] = "root-verity",
	[DPS_USR_VERITY] = "usr-verity",
	[DPS_ROOT_VERITY_SIG] = "root-verity-sig",
	[DPS_USR_VERITY_SIG] = "usr-verity-sig",
	[DPS_ESP] = "esp",
	[DPS_XBOOTLDR] = "xbootldr",
	[DPS_SWAP] = "swap",
	[DPS_HOME] = "home",
	[DPS_SRV] = "srv",
	[DPS_VAR] = "var",
	[DPS_TMP] = "tmp",
};

const char *image_policy_designator(enum dps_role role)
{
	return role >= 0 && role < DPS_ROLE_MAX ? designators[role] : NULL;
}

int image_policy_role(const char *name)
{
	int r = -EBADSLT;

	for (int i = 0; i < DPS_ROLE_MAX && r < 0; i++)
		if (designators[i] && streq(designators[i], name))
			r = i;
	return r;
}

/* The data partition a verity (or signature) partition protects, or DPS_UNKNOWN. */
static enum dps_role data_of(enum dps_role role, bool *sig)
{
	*sig = role == DPS_ROOT_VERITY_SIG || role == DPS_USR_VERITY_SIG;
	if (role == DPS_ROOT_VERITY || role == DPS_ROOT_VERITY_SIG)
		return DPS_ROOT;
	if (role == DPS_USR_VERITY || role == DPS_USR_VERITY_SIG)
		return DPS_USR;
	return DPS_UNKNOWN;
}

/* What systemd's strstrip() takes off both ends of a designator or a flag. */
#define BLANKS " \t\n\r"

/* s without the blanks around it, in place. */
static char *trim(char *s)
{
	size_t n;

	s += strspn(s, BLANKS);
	n = strlen(s);
	while (n > 0 && strchr(BLANKS, s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* The next word of *p up to sep, as systemd's extract_first_word() splits it without
 * coalescing: every word between two seps counts, an empty one too, and a backslash takes the
 * next byte as it is (quotes are bytes like others). The word is unescaped in place; *p moves
 * past the sep, or to NULL after the last word. 1 and the word; 0 when none is left; -EINVAL
 * for a backslash at the end. */
static int next_word(char **p, char sep, char **word)
{
	char *in = *p, *out = *p;

	if (!in)
		return 0;
	*word = in;
	for (; *in && *in != sep; in++) {
		if (*in == '\\' && !*++in)
			return -EINVAL;
		*out++ = *in;
	}
	*p = *in ? in + 1 : NULL;
	*out = '\0';
	return 1;
}

static int parse_flags(char *s, uint32_t *out, char *err, size_t size)
{
	char *word = NULL;
	uint32_t flags = 0;
	int r = 0;

	s = trim(s);
	if (s[0] == '\0' || streq(s, "-"))
		goto out;
	while ((r = next_word(&s, '+', &word)) == 1) {
		const struct flag_name *f = NULL;

		word = trim(word);
		for (size_t i = 0; i < ARRAY_SIZE(flag_names) && !f; i++)
			if (streq(flag_names[i].name, word))
				f = &flag_names[i];
		if (!f) {
			snprintf(err, size, "'%s' is no policy flag", word);
			r = -EBADRQC;
			break;
		}
		flags |= f->bits;
	}
	if (r == -EINVAL)
		snprintf(err, size, "a '\\' at the end of the flags escapes nothing");
out:
	*out = flags;
	return r < 0 ? r : 0;
}

/* The designator of a rule: the default ("", once: *role is DPS_UNKNOWN), or one of the
 * table (once). 0, or -errno with err. */
static int parse_designator(const char *name, struct image_policy *p, int *role, char *err,
			    size_t size)
{
	int r = 0;

	*role = name[0] ? image_policy_role(name) : DPS_UNKNOWN;
	if (!name[0] && p->default_listed) {
		snprintf(err, size, "the default rule (=FLAGS) is given twice");
		r = -ENOTUNIQ;
	} else if (!name[0]) {
		p->default_listed = true;
	} else if (*role < 0) {
		snprintf(err, size, "'%s' is no partition designator (root, usr, home, srv, esp, "
			 "xbootldr, swap, tmp, var, root-verity, usr-verity, root-verity-sig, "
			 "usr-verity-sig)", name);
		r = -EBADSLT;
	} else if (p->listed[*role]) {
		snprintf(err, size, "'%s' has two rules", name);
		r = -ENOTUNIQ;
	} else {
		p->listed[*role] = true;
	}
	return r;
}

/* One rule, DESIGNATOR=FLAGS: its '=', then its designator, then its flags, as systemd checks
 * them, so that the first mistake is the one named. */
static int parse_rule(char *rule, struct image_policy *p, char *err, size_t size)
{
	char *rest = rule, *name = NULL;
	uint32_t flags;
	int role, r;

	r = next_word(&rest, '=', &name);
	if (r < 0) {
		snprintf(err, size, "a '\\' at the end of '%s' escapes nothing", rule);
		return r;
	}
	if (!rest) {
		if (trim(rule)[0] == '\0')
			snprintf(err, size, "an empty rule (two ':' in a row, or one at an end)");
		else
			snprintf(err, size, "'%s' has no '=' (a rule is DESIGNATOR=FLAGS)", trim(rule));
		return -EINVAL;
	}
	r = parse_designator(trim(name), p, &role, err, size);
	if (r == 0)
		r = parse_flags(rest, &flags, err, size);
	if (r == 0 && role == DPS_UNKNOWN)
		p->default_flags = flags;
	else if (r == 0)
		p->flags[role] = flags;
	return r;
}

static bool symbolic(const char *s, struct image_policy *p)
{
	static const struct {
		const char *text;
		uint32_t flags;
	} symbols[] = { { "", POLICY_IGNORE }, { "-", POLICY_IGNORE }, { "*", POLICY_OPEN },
			{ "~", POLICY_ABSENT } };

	for (size_t i = 0; i < ARRAY_SIZE(symbols); i++)
		if (streq(s, symbols[i].text)) {
			p->default_flags = symbols[i].flags;
			p->default_listed = true;
			return true;
		}
	return false;
}

int image_policy_parse(const char *s, struct image_policy *p)
{
	static char copy[IMAGE_POLICY_MAX];
	char err[sizeof(p->error)] = "";
	char *rest = copy, *rule = NULL;
	int r = 0;

	memset(p, 0, sizeof(*p));
	p->given = true;
	p->default_flags = POLICY_IGNORE;
	snprintf(p->text, sizeof(p->text), "%s", s);
	if (copy_str(copy, sizeof(copy), s) < 0) {
		snprintf(err, sizeof(err), "longer than %zu bytes", sizeof(copy) - 1);
		r = -EINVAL;
		goto out;
	}
	/* the symbols are the whole text, blanks and all: " *" is a rule without '=' */
	if (symbolic(copy, p))
		goto out;
	while ((r = next_word(&rest, ':', &rule)) == 1 && (r = parse_rule(rule, p, err, sizeof(err))) == 0)
		;
	if (r == -EINVAL && !err[0])
		snprintf(err, sizeof(err), "a '\\' at the end escapes nothing");
out:
	if (r < 0) {
		memset(p->listed, 0, sizeof(p->listed));
		p->malformed = true;
		snprintf(p->error, sizeof(p->error), "%s", err);
	}
	return r < 0 ? r : 0;
}

static uint32_t normalize(uint32_t f, enum dps_role role)
{
	bool sig;

	if (!(f & POLICY_USE_MASK))
		f |= POLICY_OPEN;
	if (!(f & RO_MASK))
		f |= RO_MASK;
	if (!(f & GROWFS_MASK))
		f |= GROWFS_MASK;
	/* a verity partition is the protection: it needs none of its own */
	if (data_of(role, &sig) != DPS_UNKNOWN)
		f &= ~(POLICY_VERITY | POLICY_SIGNED | POLICY_ENCRYPTED | POLICY_ENCRYPTED_INTEGRITY);
	/* only root and /usr have verity partitions */
	if (role != DPS_ROOT && role != DPS_USR)
		f &= ~(POLICY_VERITY | POLICY_SIGNED);
	if ((f & POLICY_USE_MASK) == POLICY_ABSENT)
		f &= ~(RO_MASK | GROWFS_MASK);
	return f;
}

/* A verity or signature partition without a rule of its own, when its data partition has one
 * that wants verity (a signature: signed): 0 when it does not follow. */
static uint32_t derived(const struct image_policy *p, enum dps_role role)
{
	bool sig;
	enum dps_role data = data_of(role, &sig);
	uint32_t df, need = sig ? POLICY_SIGNED : POLICY_VERITY | POLICY_SIGNED;

	if (data == DPS_UNKNOWN || !p->listed[data])
		return 0;
	df = normalize(p->flags[data], data);
	if (!(df & need))
		return 0;
	return normalize(POLICY_UNPROTECTED | (df & POLICY_IGNORE) | (df & (RO_MASK | GROWFS_MASK)),
			 role);
}

uint32_t image_policy_flags(const struct image_policy *p, enum dps_role role)
{
	uint32_t f;

	if (!p->given || role < 0 || role >= DPS_ROLE_MAX)
		return normalize(POLICY_OPEN, role);
	if (p->listed[role])
		return normalize(p->flags[role], role);
	f = derived(p, role);
	return f ? f : normalize(p->default_flags, role);
}

enum policy_use image_policy_use(const struct image_policy *p, enum dps_role role)
{
	uint32_t f = image_policy_flags(p, role) & POLICY_USE_MASK;

	if (f == POLICY_ABSENT)
		return POLICY_FORBIDDEN;
	if ((f & ~POLICY_ABSENT) == POLICY_UNUSED)
		return POLICY_IGNORE_IT;
	return POLICY_USE_IT;
}

uint32_t image_policy_found(bool encrypted, bool integrity, bool verity, bool is_signed)
{
	if (encrypted)
		return integrity ? POLICY_ENCRYPTED_INTEGRITY : POLICY_ENCRYPTED;
	if (is_signed)
		return POLICY_SIGNED | POLICY_VERITY | POLICY_UNPROTECTED;
	return verity ? POLICY_VERITY | POLICY_UNPROTECTED : POLICY_UNPROTECTED;
}

static uint32_t strongest(uint32_t found)
{
	static const uint32_t order[] = { POLICY_SIGNED, POLICY_VERITY, POLICY_ENCRYPTED_INTEGRITY,
					  POLICY_ENCRYPTED, POLICY_UNPROTECTED, POLICY_UNUSED,
					  POLICY_ABSENT };
	uint32_t bit = 0;

	for (size_t i = 0; i < ARRAY_SIZE(order) && !bit; i++)
		bit = found & order[i];
	return bit;
}

static uint32_t fs_flag(const char *fstype)
{
	uint32_t bits = 0;

	for (size_t i = 0; i < N_WRITTEN && !bits; i++)
		if ((flag_names[i].bits & POLICY_FS_MASK) && streq(flag_names[i].name, fstype))
			bits = flag_names[i].bits;
	return bits;
}

int image_policy_check(const struct image_policy *p, enum dps_role role, uint32_t found,
		       uint64_t gpt_flags, const char *fstype, char *why, size_t size)
{
	uint32_t f = image_policy_flags(p, role);
	bool ro = gpt_flags & GPT_FLAG_READ_ONLY, grow = gpt_flags & GPT_FLAG_GROWFS;
	char have[IMAGE_POLICY_FLAGS_TEXT], want[IMAGE_POLICY_FLAGS_TEXT];
	int r = -EPERM;

	if (!(f & POLICY_USE_MASK)) {
		snprintf(why, size, "the rule allows it no use it can have (verity and signed apply "
			 "to root and /usr alone, and a verity partition is not encrypted)");
	} else if (!(found & f & POLICY_USE_MASK)) {
		/* what it is, not every weaker level it also qualifies for */
		image_policy_flags_format(strongest(found), have, sizeof(have));
		image_policy_flags_format(f & POLICY_USE_MASK, want, sizeof(want));
		snprintf(why, size, "it would be used %s, and the policy wants %s%s", have, want,
			 (found & POLICY_ENCRYPTED) && (f & POLICY_ENCRYPTED_INTEGRITY)
				 ? " (a LUKS volume without dm-integrity: cryptsetup luksFormat "
				   "--integrity, or systemd-repart's Integrity=, makes one with it)" : "");
	} else if ((f & RO_MASK) == (ro ? POLICY_READ_ONLY_OFF : POLICY_READ_ONLY_ON)) {
		snprintf(why, size, "its read-only flag (GPT bit 60) is %s, and the policy wants it %s",
			 ro ? "set" : "clear", ro ? "clear" : "set");
	} else if ((f & GROWFS_MASK) == (grow ? POLICY_GROWFS_OFF : POLICY_GROWFS_ON)) {
		snprintf(why, size, "its growfs flag (GPT bit 59) is %s, and the policy wants it %s",
			 grow ? "set" : "clear", grow ? "clear" : "set");
	} else if ((f & POLICY_FS_MASK) && fstype[0] && !(f & fs_flag(fstype))) {
		image_policy_flags_format(f & POLICY_FS_MASK, want, sizeof(want));
		snprintf(why, size, "it holds %s, and the policy allows %s", fstype, want);
	} else {
		r = 0;
	}
	return r;
}

void image_policy_flags_format(uint32_t flags, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	if ((flags & POLICY_USE_MASK) == POLICY_OPEN || (flags & POLICY_USE_MASK) == POLICY_IGNORE) {
		used += (size_t)snprintf(buf, size, "%s", (flags & POLICY_USE_MASK) == POLICY_OPEN ?
					 "open" : "ignore");
		flags &= ~POLICY_USE_MASK;
	}
	for (size_t i = 0; i < N_WRITTEN && used < size; i++)
		if (flags & flag_names[i].bits)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "+" : "",
						 flag_names[i].name);
	if (!buf[0] && size > 1)
		snprintf(buf, size, "-");
}

void image_policy_rule(const struct image_policy *p, enum dps_role role, char *buf, size_t size)
{
	char flags[IMAGE_POLICY_FLAGS_TEXT];
	bool sig;
	enum dps_role data = data_of(role, &sig);

	if (!p->given) {
		snprintf(buf, size, "no policy");
	} else if (role >= 0 && role < DPS_ROLE_MAX && p->listed[role]) {
		image_policy_flags_format(p->flags[role], flags, sizeof(flags));
		snprintf(buf, size, "%s=%s", designators[role], flags);
	} else if (derived(p, role)) {
		image_policy_flags_format(p->flags[data], flags, sizeof(flags));
		snprintf(buf, size, "%s follows %s=%s", designators[role], designators[data], flags);
	} else {
		image_policy_flags_format(p->default_flags, flags, sizeof(flags));
		snprintf(buf, size, "=%s (%s)", flags, p->default_listed ? "the default rule" :
			 "the default of a policy without one");
	}
}
