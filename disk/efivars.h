/* EFI variables the boot loader leaves for the OS, read from efivarfs. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "paths.h"
#include "uuid.h"

#define EFIVARS_DIR EFI_FIRMWARE_DIR "/efivars"
/* The most data earlymount reads or writes as one variable. */
#define EFIVAR_DATA_MAX 1024
/* The attributes of a variable kept across boots and readable by the OS (UEFI 2.10, 8.2). */
#define EFI_VARIABLE_NON_VOLATILE 0x1u
#define EFI_VARIABLE_BOOTSERVICE_ACCESS 0x2u
#define EFI_VARIABLE_RUNTIME_ACCESS 0x4u

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

/* Reads dir/NAME-VENDOR whole: its attributes into *attributes, its data into data. The
 * data's length; -ENOENT when the variable does not exist; -E2BIG when it holds more than size
 * bytes (or EFIVAR_DATA_MAX); -EINVAL when it is shorter than its attribute word. */
ssize_t efivar_read(const char *dir, const char *name, const char *vendor, uint32_t *attributes,
		    void *data, size_t size);
/* Creates or replaces dir/NAME-VENDOR with attributes and len bytes of data (at most
 * EFIVAR_DATA_MAX), in one write, its immutable flag cleared first. 0 or -errno (the
 * firmware's answer: -ENOSPC when its store is full). */
int efivar_write(const char *dir, const char *name, const char *vendor, uint32_t attributes,
		 const void *data, size_t len);
/* Deletes dir/NAME-VENDOR, its immutable flag cleared first. 0, -ENOENT, or -errno. */
int efivar_delete(const char *dir, const char *name, const char *vendor);
