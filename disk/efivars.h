/* EFI variables the boot loader leaves for the OS, read from efivarfs. */
#pragma once

#include <stddef.h>

#include "paths.h"
#include "uuid.h"

#define EFIVARS_DIR EFI_FIRMWARE_DIR "/efivars"
/* The Boot Loader Interface's vendor GUID (systemd-boot, systemd-stub). */
#define EFI_LOADER_VENDOR "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"

/* Reads dir/NAME-VENDOR: 4 bytes of attributes, then a UTF-16LE string (NUL-terminated or
 * not), into out as ASCII. 0; -ENOENT when the variable does not exist; -EINVAL when it is
 * not such a string or holds characters outside ASCII; -E2BIG when out is too small. */
int efivar_read_string(const char *dir, const char *name, const char *vendor, char *out,
		       size_t size);

/* The PARTUUID of the partition the loader came from, lower case: LoaderDevicePartUUID, else
 * StubDevicePartUUID. 0, -ENOENT when neither exists, -EINVAL when the value is no UUID. */
int efivars_boot_partuuid(const char *dir, char out[UUID_STR_LEN]);
