/* systemd's image policies (systemd.image-policy(7)): which partitions of a disk discovery may
 * use, and with what protection. "root=signed:home=encrypted+absent:swap=absent:=unused+absent":
 * rules separated by ':', each a designator, '=', and flags joined by '+'; an empty designator
 * is the default rule. Pure: the text in, a policy out, and the questions the planner asks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dps.h"

/* How a partition may be used: alternatives, any of which satisfies the policy. */
#define POLICY_UNPROTECTED (1u << 0) /* used, with neither verity nor LUKS */
#define POLICY_VERITY      (1u << 1) /* used through dm-verity */
#define POLICY_SIGNED      (1u << 2) /* used through dm-verity with a signed root hash */
#define POLICY_ENCRYPTED   (1u << 3) /* used through LUKS without dm-integrity */
#define POLICY_UNUSED      (1u << 4) /* there, and left alone */
#define POLICY_ABSENT      (1u << 5) /* not there */
/* used through LUKS2 with dm-integrity on every segment (systemd 260's
 * "encryptedwithintegrity"); such a volume is this, and not POLICY_ENCRYPTED */
#define POLICY_ENCRYPTED_INTEGRITY (1u << 6)
#define POLICY_USE_MASK    0x7fu
#define POLICY_OPEN        POLICY_USE_MASK
#define POLICY_IGNORE      (POLICY_UNUSED | POLICY_ABSENT)
/* The GPT flags a partition must have: both of a pair (or neither) leave it open. */
#define POLICY_READ_ONLY_ON  (1u << 7)
#define POLICY_READ_ONLY_OFF (1u << 8)
#define POLICY_GROWFS_ON     (1u << 9)
#define POLICY_GROWFS_OFF    (1u << 10)
/* The filesystems allowed; none of them set: any. */
#define POLICY_FS_SHIFT 11
#define POLICY_FS_MASK  (0x7fu << POLICY_FS_SHIFT)

#define IMAGE_POLICY_TEXT 256
/* Room for a rule's flags as image_policy_flags_format() writes them, every flag set but one
 * use (all of them is "open"): 153 bytes. */
#define IMAGE_POLICY_FLAGS_TEXT 160
/* The longest policy read: a kernel command line's worth (core/cmdline.h's CMDLINE_MAX). */
#define IMAGE_POLICY_MAX 4096

struct image_policy {
	bool given;              /* a policy was given: without one, discovery is not restricted */
	bool malformed;          /* it could not be read: nothing may boot under half a policy */
	char error[160];         /* why, when malformed */
	char text[IMAGE_POLICY_TEXT]; /* as given (cut when longer), for messages */
	bool listed[DPS_ROLE_MAX];
	uint32_t flags[DPS_ROLE_MAX];
	uint32_t default_flags;  /* the rule with no designator; unused+absent when there is none */
	bool default_listed;
};

/* Reads s into p as systemd 260 reads it (image_policy_from_string(), not graceful): rules
 * in order, each checked for its '=', then its designator, then its flags, so the first
 * mistake is the one named; a backslash takes the next byte as it is; blanks around a
 * designator or a flag do not count. 0, or -EINVAL (malformed, no '=', an empty rule, a
 * backslash at the end), -ENOTUNIQ (a designator or the default given twice), -EBADSLT (an
 * unknown designator), -EBADRQC (an unknown flag); then p->malformed and p->error say why, and
 * nothing else of p is to be used. "*" allows everything, "-" (or "") uses nothing, "~"
 * wants nothing there: exactly these, without blanks. */
int image_policy_parse(const char *s, struct image_policy *p);

/* The designator of role ("root", "usr-verity-sig", …), or NULL for the roles policies do not
 * name (user home, generic Linux data). */
const char *image_policy_designator(enum dps_role role);

/* The role whose designator is name, or -EBADSLT. */
int image_policy_role(const char *name);

/* The flags that apply to role, complete: unset parts read as "any", protection bits that
 * cannot apply masked (verity on /home, any on a verity partition), a verity or signature
 * partition without a rule of its own following its data partition's. */
uint32_t image_policy_flags(const struct image_policy *p, enum dps_role role);

enum policy_use {
	POLICY_USE_IT,      /* may be used */
	POLICY_IGNORE_IT,   /* there, and to be left alone */
	POLICY_FORBIDDEN,   /* must not be there: the disk is refused */
};
enum policy_use image_policy_use(const struct image_policy *p, enum dps_role role);

/* The flags that describe how a partition is used: encrypted, with integrity (every segment
 * of its LUKS2 header has dm-integrity) or without, never both; signed (which qualifies for
 * verity and unprotected too); verity (and unprotected); unprotected. */
uint32_t image_policy_found(bool encrypted, bool integrity, bool verity, bool is_signed);

/* Whether a partition of role used as found, with GPT flags gpt_flags and filesystem fstype
 * ("" when not known yet), satisfies the policy: 0, or -EPERM with why saying what differs. */
int image_policy_check(const struct image_policy *p, enum dps_role role, uint32_t found,
		       uint64_t gpt_flags, const char *fstype, char *why, size_t size);

/* The rule that applies to role, as a message quotes it: "swap=absent", "=unused+absent (the
 * default rule)", "root-verity follows root=verity". */
void image_policy_rule(const struct image_policy *p, enum dps_role role, char *buf, size_t size);
/* flags as the grammar writes them, "verity+signed", "-" for none. */
void image_policy_flags_format(uint32_t flags, char *buf, size_t size);
