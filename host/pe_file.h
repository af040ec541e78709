/* The headers of a PE32+ image (the UEFI stub, an EFI-stub kernel): what `earlymount uki`
 * needs to add sections after the stub's own. Data in, data out. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dps.h"

#define PE_SECTIONS_MAX 96
#define PE_MACHINE_X86_64 0x8664
#define PE_MACHINE_ARM64 0xaa64

struct pe_section {
	char name[9];
	uint32_t virtual_size, virtual_address, raw_size, raw_offset;
};

struct pe_file {
	uint16_t machine;
	uint64_t image_base;
	uint32_t section_alignment;
	size_t n_sections;
	struct pe_section sections[PE_SECTIONS_MAX];
};

/* Reads the headers at the start of a file (len bytes of it; the section table must be among
 * them): 0, or -EINVAL with why saying what is wrong. */
int pe_parse(const uint8_t *buf, size_t len, struct pe_file *pe, char *why, size_t why_size);

/* The arch of a PE machine number; ARCH_INVALID for others. */
enum arch pe_machine_arch(uint16_t machine);

/* The first address after every section, aligned to the section alignment: where added
 * sections may begin (relative to the image base). */
uint64_t pe_end_address(const struct pe_file *pe);

/* The section called name, or NULL. */
const struct pe_section *pe_find_section(const struct pe_file *pe, const char *name);
