/* The grammar of systemd.image-policy(7) and what a rule means for one partition, as systemd's
 * dissection applies it: the flags of a rule are alternatives, unset groups mean "any", a
 * verity partition follows its data partition unless it has a rule of its own. */
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

/* s without the blanks around it, in place. */
static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

static int parse_flags(char *s, uint32_t *out, char *err, size_t size)
{
	char *word, *end;
	uint32_t flags = 0;
	int r = 0;

	s = trim(s);
	if (s[0] == '\0' || streq(s, "-"))
		goto out;
	/* strtok_r would fold "a++b": every word between two '+' counts */
	for (word = s; word && r == 0; word = end ? end + 1 : NULL) {
		const struct flag_name *f = NULL;

		end = strchr(word, '+');
		if (end)
			*end = '\0';
		word = trim(word);
		for (size_t i = 0; i < ARRAY_SIZE(flag_names) && !f; i++)
			if (streq(flag_names[i].name, word))
				f = &flag_names[i];
		if (f)
			flags |= f->bits;
		else {
			snprintf(err, size, "'%s' is no policy flag", word);
			r = -EBADRQC;
		}
	}
out:
	*out = flags;
	return r;
}

static int parse_rule(char *rule, struct image_policy *p, char *err, size_t size)
{
	char *eq = strchr(rule, '=');
	char *name;
	uint32_t flags;
	int role, r;

	if (!eq) {
		snprintf(err, size, "'%s' has no '=' (a rule is DESIGNATOR=FLAGS)", trim(rule));
		return -EINVAL;
	}
	*eq = '\0';
	name = trim(rule);
	r = parse_flags(eq + 1, &flags, err, size);
	if (r < 0)
		return r;
	if (name[0] == '\0') {
		if (p->default_listed) {
			snprintf(err, size, "the default rule (=FLAGS) is given twice");
			return -ENOTUNIQ;
		}
		p->default_listed = true;
		p->default_flags = flags;
		return 0;
	}
	role = image_policy_role(name);
	if (role < 0) {
		snprintf(err, size, "'%s' is no partition designator (root, usr, home, srv, esp, "
			 "xbootldr, swap, tmp, var, root-verity, usr-verity, root-verity-sig, "
			 "usr-verity-sig)", name);
		return role;
	}
	if (p->listed[role]) {
		snprintf(err, size, "'%s' has two rules", name);
		return -ENOTUNIQ;
	}
	p->listed[role] = true;
	p->flags[role] = flags;
	return 0;
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
	char copy[IMAGE_POLICY_TEXT * 4], err[sizeof(p->error)] = "";
	char *rule, *end;
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
	if (symbolic(trim(copy), p))
		goto out;
	/* every rule between two ':' counts: an empty one is a mistake, not nothing */
	for (rule = copy; rule && r == 0; rule = end ? end + 1 : NULL) {
		end = strchr(rule, ':');
		if (end)
			*end = '\0';
		if (trim(rule)[0] == '\0') {
			snprintf(err, sizeof(err), "an empty rule (two ':' in a row, or one at an end)");
			r = -EINVAL;
		} else {
			r = parse_rule(rule, p, err, sizeof(err));
		}
	}
out:
	if (r < 0) {
		memset(p->listed, 0, sizeof(p->listed));
		p->malformed = true;
		snprintf(p->error, sizeof(p->error), "%s", err);
	}
	return r;
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
		f &= ~(POLICY_VERITY | POLICY_SIGNED | POLICY_ENCRYPTED);
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

uint32_t image_policy_found(bool encrypted, bool verity, bool is_signed)
{
	if (encrypted)
		return POLICY_ENCRYPTED;
	if (is_signed)
		return POLICY_SIGNED | POLICY_VERITY | POLICY_UNPROTECTED;
	return verity ? POLICY_VERITY | POLICY_UNPROTECTED : POLICY_UNPROTECTED;
}

static uint32_t strongest(uint32_t found)
{
	static const uint32_t order[] = { POLICY_SIGNED, POLICY_VERITY, POLICY_ENCRYPTED,
					  POLICY_UNPROTECTED, POLICY_UNUSED, POLICY_ABSENT };
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
	char have[128], want[128];
	int r = -EPERM;

	if (!(f & POLICY_USE_MASK)) {
		snprintf(why, size, "the rule allows it no use it can have (verity and signed apply "
			 "to root and /usr alone, and a verity partition is not encrypted)");
	} else if (!(found & f & POLICY_USE_MASK)) {
		/* what it is, not every weaker level it also qualifies for */
		image_policy_flags_format(strongest(found), have, sizeof(have));
		image_policy_flags_format(f & POLICY_USE_MASK, want, sizeof(want));
		snprintf(why, size, "it would be used %s, and the policy wants %s", have, want);
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
	char flags[128];
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
