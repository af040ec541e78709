/* The names the kernel's device-mapper takes for a device (/dev/mapper/NAME). */
#pragma once

#include <stdbool.h>

/* 1 to 127 bytes, no '/', and none of the names /dev/mapper holds already or that a path
 * would read otherwise: ".", ".." and "control" (the device-mapper's own node). */
bool dm_name_valid(const char *name);

#define DM_NAME_RULE "1 to 127 characters, no '/', not '.', '..' or 'control'"
