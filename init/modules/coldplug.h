/* The coldplug walk: the modaliases of the devices present, read from sysfs. */
#pragma once

#include "alias_list.h"

/* Adds the modalias of every device on a bus, of the input and DMI classes and of the CPUs
 * to list, sorted so that devices sharing one are next to each other, each marked bound when
 * the device has a driver already. 0 or -errno. */
int coldplug_modaliases(struct alias_list *list);
