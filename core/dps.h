/* The Discoverable Partitions Specification as data: architectures, partition
 * types and the GPT attribute bits. Pure. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum arch {
	ARCH_INVALID = -1,
	ARCH_X86_64,
	ARCH_AARCH64,
	ARCH_X86,
	ARCH_ARM,
	ARCH_RISCV64,
	ARCH_PPC64LE,
	ARCH_S390X,
	ARCH_LOONGARCH64,
	ARCH_MAX,
};

enum dps_role {
	DPS_UNKNOWN = -1,
	DPS_ROOT,
	DPS_USR,
	DPS_ROOT_VERITY,
	DPS_USR_VERITY,
	DPS_ROOT_VERITY_SIG,
	DPS_USR_VERITY_SIG,
	DPS_ESP,
	DPS_XBOOTLDR,
	DPS_SWAP,
	DPS_HOME,
	DPS_SRV,
	DPS_VAR,
	DPS_TMP,
	DPS_USER_HOME,
	DPS_LINUX_GENERIC,
	DPS_ROLE_MAX,
};

/* GPT partition attribute bits the specification gives a meaning to. */
#define GPT_FLAG_NO_BLOCK_IO (UINT64_C(1) << 1)  /* UEFI: firmware must not read it */
#define GPT_FLAG_GROWFS      (UINT64_C(1) << 59)
#define GPT_FLAG_READ_ONLY   (UINT64_C(1) << 60)
#define GPT_FLAG_NO_AUTO     (UINT64_C(1) << 63)

struct dps_type {
	enum dps_role role;
	enum arch arch; /* ARCH_INVALID for types that are the same on every arch */
	const char *uuid; /* lower case, as libblkid prints it */
};

/* The architecture this binary was built for. */
enum arch arch_native(void);
/* The arch whose binaries the native one also runs (x86 on x86-64, arm on arm64), or ARCH_INVALID. */
enum arch arch_secondary(enum arch arch);
/* Canonical name as used on the command line and in output: "x86-64", "arm64", … */
const char *arch_name(enum arch arch);
/* Accepts the canonical name and common aliases (x86_64, amd64, aarch64, i686, …). */
enum arch arch_from_name(const char *name);

/* The type whose UUID is given (any case), or NULL when the spec does not know it. */
const struct dps_type *dps_type_from_uuid(const char *uuid);
/* The UUID of role on arch (arch ignored for arch-independent roles), or NULL. */
const char *dps_type_uuid(enum dps_role role, enum arch arch);
/* "root", "usr", "esp", "xbootldr", "swap", "home", "srv", "var", "tmp", … */
const char *dps_role_name(enum dps_role role);
/* Whether the spec gives bit 63 (no-auto) / bit 60 (read-only) a meaning for role. */
bool dps_role_honours_no_auto(enum dps_role role);
bool dps_role_honours_read_only(enum dps_role role);
/* Bit 59 (grow-fs): root, usr, home, srv, var, tmp and XBOOTLDR. */
bool dps_role_honours_grow_fs(enum dps_role role);
/* Whether discovery mounts (or swaps on) partitions of this role. */
bool dps_role_mounted(enum dps_role role);
/* Filesystems the spec allows to be mounted automatically. */
bool dps_fstype_allowed(const char *fstype);

/* The PARTUUID a /var partition must carry on the machine with this ID: HMAC-SHA256 keyed
 * with the machine ID over the var type UUID, first 16 bytes, with the UUIDv4 bits set. */
void dps_var_partuuid(const uint8_t machine_id[16], uint8_t out[16]);
