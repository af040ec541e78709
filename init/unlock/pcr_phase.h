/* The boot phases in PCR 11, as systemd's initrd measures them (systemd-pcrphase(8)). */
#pragma once

/* Extends PCR 11 with word ("enter-initrd", "leave-initrd") in every active bank, when
 * systemd-stub measured the kernel there (its StubPcrKernelImage variable says 11), and
 * records the event in /run/log/systemd/tpm2-measure.log. Nothing without that variable;
 * a failure is said and the boot goes on (a key sealed to the phase then will not unseal). */
void pcr_phase_measure(const char *word);
