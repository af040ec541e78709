/* The Discoverable Partitions Specification's tables. */
#include <string.h>
#include <strings.h>

#include "dps.h"
#include "sha256.h"
#include "util.h"
#include "uuid.h"

#define ARCH_TYPES(a, root, usr, rv, uv, rvs, uvs) \
	{ DPS_ROOT, a, root }, { DPS_USR, a, usr }, \
	{ DPS_ROOT_VERITY, a, rv }, { DPS_USR_VERITY, a, uv }, \
	{ DPS_ROOT_VERITY_SIG, a, rvs }, { DPS_USR_VERITY_SIG, a, uvs }

static const struct dps_type types[] = {
	ARCH_TYPES(ARCH_X86_64, "4f68bce3-e8cd-4db1-96e7-fbcaf984b709", "8484680c-9521-48c6-9c11-b0720656f69e",
		   "2c7357ed-ebd2-46d9-aec1-23d437ec2bf5", "77ff5f63-e7b6-4633-acf4-1565b864c0e6",
		   "41092b05-9fc8-4523-994f-2def0408b176", "e7bb33fb-06cf-4e81-8273-e543b413e2e2"),
	ARCH_TYPES(ARCH_AARCH64, "b921b045-1df0-41c3-af44-4c6f280d3fae", "b0e01050-ee5f-4390-949a-9101b17104e9",
		   "df3300ce-d69f-4c92-978c-9bfb0f38d820", "6e11a4e7-fbca-4ded-b9e9-e1a512bb664e",
		   "6db69de6-29f4-4758-a7a5-962190f00ce3", "c23ce4ff-44bd-4b00-b2d4-b41b3419e02a"),
	ARCH_TYPES(ARCH_X86, "44479540-f297-41b2-9af7-d131d5f0458a", "75250d76-8cc6-458e-bd66-bd47cc81a812",
		   "d13c5d3b-b5d1-422a-b29f-9454fdc89d76", "8f461b0d-14ee-4e81-9aa9-049b6fb97abd",
		   "5996fc05-109c-48de-808b-23fa0830b676", "974a71c0-de41-43c3-be5d-5c5ccd1ad2c0"),
	ARCH_TYPES(ARCH_ARM, "69dad710-2ce4-4e3c-b16c-21a1d49abed3", "7d0359a3-02b3-4f0a-865c-654403e70625",
		   "7386cdf2-203c-47a9-a498-f2ecce45a2d6", "c215d751-7bcd-4649-be90-6627490a4c05",
		   "42b0455f-eb11-491d-98d3-56145ba9d037", "d7ff812f-37d1-4902-a810-d76ba57b975a"),
	ARCH_TYPES(ARCH_RISCV64, "72ec70a6-cf74-40e6-bd49-4bda08e8f224", "beaec34b-8442-439b-a40b-984381ed097d",
		   "b6ed5582-440b-4209-b8da-5ff7c419ea3d", "8f1056be-9b05-47c4-81d6-be53128e5b54",
		   "efe0f087-ea8d-4469-821a-4c2a96a8386a", "d2f9000a-7a18-453f-b5cd-4d32f77a7b32"),
	ARCH_TYPES(ARCH_PPC64LE, "c31c45e6-3f39-412e-80fb-4809c4980599", "15bb03af-77e7-4d4a-b12b-c0d084f7491c",
		   "906bd944-4589-4aae-a4e4-dd983917446a", "ee2b9983-21e8-4153-86d9-b6901a54d1ce",
		   "d4a236e7-e873-4c07-bf1d-bf6cf7f1c3c6", "c8bfbd1e-268e-4521-8bba-bf314c399557"),
	ARCH_TYPES(ARCH_S390X, "5eead9a9-fe09-4a1e-a1d7-520d00531306", "8a4f5770-50aa-4ed3-874a-99b710db6fea",
		   "b325bfbe-c7be-4ab8-8357-139e652d2f6b", "31741cc4-1a2a-4111-a581-e00b447d2d06",
		   "c80187a5-73a3-491a-901a-017c3fa953e9", "3f324816-667b-46ae-86ee-9b0c0c6c11b4"),
	ARCH_TYPES(ARCH_LOONGARCH64, "77055800-792c-4f94-b39a-98c91b762bb6", "e611c702-575c-4cbe-9a46-434fa0bf7e3f",
		   "f3393b22-e9af-4613-a948-9d3bfbd0c535", "f46b2c26-59ae-48f0-9106-c50ed47f673d",
		   "5afb67eb-ecc8-4f85-ae8e-ac1e7c50e7d0", "b024f315-d330-444c-8461-44bbde524e99"),
	{ DPS_ESP, ARCH_INVALID, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b" },
	{ DPS_XBOOTLDR, ARCH_INVALID, "bc13c2ff-59e6-4262-a352-b275fd6f7172" },
	{ DPS_SWAP, ARCH_INVALID, "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f" },
	{ DPS_HOME, ARCH_INVALID, "933ac7e1-2eb4-4f13-b844-0e14e2aef915" },
	{ DPS_SRV, ARCH_INVALID, "3b8f8425-20e0-4f3b-907f-1a25a76f98e8" },
	{ DPS_VAR, ARCH_INVALID, "4d21b016-b534-45c2-a9fb-5c16e091fd2d" },
	{ DPS_TMP, ARCH_INVALID, "7ec6f557-3bc5-4aca-b293-16ef5df639d1" },
	{ DPS_USER_HOME, ARCH_INVALID, "773f91ef-66d4-49b5-bd83-d683bf40ad16" },
	{ DPS_LINUX_GENERIC, ARCH_INVALID, "0fc63daf-8483-4772-8e79-3d69d8477de4" },
};

static const struct role_info {
	const char *name;
	bool no_auto;   /* bit 63 honoured */
	bool read_only; /* bit 60 honoured */
	bool mounted;   /* discovery mounts (or swaps on) it: its filesystem is worth a probe */
	bool grow_fs;   /* bit 59 honoured */
} roles[DPS_ROLE_MAX] = {
	[DPS_ROOT] = { "root", true, true, true, true },
	[DPS_USR] = { "usr", true, true, true, true },
	[DPS_ROOT_VERITY] = { "root-verity", true, true, false, false },
	[DPS_USR_VERITY] = { "usr-verity", true, true, false, false },
	[DPS_ROOT_VERITY_SIG] = { "root-verity-sig", true, true, false, false },
	[DPS_USR_VERITY_SIG] = { "usr-verity-sig", true, true, false, false },
	[DPS_ESP] = { "esp", false, false, true, false },
	[DPS_XBOOTLDR] = { "xbootldr", true, true, true, true },
	[DPS_SWAP] = { "swap", true, false, true, false },
	[DPS_HOME] = { "home", true, true, true, true },
	[DPS_SRV] = { "srv", true, true, true, true },
	[DPS_VAR] = { "var", true, true, true, true },
	[DPS_TMP] = { "tmp", true, true, true, true },
	/* systemd-homed's, and data partitions: for the real system to use, never discovery */
	[DPS_USER_HOME] = { "user-home", false, false, false, false },
	[DPS_LINUX_GENERIC] = { "linux-generic", false, false, false, false },
};

static const struct arch_info {
	const char *name;
	enum arch secondary;
	const char *aliases[4];
} arches[ARCH_MAX] = {
	[ARCH_X86_64] = { "x86-64", ARCH_X86, { "x86_64", "amd64" } },
	[ARCH_AARCH64] = { "arm64", ARCH_ARM, { "aarch64" } },
	[ARCH_X86] = { "x86", ARCH_INVALID, { "i386", "i486", "i586", "i686" } },
	[ARCH_ARM] = { "arm", ARCH_INVALID, { "armhf", "armv7l", "armel" } },
	[ARCH_RISCV64] = { "riscv64", ARCH_INVALID, { 0 } },
	[ARCH_PPC64LE] = { "ppc64le", ARCH_INVALID, { "ppc64el" } },
	[ARCH_S390X] = { "s390x", ARCH_INVALID, { 0 } },
	[ARCH_LOONGARCH64] = { "loongarch64", ARCH_INVALID, { "loong64" } },
};

enum arch arch_native(void)
{
#if defined(__x86_64__)
	return ARCH_X86_64;
#elif defined(__aarch64__)
	return ARCH_AARCH64;
#elif defined(__i386__)
	return ARCH_X86;
#elif defined(__arm__)
	return ARCH_ARM;
#elif defined(__riscv) && __riscv_xlen == 64
	return ARCH_RISCV64;
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ARCH_PPC64LE;
#elif defined(__s390x__)
	return ARCH_S390X;
#elif defined(__loongarch64)
	return ARCH_LOONGARCH64;
#else
#error "earlymount does not know this architecture's partition types"
#endif
}

enum arch arch_secondary(enum arch arch)
{
	return arch > ARCH_INVALID && arch < ARCH_MAX ? arches[arch].secondary : ARCH_INVALID;
}

const char *arch_name(enum arch arch)
{
	return arch > ARCH_INVALID && arch < ARCH_MAX ? arches[arch].name : "unknown";
}

enum arch arch_from_name(const char *name)
{
	for (int a = 0; a < ARCH_MAX; a++) {
		if (streq(name, arches[a].name))
			return (enum arch)a;
		for (size_t i = 0; i < ARRAY_SIZE(arches[a].aliases) && arches[a].aliases[i]; i++)
			if (streq(name, arches[a].aliases[i]))
				return (enum arch)a;
	}
	return ARCH_INVALID;
}

const struct dps_type *dps_type_from_uuid(const char *uuid)
{
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (strcasecmp(uuid, types[i].uuid) == 0)
			return &types[i];
	return NULL;
}

const char *dps_type_uuid(enum dps_role role, enum arch arch)
{
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (types[i].role == role && (types[i].arch == ARCH_INVALID || types[i].arch == arch))
			return types[i].uuid;
	return NULL;
}

const char *dps_role_name(enum dps_role role)
{
	return role > DPS_UNKNOWN && role < DPS_ROLE_MAX ? roles[role].name : "unknown";
}

bool dps_role_honours_no_auto(enum dps_role role)
{
	return role > DPS_UNKNOWN && role < DPS_ROLE_MAX && roles[role].no_auto;
}

bool dps_role_honours_read_only(enum dps_role role)
{
	return role > DPS_UNKNOWN && role < DPS_ROLE_MAX && roles[role].read_only;
}

bool dps_role_honours_grow_fs(enum dps_role role)
{
	return role > DPS_UNKNOWN && role < DPS_ROLE_MAX && roles[role].grow_fs;
}

bool dps_role_mounted(enum dps_role role)
{
	return role > DPS_UNKNOWN && role < DPS_ROLE_MAX && roles[role].mounted;
}

bool dps_fstype_allowed(const char *fstype)
{
	static const char *const allowed[] = { "btrfs", "erofs", "ext4", "f2fs", "squashfs", "vfat", "xfs" };

	for (size_t i = 0; i < ARRAY_SIZE(allowed); i++)
		if (streq(fstype, allowed[i]))
			return true;
	return false;
}

void dps_var_partuuid(const uint8_t machine_id[16], uint8_t out[16])
{
	uint8_t var_type[16], digest[SHA256_DIGEST_SIZE];

	uuid_parse(dps_type_uuid(DPS_VAR, ARCH_INVALID), var_type);
	hmac_sha256(machine_id, 16, var_type, sizeof(var_type), digest);
	memcpy(out, digest, 16);
	/* The spec's text stops at the HMAC; systemd also marks the result as a v4 UUID. */
	out[6] = (out[6] & 0x0f) | 0x40;
	out[8] = (out[8] & 0x3f) | 0x80;
}
