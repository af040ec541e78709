/* Sizes for people: "512 B", "1.5 GiB". */
#pragma once

#include <stddef.h>
#include <stdint.h>

void format_size(uint64_t bytes, char *buf, size_t size);
