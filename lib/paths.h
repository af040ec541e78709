/* The paths more than one layer names, each defined once. */
#pragma once

/* Where earlymount keeps its own mounts and state in the initramfs (moved with /run). */
#define EARLYMOUNT_RUN "/run/earlymount"
/* Where the device-mapper devices earlymount sets up are linked by name. */
#define DM_MAPPER_DIR "/dev/mapper"
