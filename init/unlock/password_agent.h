/* systemd's password agent protocol (systemd.io/PASSWORD_AGENTS): a question is a file
 * ask.XXXXXX in ASK_PASSWORD_DIR naming a datagram socket; an agent (ours, `/init answer`
 * over SSH; systemd-tty-ask-password-agent; Plymouth) sends "+PASSPHRASE" to that socket.
 * The prompt on the consoles stays open meanwhile: the first answer wins. Effect layer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define ASK_PASSWORD_DIR "/run/systemd/ask-password"

struct agent_ask {
	int fd;           /* the socket, -1 when none could be made */
	char file[96];    /* the ask.XXXXXX file */
	char socket[96];
};

/* Puts the question message up for agents: 0 with a->fd the socket to poll, or -errno (the
 * consoles still ask; a->fd is then -1). */
int agent_ask_open(const char *message, struct agent_ask *a);
/* Reads one datagram from a->fd: its passphrase's length with the passphrase in out, 0 for a
 * datagram that is no answer (another user's, a cancel), -errno on failure. */
int agent_ask_read(struct agent_ask *a, char *out, size_t size);
/* Takes the question down. */
void agent_ask_close(struct agent_ask *a);

/* `/init answer`: waits up to timeout_sec for a question, shows it, reads a passphrase from
 * standard input (without echo on a terminal) and sends it. An exit code. */
int agent_answer_main(int timeout_sec);
